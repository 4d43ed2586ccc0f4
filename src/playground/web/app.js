// The playground page: a Discord-like client of the local Discord, acting as one of the simulated users.
import { createComposer } from "./composer.js";
import { mountInstalls } from "./install.js";
import { refreshRelativeTimes } from "./markdown.js";
import { createPanel } from "./panel.js";
import { avatar, el, renderMessage } from "./render.js";

/** Messages by the same author within this window share one author line, as in Discord. */
const GROUP_WINDOW_MS = 7 * 60_000;
/** Discord keeps a pressed button spinning until the bot edits the message; give up after this. */
const SPINNER_LIMIT_MS = 15_000;

const $ = (id) => document.getElementById(id);

async function api(path, { method = "GET", body } = {}) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `${response.status} ${response.statusText}`);
  return data;
}

const state = {
  boot: undefined,
  me: "",
  channelId: "",
  /** channel id -> message views in order (only for channels opened since the user was picked) */
  messages: new Map(),
  /** message ids seen since the user was picked: a new id elsewhere counts as unread */
  seen: new Set(),
  unread: new Map(),
  dismissed: new Set(),
  events: undefined,
};

const meUser = () => state.boot.users.find((u) => u.username === state.me);
const dmChannelId = () => meUser().dmChannelId;
const isDm = (channelId) => state.boot.users.some((u) => u.dmChannelId === channelId);
const channelName = () => {
  if (isDm(state.channelId)) return `@${state.boot.bot.displayName}`;
  const channel =
    state.boot.guild.channels.find((c) => c.id === state.channelId) ??
    state.boot.elsewhere.flatMap((g) => g.channels).find((c) => c.id === state.channelId);
  return `#${channel?.name ?? "channel"}`;
};

const names = () => ({
  users: new Map([state.boot.bot, ...state.boot.users].map((u) => [u.id, u.displayName])),
  channels: new Map(state.boot.guild.channels.map((c) => [c.id, c.name])),
  roles: new Map(state.boot.guild.roles.map((r) => [r.id, r.name])),
});

// ---- toasts ---------------------------------------------------------------------------------

function notify(text, kind = "info") {
  const toast = el("div", `toast ${kind}`, text);
  toast.setAttribute("role", kind === "error" ? "alert" : "status");
  $("toasts").append(toast);
  setTimeout(() => toast.remove(), 6000);
}

// ---- interactions from the page ----------------------------------------------------------------

async function pressComponent(message, customId, values, control) {
  const article = document.querySelector(`article.msg[data-id="${CSS.escape(message.id)}"]`);
  const error = article?.querySelector(".interaction-error");
  if (error) error.textContent = "";
  control.classList.add("pending");
  control.disabled = true;
  const release = () => {
    control.classList.remove("pending");
    control.disabled = false;
  };
  try {
    const answer = await api("/api/interactions/component", {
      method: "POST",
      body: { user: state.me, messageId: message.id, customId, ...(values ? { values } : {}) },
    });
    if (!answer.ok) {
      release();
      if (error) error.textContent = "This interaction failed";
      return;
    }
    if (answer.type === 9) openModal(answer.data);
    // A deferred update ends when the bot edits the message, which redraws it without the spinner.
    if (answer.type === 6) setTimeout(release, SPINNER_LIMIT_MS);
    else release();
  } catch (failure) {
    release();
    if (error) error.textContent = failure.message;
  }
}

// ---- modals -------------------------------------------------------------------------------------

/** The text inputs of a modal, whether wrapped in labels (type 18) or in action rows. */
function modalInputs(modal) {
  const inputs = [];
  for (const row of modal.components ?? []) {
    if (row.type === 18 && row.component) {
      inputs.push({ label: row.label, description: row.description, input: row.component });
    } else if (row.type === 1) {
      for (const input of row.components ?? [])
        inputs.push({ label: input.label, description: undefined, input });
    } else if (row.type === 10) {
      inputs.push({ text: row.content });
    }
  }
  return inputs;
}

function openModal(modal) {
  const root = $("modal-root");
  root.replaceChildren();
  const backdrop = el("div", "modal-backdrop");
  const dialog = el("form", "modal");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  dialog.setAttribute("aria-label", modal.title ?? "Form");
  const header = el("div", "modal-header");
  header.append(avatar(state.boot.bot, "small"), el("h2", "modal-title", modal.title ?? "Form"));
  dialog.append(header);
  const body = el("div", "modal-body");
  const fields = [];
  for (const item of modalInputs(modal)) {
    if (item.text !== undefined) {
      body.append(el("p", "modal-text", item.text));
      continue;
    }
    const { input } = item;
    if (input.type !== 4) {
      body.append(el("p", "muted small", "(a component the playground does not show)"));
      continue;
    }
    const required = input.required !== false;
    const wrap = el("label", "modal-field");
    const label = el("span", "modal-label", item.label ?? input.custom_id);
    if (required) label.append(el("span", "required-star", " *"));
    wrap.append(label);
    if (item.description) wrap.append(el("span", "modal-description", item.description));
    const control = el(input.style === 2 ? "textarea" : "input", "modal-input");
    control.name = input.custom_id;
    control.dataset.customId = input.custom_id;
    if (input.placeholder) control.placeholder = input.placeholder;
    if (input.value) control.value = input.value;
    control.required = required;
    if (input.min_length !== undefined) control.minLength = input.min_length;
    if (input.max_length !== undefined) control.maxLength = input.max_length;
    wrap.append(control);
    body.append(wrap);
    fields.push(control);
  }
  const error = el("div", "modal-error");
  error.setAttribute("role", "alert");
  body.append(error);
  const footer = el("div", "modal-footer");
  const cancel = el("button", "link-button", "Cancel");
  cancel.type = "button";
  const submit = el("button", "btn btn-primary", "Submit");
  submit.type = "submit";
  footer.append(cancel, submit);
  dialog.append(body, footer);
  const close = () => root.replaceChildren();
  cancel.addEventListener("click", close);
  backdrop.addEventListener("click", (event) => event.target === backdrop && close());
  dialog.addEventListener("keydown", (event) => event.key === "Escape" && close());
  dialog.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await api("/api/interactions/modal", {
        method: "POST",
        body: {
          user: state.me,
          customId: modal.custom_id,
          fields: Object.fromEntries(fields.map((f) => [f.name, f.value])),
        },
      });
      if (!answer.ok) {
        error.textContent = "Something went wrong: the application did not respond.";
        submit.disabled = false;
        return;
      }
      close();
      if (answer.type === 9) openModal(answer.data);
    } catch (failure) {
      error.textContent = failure.message;
      submit.disabled = false;
    }
  });
  backdrop.append(dialog);
  root.append(backdrop);
  (fields[0] ?? submit).focus();
}

// ---- messages -------------------------------------------------------------------------------------

const renderContext = () => ({
  names: names(),
  boot: state.boot,
  fileUrl: (url) => `${url}?user=${encodeURIComponent(state.me)}`,
  pressComponent,
  dismiss(id) {
    state.dismissed.add(id);
    document.querySelector(`article.msg[data-id="${CSS.escape(id)}"]`)?.remove();
  },
});

function continues(previous, message) {
  return (
    previous !== undefined &&
    previous.author.id === message.author.id &&
    !previous.ephemeral &&
    !message.ephemeral &&
    message.createdAt - previous.createdAt < GROUP_WINDOW_MS
  );
}

function drawMessages() {
  const list = $("messages");
  const messages = (state.messages.get(state.channelId) ?? []).filter((m) => !state.dismissed.has(m.id));
  const ctx = renderContext();
  list.replaceChildren(welcome());
  let previous;
  for (const m of messages) {
    list.append(renderMessage(m, ctx, continues(previous, m)));
    previous = m;
  }
  list.scrollTop = list.scrollHeight;
  // Which user's view of which channel is on screen (tests wait on it after a switch).
  list.dataset.view = `${state.me}:${state.channelId}`;
}

function welcome() {
  const box = el("div", "welcome");
  if (isDm(state.channelId)) {
    box.append(avatar(state.boot.bot, "large"), el("h1", "", state.boot.bot.displayName));
    box.append(
      el(
        "p",
        "muted",
        `This is the beginning of your direct message history with ${state.boot.bot.displayName}. Alerts arrive here.`,
      ),
    );
  } else {
    box.append(el("div", "welcome-hash", "#"), el("h1", "", `Welcome to ${channelName()}!`));
    box.append(
      el("p", "muted", "Type / to see the bot's commands. Start with /account link, then /watch add."),
    );
  }
  return box;
}

/** Adds or replaces one message in place, keeping the scroll at the bottom when it was there. */
function upsert(message) {
  const list = state.messages.get(message.channelId);
  const isNew = !state.seen.has(message.id);
  state.seen.add(message.id);
  if (list) {
    const index = list.findIndex((m) => m.id === message.id);
    if (index >= 0) list[index] = message;
    else list.push(message);
  }
  if (message.channelId !== state.channelId) {
    if (isNew && message.author.bot) {
      state.unread.set(message.channelId, (state.unread.get(message.channelId) ?? 0) + 1);
      drawRail();
    }
    return;
  }
  if (state.dismissed.has(message.id)) return;
  const container = $("messages");
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 80;
  const existing = container.querySelector(`article.msg[data-id="${CSS.escape(message.id)}"]`);
  const messages = state.messages.get(state.channelId) ?? [];
  const index = messages.findIndex((m) => m.id === message.id);
  const node = renderMessage(message, renderContext(), continues(messages[index - 1], message));
  if (existing) existing.replaceWith(node);
  else container.append(node);
  if (atBottom || (isNew && message.author.username === state.me))
    container.scrollTop = container.scrollHeight;
}

function remove(id, channelId) {
  const list = state.messages.get(channelId);
  if (list)
    state.messages.set(
      channelId,
      list.filter((m) => m.id !== id),
    );
  document.querySelector(`article.msg[data-id="${CSS.escape(id)}"]`)?.remove();
}

// ---- navigation ---------------------------------------------------------------------------------

function drawRail() {
  const channels = $("channel-list");
  channels.replaceChildren();
  for (const c of state.boot.guild.channels) {
    const item = el("li", "");
    const b = el("button", `channel${c.id === state.channelId ? " active" : ""}`);
    b.type = "button";
    b.dataset.channel = c.name;
    b.disabled = c.type !== "text";
    b.append(el("span", "channel-icon", c.type === "text" ? "#" : "🔊"), el("span", "channel-name", c.name));
    const unread = state.unread.get(c.id);
    if (unread) b.append(el("span", "badge", String(unread)));
    b.addEventListener("click", () => openChannel(c.id));
    item.append(b);
    channels.append(item);
  }
  const dms = $("dm-list");
  dms.replaceChildren();
  const dm = dmChannelId();
  const item = el("li", "");
  const b = el("button", `channel dm${dm === state.channelId ? " active" : ""}`);
  b.type = "button";
  b.dataset.channel = "dm";
  b.append(avatar(state.boot.bot, "small"), el("span", "channel-name", state.boot.bot.displayName));
  const unread = state.unread.get(dm);
  if (unread) b.append(el("span", "badge", String(unread)));
  b.addEventListener("click", () => openChannel(dm));
  item.append(b);
  dms.append(item);
  const me = meUser();
  $("me-avatar").replaceWith(Object.assign(avatar(me), { id: "me-avatar" }));
  $("me-name").textContent = me.displayName;
  $("me-tag").textContent = `@${me.username}`;
  $("home-dms").classList.toggle("active", isDm(state.channelId));
  $("guild-icon").classList.toggle("active", !isDm(state.channelId));
}

async function openChannel(channelId) {
  state.channelId = channelId;
  state.unread.delete(channelId);
  drawRail();
  $("chat-title").textContent = channelName();
  $("chat-topic").textContent = isDm(channelId)
    ? "Alerts and private answers from the bot"
    : "Slash commands run here; replies are public unless marked “Only you can see this”";
  composer.reset();
  const user = state.me;
  if (!state.messages.has(channelId)) {
    // Collects live events from now on, so nothing posted during the fetch is lost.
    state.messages.set(channelId, []);
    $("messages").replaceChildren(welcome());
    delete $("messages").dataset.view;
    const { messages } = await api(`/api/messages?user=${encodeURIComponent(user)}&channelId=${channelId}`);
    // Another user was picked meanwhile: this answer is theirs no more.
    if (state.me !== user) return;
    for (const m of messages) state.seen.add(m.id);
    // Live events may have arrived while loading: they are newer than the fetched copies.
    const merged = new Map(messages.map((m) => [m.id, m]));
    for (const m of state.messages.get(channelId) ?? []) merged.set(m.id, m);
    state.messages.set(
      channelId,
      [...merged.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)),
    );
  }
  if (state.channelId !== channelId || state.me !== user) return;
  drawMessages();
  await loadCommands();
  composer.focus();
}

async function loadCommands() {
  const { commands } = await api(
    `/api/commands?user=${encodeURIComponent(state.me)}&channelId=${state.channelId}`,
  );
  composer.setCommands(commands);
}

/** Resolves once the server streams this user's events: only then is a fetched history complete. */
function connectEvents() {
  state.events?.close();
  const events = new EventSource(`/api/events?user=${encodeURIComponent(state.me)}`);
  let opened = false;
  const open = new Promise((resolve) => {
    events.addEventListener("open", () => {
      // After a reconnect, what happened in between is fetched again.
      if (opened) {
        state.messages.clear();
        openChannel(state.channelId);
      }
      opened = true;
      resolve();
    });
  });
  events.addEventListener("message", (event) => {
    const { message } = JSON.parse(event.data);
    upsert(message);
    if (message.author.bot) panelSoon();
  });
  events.addEventListener("delete", (event) => {
    const { id, channelId } = JSON.parse(event.data);
    remove(id, channelId);
  });
  events.addEventListener("commands", () => loadCommands());
  state.events = events;
  return open;
}

let panelTimer;
/** A bot answer may follow /watch add or a purchase: the panel's rules and balance catch up. */
function panelSoon() {
  clearTimeout(panelTimer);
  panelTimer = setTimeout(() => panel?.update(), 500);
}

async function switchUser(username) {
  const wasDm = state.channelId === "" || isDm(state.channelId);
  state.me = username;
  state.messages.clear();
  state.seen.clear();
  state.unread.clear();
  state.dismissed.clear();
  const url = new URL(location.href);
  url.searchParams.set("user", username);
  history.replaceState(null, "", url);
  $("user-picker").value = username;
  await connectEvents();
  await openChannel(
    wasDm && state.channelId !== "" ? dmChannelId() : state.channelId || state.boot.defaultChannelId,
  );
  if (panel) await panel.refresh().catch((error) => notify(error.message, "error"));
}

// ---- start ----------------------------------------------------------------------------------------

let panel;
let composer;

async function start() {
  state.boot = await api("/api/bootstrap");
  state.channelId = state.boot.defaultChannelId;
  composer = createComposer($("composer"), {
    api,
    me: () => state.me,
    channelId: () => state.channelId,
    channelName,
    boot: state.boot,
    openModal,
    notify,
  });
  $("guild-name").textContent = state.boot.guild.name;
  $("guild-icon").textContent = state.boot.guild.name
    .split(/\s+/)
    .map((w) => w[0])
    .join("")
    .slice(0, 2);
  $("guild-icon").title = state.boot.guild.name;
  const picker = $("user-picker");
  for (const u of state.boot.users) picker.append(new Option(u.displayName, u.username));
  const installs = mountInstalls(document.querySelector(".sidebar-scroll"), {
    api,
    me: () => state.me,
    channelId: () => state.channelId,
    openChannel,
    reloadCommands: loadCommands,
    elsewhere: state.boot.elsewhere,
  });
  picker.addEventListener("change", () => switchUser(picker.value).then(() => installs.refresh()));
  $("home-dms").addEventListener("click", () => openChannel(dmChannelId()));
  $("guild-icon").addEventListener("click", () => openChannel(state.boot.defaultChannelId));
  $("panel-toggle").addEventListener("click", () => {
    const open = document.body.classList.toggle("panel-open");
    $("panel-toggle").setAttribute("aria-expanded", String(open));
  });
  document.addEventListener("click", (event) => {
    for (const list of document.querySelectorAll(".select-list:not([hidden])")) {
      if (!list.parentElement.contains(event.target)) list.hidden = true;
    }
  });
  if (state.boot.sandbox)
    panel = createPanel($("panel"), { api, me: () => state.me, meName: () => meUser().displayName });
  else
    createPanel($("panel"), { api, me: () => state.me, meName: () => "" }).disable(
      "No sandbox runs: MARKET_BASE_URL points at another marketplace.",
    );
  const wanted = new URL(location.href).searchParams.get("user");
  const first = state.boot.users.find((u) => u.username === wanted) ?? state.boot.users[0];
  await switchUser(first.username);
  await installs.refresh();
  setInterval(() => refreshRelativeTimes(), 10_000);
  document.body.classList.add("ready");
}

start().catch((error) => {
  document.body.classList.add("failed");
  notify(`The playground could not start: ${error.message}`, "error");
});

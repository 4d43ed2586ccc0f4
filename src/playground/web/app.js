// The playground page: a Discord-like client of the local Discord, acting as one of the simulated users.
import { api } from "./api.js";
import { createComposer } from "./composer.js";
import { mountInstalls } from "./panel/install.js";
import { createPresser } from "./components.js";
import { openEvents } from "./connection.js";
import { refreshRelativeTimes } from "./markdown.js";
import { createModals } from "./modal.js";
import { createPanel } from "./panel/panel.js";
import { icon } from "./icons.js";
import { avatar, el, renderMessage } from "./render.js";
import { keepPinned } from "./scroll.js";
import { channelName, dmChannelId, isDm, meUser, names, state } from "./state.js";

/** Messages by the same author within this window share one author line, as in Discord. */
const GROUP_WINDOW_MS = 7 * 60_000;

const $ = (id) => document.getElementById(id);

// ---- toasts ---------------------------------------------------------------------------------

function notify(text, kind = "info") {
  const toast = el("div", `toast ${kind}`, text);
  toast.setAttribute("role", kind === "error" ? "alert" : "status");
  $("toasts").append(toast);
  setTimeout(() => toast.remove(), 6000);
}

// ---- messages -------------------------------------------------------------------------------------

const renderContext = () => ({
  names: names(),
  boot: state.boot,
  fileUrl: (url) => `${url}?user=${encodeURIComponent(state.me)}`,
  pressComponent: (...args) => pressComponent(...args),
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
  pinner.pin();
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
    b.append(
      c.type === "text" ? el("span", "channel-icon", "#") : icon("speaker", "channel-icon", "voice channel"),
      el("span", "channel-name", c.name),
    );
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

/** `keepDraft`: a reconnect redraws the same place, so what is being typed in the composer stays. */
async function openChannel(channelId, keepDraft = false) {
  state.channelId = channelId;
  state.unread.delete(channelId);
  drawRail();
  $("chat-title").textContent = channelName();
  $("chat-topic").textContent = isDm(channelId)
    ? "Alerts and private answers from the bot"
    : "Slash commands run here; replies are public unless marked “Only you can see this”";
  if (!keepDraft) composer.reset();
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
  if (!keepDraft) composer.focus();
}

async function loadCommands() {
  const { commands } = await api(
    `/api/commands?user=${encodeURIComponent(state.me)}&channelId=${state.channelId}`,
  );
  composer.setCommands(commands);
}

// ---- the live connection --------------------------------------------------------------------------

/** Resolves once the server streams this user's events: only then is a fetched history complete. */
function connectEvents() {
  state.events?.close();
  const events = openEvents(
    `/api/events?user=${encodeURIComponent(state.me)}`,
    {
      message: ({ message }) => {
        upsert(message);
        if (message.author.bot) panelSoon();
      },
      delete: ({ id, channelId }) => remove(id, channelId),
      commands: () => loadCommands(),
    },
    () => resync().catch((error) => notify(error.message, "error")),
  );
  state.events = events;
  return events.opened;
}

/**
 * After a reconnect: users, channels and the DM with the bot are looked up again (by name: a
 * restarted bot's local Discord gave them new ids), then the open channel, the commands and the
 * panel are fetched as if the page had just loaded.
 */
async function resync() {
  const before = state.boot;
  const boot = await api("/api/bootstrap");
  const wasDm = isDm(state.channelId);
  const channel = before.guild.channels.find((c) => c.id === state.channelId);
  state.boot = boot;
  if (!meUser()) state.me = boot.users[0].username;
  drawUsers();
  drawGuild();
  state.messages.clear();
  state.unread.clear();
  const again = boot.guild.channels.find((c) => c.name === channel?.name);
  await openChannel(wasDm ? dmChannelId() : (again?.id ?? boot.defaultChannelId), true);
  if (panel) await panel.refresh();
  // Which connection the views were last fetched for (tests wait on it after a restart).
  document.body.dataset.synced = String(Number(document.body.dataset.synced ?? "0") + 1);
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
let pinner;
let openModal;
let pressComponent;

function drawGuild() {
  const { name } = state.boot.guild;
  $("guild-name").textContent = name;
  $("guild-icon").textContent = name
    .split(/\s+/)
    .map((w) => w[0])
    .join("")
    .slice(0, 2);
  $("guild-icon").title = name;
}

function drawUsers() {
  const picker = $("user-picker");
  picker.replaceChildren(...state.boot.users.map((u) => new Option(u.displayName, u.username)));
  picker.value = state.me;
}

async function start() {
  state.boot = await api("/api/bootstrap");
  state.channelId = state.boot.defaultChannelId;
  pinner = keepPinned($("messages"));
  openModal = createModals({ api, me: () => state.me, bot: () => state.boot.bot });
  pressComponent = createPresser({ api, me: () => state.me, openModal });
  composer = createComposer($("composer"), {
    api,
    me: () => state.me,
    channelId: () => state.channelId,
    channelName,
    boot: () => state.boot,
    openModal,
    notify,
  });
  drawGuild();
  const picker = $("user-picker");
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
  // In a narrow window the panel is a drawer over the chat: it starts closed there.
  if (matchMedia("(max-width: 900px)").matches) {
    document.body.classList.remove("panel-open");
    $("panel-toggle").setAttribute("aria-expanded", "false");
  }
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
  state.me = first.username;
  drawUsers();
  await switchUser(first.username);
  await installs.refresh();
  setInterval(() => refreshRelativeTimes(), 10_000);
  document.body.classList.add("ready");
}

start().catch((error) => {
  document.body.classList.add("failed");
  notify(`The playground could not start: ${error.message}`, "error");
});

// The message box: plain messages, and slash commands built from the bot's registered definitions.
import { el } from "./render.js";

const T = {
  SUB: 1,
  GROUP: 2,
  STRING: 3,
  INTEGER: 4,
  BOOLEAN: 5,
  USER: 6,
  CHANNEL: 7,
  ROLE: 8,
  MENTIONABLE: 9,
  NUMBER: 10,
  ATTACHMENT: 11,
};
const TYPE_NAMES = {
  3: "text",
  4: "integer",
  5: "true/false",
  6: "user",
  7: "channel",
  8: "role",
  9: "mention",
  10: "number",
  11: "file",
};
const AUTOCOMPLETE_DELAY_MS = 200;

/** Every command a user can run, flattened as Discord lists them: "/watch add", "/watch list"... */
export function leafCommands(commands) {
  const leaves = [];
  for (const command of commands) {
    const options = command.options ?? [];
    const subs = options.filter((o) => o.type === T.SUB || o.type === T.GROUP);
    if (subs.length === 0) {
      leaves.push({ path: command.name, description: command.description, options });
      continue;
    }
    for (const sub of subs) {
      if (sub.type === T.SUB) {
        leaves.push({
          path: `${command.name} ${sub.name}`,
          description: sub.description,
          options: sub.options ?? [],
        });
      } else {
        for (const leaf of sub.options ?? []) {
          leaves.push({
            path: `${command.name} ${sub.name} ${leaf.name}`,
            description: leaf.description,
            options: leaf.options ?? [],
          });
        }
      }
    }
  }
  return leaves;
}

/**
 * @param {HTMLFormElement} form
 * @param {object} ctx app context: api, me(), channelId(), boot, channelName(), openModal(), notify()
 */
export function createComposer(form, ctx) {
  const popup = el("div", "composer-popup");
  popup.hidden = true;
  popup.setAttribute("role", "listbox");
  const box = el("div", "composer-box");
  const hint = el("div", "composer-hint");
  hint.setAttribute("aria-live", "polite");
  form.append(popup, box, hint);

  let leaves = [];
  /** @type {{ leaf: object, shown: string[] } | undefined} */
  let active;
  let popupItems = [];
  let highlighted = 0;
  let autocompleteTimer;
  let autocompleteSeq = 0;

  const setHint = (text, kind = "") => {
    hint.textContent = text ?? "";
    hint.className = `composer-hint ${kind}`.trim();
  };

  const closePopup = () => {
    popup.hidden = true;
    popup.replaceChildren();
    popupItems = [];
  };

  const showPopup = (title, items, query) => {
    popup.replaceChildren();
    // Which text the list answers (autocomplete): the page and its tests can tell a stale list apart.
    if (query === undefined) delete popup.dataset.query;
    else popup.dataset.query = query;
    popupItems = items;
    highlighted = 0;
    if (items.length === 0) {
      closePopup();
      return;
    }
    popup.append(el("div", "popup-title", title));
    items.forEach((item, index) => {
      const row = el("div", "popup-item");
      row.setAttribute("role", "option");
      row.dataset.value = item.key;
      row.append(el("span", "popup-item-name", item.name));
      if (item.description) row.append(el("span", "popup-item-description", item.description));
      row.addEventListener("mousedown", (event) => {
        // Keep the input's focus: a click should pick, not blur first.
        event.preventDefault();
        item.pick();
      });
      row.addEventListener("mousemove", () => highlight(index));
      popup.append(row);
    });
    popup.hidden = false;
    highlight(0);
  };

  const highlight = (index) => {
    const rows = popup.querySelectorAll(".popup-item");
    if (rows.length === 0) return;
    highlighted = (index + rows.length) % rows.length;
    rows.forEach((row, i) => row.classList.toggle("highlighted", i === highlighted));
    rows[highlighted].scrollIntoView({ block: "nearest" });
  };

  /** Arrow keys and Enter/Tab inside an open popup; true when the key was used. */
  const popupKey = (event) => {
    if (popup.hidden || popupItems.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      highlight(highlighted + (event.key === "ArrowDown" ? 1 : -1));
      return true;
    }
    if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      popupItems[highlighted]?.pick();
      return true;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      closePopup();
      return true;
    }
    return false;
  };

  // ---- plain text mode ----------------------------------------------------------------------

  const textMode = (initial = "") => {
    active = undefined;
    clearTimeout(autocompleteTimer);
    autocompleteSeq += 1;
    closePopup();
    box.replaceChildren();
    box.classList.remove("command-mode");
    const input = el("textarea", "composer-input");
    input.id = "composer-input";
    input.rows = 1;
    input.placeholder = `Message ${ctx.channelName()} — type / for commands`;
    input.value = initial;
    input.setAttribute("aria-label", "Message or slash command");
    input.addEventListener("input", () => suggestCommands(input));
    input.addEventListener("keydown", (event) => {
      if (popupKey(event)) return;
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        sendText(input);
      }
    });
    input.addEventListener("blur", () => setTimeout(closePopup, 150));
    box.append(input);
    setHint("");
    return input;
  };

  const suggestCommands = (input) => {
    const text = input.value;
    if (!text.startsWith("/")) {
      closePopup();
      return;
    }
    const typed = text.slice(1).trim().toLowerCase();
    const matches = leaves.filter(
      (l) => l.path.startsWith(typed) || (typed.length > 1 && l.path.includes(typed)),
    );
    if (matches.length === 0) {
      closePopup();
      setHint(
        leaves.length === 0 ? "The bot has not registered any commands yet." : "No command matches.",
        "muted",
      );
      return;
    }
    setHint("");
    showPopup(
      `Commands matching /${typed}`,
      matches.map((leaf) => ({
        key: leaf.path,
        name: `/${leaf.path}`,
        description: leaf.description,
        pick: () => commandMode(leaf),
      })),
    );
  };

  const sendText = async (input) => {
    const content = input.value.trim();
    if (!content) return;
    if (content.startsWith("/")) {
      const leaf = leaves.find((l) => l.path === content.slice(1).trim());
      if (leaf) commandMode(leaf);
      else setHint(`No command called ${content}.`, "error");
      return;
    }
    try {
      await ctx.api("/api/messages", {
        method: "POST",
        body: { user: ctx.me(), channelId: ctx.channelId(), content },
      });
      input.value = "";
    } catch (error) {
      setHint(error.message, "error");
    }
  };

  // ---- command mode ---------------------------------------------------------------------------

  const commandMode = (leaf) => {
    closePopup();
    const required = leaf.options.filter((o) => o.required).map((o) => o.name);
    active = { leaf, shown: required };
    drawCommand();
    const first = box.querySelector(".opt-input");
    (first ?? box.querySelector(".send-button"))?.focus();
    setHint(leaf.description ?? "");
  };

  const currentValues = () => {
    const values = {};
    for (const field of box.querySelectorAll(".opt")) {
      const input = field.querySelector(".opt-input");
      if (!input) continue;
      values[field.dataset.option] = input.value;
    }
    return values;
  };

  const drawCommand = (keep = currentValues()) => {
    box.replaceChildren();
    box.classList.add("command-mode");
    const chip = el("span", "cmd-chip", `/${active.leaf.path}`);
    const fields = el("div", "cmd-fields");
    for (const name of active.shown) {
      const option = active.leaf.options.find((o) => o.name === name);
      if (option) fields.append(optionField(option, keep[name]));
    }
    const optional = active.leaf.options.filter((o) => !o.required && !active.shown.includes(o.name));
    if (optional.length > 0) {
      const add = el("select", "cmd-add-option");
      add.setAttribute("aria-label", "Add an optional option");
      add.append(new Option(`+ ${optional.length} optional`, ""));
      for (const o of optional) add.append(new Option(`${o.name} — ${o.description}`, o.name));
      add.addEventListener("change", () => {
        if (!add.value) return;
        const values = currentValues();
        active.shown.push(add.value);
        const added = add.value;
        drawCommand(values);
        box.querySelector(`.opt[data-option="${CSS.escape(added)}"] .opt-input`)?.focus();
      });
      fields.append(add);
    }
    const cancel = el("button", "icon-button cmd-cancel", "×");
    cancel.type = "button";
    cancel.title = "Leave the command";
    cancel.addEventListener("click", () => textMode().focus());
    const send = el("button", "send-button", "Send");
    send.type = "submit";
    box.append(cancel, chip, fields, send);
  };

  const optionField = (option, value) => {
    const field = el("div", `opt${option.required ? " required" : ""}`);
    field.dataset.option = option.name;
    const label = el("label", "opt-name", option.name);
    const id = `opt-${option.name}`;
    label.htmlFor = id;
    let input;
    const choices = option.choices ?? [];
    if (choices.length > 0) {
      input = el("select", "opt-input");
      input.append(new Option("Choose…", ""));
      for (const c of choices) input.append(new Option(c.name, String(c.value)));
    } else if (option.type === T.BOOLEAN) {
      input = el("select", "opt-input");
      input.append(new Option("Choose…", ""), new Option("True", "true"), new Option("False", "false"));
    } else if (option.type === T.USER || option.type === T.MENTIONABLE) {
      input = el("select", "opt-input");
      input.append(new Option("Choose a user…", ""));
      for (const u of ctx.boot.users) input.append(new Option(u.displayName, u.id));
      if (option.type === T.MENTIONABLE)
        for (const r of ctx.boot.guild.roles) input.append(new Option(`@${r.name}`, r.id));
    } else if (option.type === T.ROLE) {
      input = el("select", "opt-input");
      input.append(new Option("Choose a role…", ""));
      for (const r of ctx.boot.guild.roles) input.append(new Option(r.name, r.id));
    } else if (option.type === T.CHANNEL) {
      input = el("select", "opt-input");
      input.append(new Option("Choose a channel…", ""));
      // The bot's channel options ask for text channels; voice channels are never offered.
      for (const c of ctx.boot.guild.channels)
        if (c.type === "text") input.append(new Option(`#${c.name}`, c.id));
    } else if (option.type === T.ATTACHMENT) {
      input = el("input", "opt-input");
      input.disabled = true;
      input.placeholder = "files are not supported here";
    } else {
      input = el("input", "opt-input");
      input.autocomplete = "off";
      if (option.type === T.INTEGER || option.type === T.NUMBER) {
        input.type = "text";
        input.inputMode = option.type === T.INTEGER ? "numeric" : "decimal";
      }
      if (option.max_length) input.maxLength = option.max_length;
      input.placeholder = option.autocomplete
        ? "start typing for suggestions"
        : (TYPE_NAMES[option.type] ?? "");
    }
    input.id = id;
    if (value !== undefined) input.value = value;
    input.addEventListener("focus", () => {
      setHint(`${option.name}${option.required ? " (required)" : ""}: ${option.description ?? ""}`);
      if (option.autocomplete) scheduleAutocomplete(option, input, 0);
      else closePopup();
    });
    input.addEventListener("input", () => {
      if (option.autocomplete) scheduleAutocomplete(option, input, AUTOCOMPLETE_DELAY_MS);
    });
    input.addEventListener("blur", () =>
      setTimeout(() => document.activeElement !== input && closePopup(), 150),
    );
    input.addEventListener("keydown", (event) => {
      if (popupKey(event)) return;
      if (event.key === "Escape") {
        event.preventDefault();
        textMode().focus();
      }
    });
    field.append(label, input);
    if (!option.required) {
      const remove = el("button", "opt-remove", "×");
      remove.type = "button";
      remove.title = `Remove ${option.name}`;
      remove.addEventListener("click", () => {
        const values = currentValues();
        active.shown = active.shown.filter((n) => n !== option.name);
        drawCommand(values);
      });
      field.append(remove);
    }
    return field;
  };

  /** Suggestions come from the bot itself: a real autocomplete interaction per pause in typing. */
  const scheduleAutocomplete = (option, input, delay) => {
    clearTimeout(autocompleteTimer);
    autocompleteTimer = setTimeout(async () => {
      if (!active) return;
      const seq = ++autocompleteSeq;
      const options = filledValues();
      const typed = input.value;
      options[option.name] = typed;
      try {
        const answer = await ctx.api("/api/interactions/autocomplete", {
          method: "POST",
          body: {
            user: ctx.me(),
            channelId: ctx.channelId(),
            path: active.leaf.path,
            options,
            focused: option.name,
          },
        });
        // A slower answer to an older keystroke must not replace a newer list.
        if (seq !== autocompleteSeq || document.activeElement !== input) return;
        if (!answer.ok) {
          setHint("Loading options failed (the bot did not answer in time).", "error");
          closePopup();
          return;
        }
        showPopup(
          `${option.name}: suggestions from ${ctx.boot.bot.displayName}`,
          answer.choices.map((c) => ({
            key: String(c.value),
            name: c.name,
            pick: () => {
              input.value = String(c.value);
              closePopup();
            },
          })),
          typed,
        );
        if (answer.choices.length === 0) setHint(`No suggestions for “${typed}”.`, "muted");
      } catch (error) {
        if (seq === autocompleteSeq) setHint(error.message, "error");
      }
    }, delay);
  };

  /** The values typed so far (empty fields left out), for autocomplete and sending. */
  const filledValues = () => {
    const out = {};
    for (const [name, value] of Object.entries(currentValues())) if (value !== "") out[name] = value;
    return out;
  };

  const validate = () => {
    const values = filledValues();
    for (const option of active.leaf.options) {
      const value = values[option.name];
      if (value === undefined) {
        if (option.required) return `Fill in “${option.name}”: it is required.`;
        continue;
      }
      if (option.type === T.INTEGER || option.type === T.NUMBER) {
        const n = Number(value);
        if (!Number.isFinite(n) || (option.type === T.INTEGER && !Number.isInteger(n))) {
          return `“${option.name}” must be ${option.type === T.INTEGER ? "a whole number" : "a number"}.`;
        }
        if (option.min_value !== undefined && n < option.min_value)
          return `“${option.name}” must be at least ${option.min_value}.`;
        if (option.max_value !== undefined && n > option.max_value)
          return `“${option.name}” must be at most ${option.max_value}.`;
      }
      if (option.type === T.STRING && option.min_length !== undefined && value.length < option.min_length) {
        return `“${option.name}” needs at least ${option.min_length} characters.`;
      }
    }
    return undefined;
  };

  const submitCommand = async () => {
    const problem = validate();
    if (problem) {
      setHint(problem, "error");
      return;
    }
    const leaf = active.leaf;
    const send = box.querySelector(".send-button");
    if (send) send.disabled = true;
    try {
      const answer = await ctx.api("/api/interactions/command", {
        method: "POST",
        body: { user: ctx.me(), channelId: ctx.channelId(), path: leaf.path, options: filledValues() },
      });
      textMode().focus();
      if (!answer.ok) {
        ctx.notify(`/${leaf.path}: ${answer.error}`, "error");
        return;
      }
      if (answer.type === 9) ctx.openModal(answer.data);
    } catch (error) {
      if (send) send.disabled = false;
      setHint(error.message, "error");
    }
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (active) submitCommand();
    else sendText(box.querySelector(".composer-input"));
  });

  textMode();
  return {
    setCommands(commands) {
      leaves = leafCommands(commands);
      if (active && !leaves.some((l) => l.path === active.leaf.path)) textMode();
    },
    reset() {
      textMode();
    },
    focus() {
      box.querySelector("textarea, .opt-input")?.focus();
    },
  };
}

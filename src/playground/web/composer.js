// The message box: plain messages, and slash commands built from the bot's registered definitions,
// picked from the list or typed/pasted whole (`/search item:… max_price:120`) as in Discord's client.
import { optionInput } from "./optionInput.js";
import { createPopup } from "./popup.js";
import { el } from "./render.js";
import { commandOfLine, leafCommands, parseCommandLine, problemWith, rankCommands } from "./slashCommands.js";

const AUTOCOMPLETE_DELAY_MS = 200;

/**
 * @param {HTMLFormElement} form
 * @param {object} ctx app context: api, me(), channelId(), boot(), channelName(), openModal(), notify()
 */
export function createComposer(form, ctx) {
  const popup = createPopup(form);
  const box = el("div", "composer-box");
  const hint = el("div", "composer-hint");
  hint.setAttribute("aria-live", "polite");
  form.append(box, hint);

  let leaves = [];
  /** @type {{ leaf: object, shown: string[] } | undefined} */
  let active;
  let autocompleteTimer;
  let autocompleteSeq = 0;

  const setHint = (text, kind = "") => {
    hint.textContent = text ?? "";
    hint.className = `composer-hint ${kind}`.trim();
  };
  /** A pending or shown suggestion list goes: a slower answer must not reopen it. */
  const dropSuggestions = () => {
    clearTimeout(autocompleteTimer);
    autocompleteSeq += 1;
    popup.close();
  };
  const refs = () => ({
    users: ctx.boot().users,
    channels: ctx.boot().guild.channels,
    roles: ctx.boot().guild.roles,
  });

  // ---- plain text mode ----------------------------------------------------------------------

  const textMode = (initial = "") => {
    active = undefined;
    dropSuggestions();
    box.replaceChildren();
    box.classList.remove("command-mode");
    const input = el("textarea", "composer-input");
    input.id = "composer-input";
    input.rows = 1;
    input.placeholder = `Message ${ctx.channelName()} — type / for commands`;
    input.value = initial;
    input.setAttribute("aria-label", "Message or slash command");
    input.addEventListener("input", (event) => {
      // A pasted command line fills the command's options at once, as Discord's client does.
      if (event.inputType === "insertFromPaste" && takeLine(input.value, false)) return;
      suggestCommands(input);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && lineHasOptions(input.value)) {
        event.preventDefault();
        takeLine(input.value, true);
        return;
      }
      if (popup.key(event)) return;
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        sendText(input);
      }
    });
    input.addEventListener("blur", () =>
      setTimeout(() => document.activeElement !== input && popup.closeFor(input), 150),
    );
    box.append(input);
    setHint("");
    return input;
  };

  /** A line naming a command and then more: options to read rather than a command to pick. */
  const lineHasOptions = (text) => {
    const found = commandOfLine(text.trim(), leaves);
    return found !== undefined && found.tail.trim() !== "";
  };

  /**
   * A whole command line: its options fill the command's boxes; with every required one there and
   * `send`, it runs at once. False when the line names no command.
   */
  const takeLine = (text, send) => {
    const parsed = parseCommandLine(text, leaves, refs());
    if (!parsed.ok) {
      if (!parsed.leaf) return false;
      setHint(parsed.error, "error");
      return true;
    }
    commandMode(parsed.leaf, parsed.values);
    if (send && parsed.missing.length === 0) submitCommand();
    return true;
  };

  const suggestCommands = (input) => {
    const text = input.value;
    if (!text.startsWith("/")) {
      popup.close();
      setHint("");
      return;
    }
    const typed = commandOfLine(text.trim(), leaves);
    if (typed && typed.tail.trim() !== "") {
      // Options are being typed after a command: say what will be read, or what is wrong.
      popup.close();
      const parsed = parseCommandLine(text, leaves, refs());
      // Still being typed: said quietly; Enter says it as an error.
      if (!parsed.ok) setHint(parsed.error, "muted");
      else if (parsed.missing.length > 0) setHint(`Still required: ${parsed.missing.join(", ")}.`, "muted");
      else setHint(`Enter runs /${parsed.leaf.path} with ${Object.keys(parsed.values).join(", ")}.`);
      return;
    }
    const matches = rankCommands(text.slice(1), leaves);
    if (matches.length === 0) {
      popup.close();
      setHint(
        leaves.length === 0 ? "The bot has not registered any commands yet." : "No command matches.",
        "muted",
      );
      return;
    }
    setHint("");
    popup.show(
      `Commands matching ${text.trim()}`,
      matches.map((leaf) => ({
        key: leaf.path,
        name: `/${leaf.path}`,
        description: leaf.description,
        pick: () => commandMode(leaf),
      })),
      undefined,
      input,
    );
  };

  const sendText = async (input) => {
    const content = input.value.trim();
    if (!content) return;
    if (content.startsWith("/")) {
      if (!takeLine(content, true)) setHint(`No command called ${content.split(/\s+/)[0]}.`, "error");
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

  /** `values`: options already known (typed on the line); the first required one still empty gets the cursor. */
  const commandMode = (leaf, values = {}) => {
    dropSuggestions();
    const shown = leaf.options.filter((o) => o.required || o.name in values).map((o) => o.name);
    active = { leaf, shown };
    drawCommand(values);
    setHint(leaf.description ?? "");
    // After the command's hint: focusing a box says what that option is.
    const empty = [...box.querySelectorAll(".opt-input")].find((i) => i.value === "" && !i.disabled);
    (empty ?? box.querySelector(".send-button"))?.focus();
  };

  const currentValues = () => {
    const values = {};
    for (const field of box.querySelectorAll(".opt")) {
      const input = field.querySelector(".opt-input");
      if (input) values[field.dataset.option] = input.value;
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
    const input = optionInput(option, ctx.boot());
    const label = el("label", "opt-name", option.name);
    label.htmlFor = input.id;
    if (value !== undefined) input.value = value;
    input.addEventListener("focus", () => {
      setHint(`${option.name}${option.required ? " (required)" : ""}: ${option.description ?? ""}`);
      if (option.autocomplete) scheduleAutocomplete(option, input, 0);
      else dropSuggestions();
    });
    input.addEventListener("input", () => {
      if (option.autocomplete) scheduleAutocomplete(option, input, AUTOCOMPLETE_DELAY_MS);
    });
    input.addEventListener("blur", () =>
      setTimeout(() => document.activeElement !== input && popup.closeFor(input), 150),
    );
    input.addEventListener("keydown", (event) => {
      if (popup.key(event)) {
        // Escape closes the suggestions and keeps the command; an answer still on its way stays closed.
        if (event.key === "Escape") dropSuggestions();
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        dropSuggestions();
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
          popup.close();
          return;
        }
        popup.show(
          `${option.name}: suggestions from ${ctx.boot().bot.displayName}`,
          answer.choices.map((c) => ({
            key: String(c.value),
            name: c.name,
            pick: () => {
              input.value = String(c.value);
              popup.close();
            },
          })),
          typed,
          input,
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

  const submitCommand = async () => {
    const problem = problemWith(active.leaf.options, filledValues());
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

// The box for one slash-command option, by its type: a picker for choices, users, roles and channels, else text.
import { OPTION_TYPES as T } from "./slashCommands.js";
import { el } from "./render.js";

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

/** What the page knows to offer in pickers: `boot` as /api/bootstrap sends it. */
export function optionInput(option, boot) {
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
    for (const u of boot.users) input.append(new Option(u.displayName, u.id));
    if (option.type === T.MENTIONABLE)
      for (const r of boot.guild.roles) input.append(new Option(`@${r.name}`, r.id));
  } else if (option.type === T.ROLE) {
    input = el("select", "opt-input");
    input.append(new Option("Choose a role…", ""));
    for (const r of boot.guild.roles) input.append(new Option(r.name, r.id));
  } else if (option.type === T.CHANNEL) {
    input = el("select", "opt-input");
    input.append(new Option("Choose a channel…", ""));
    // The bot's channel options ask for text channels; voice channels are never offered.
    for (const c of boot.guild.channels) if (c.type === "text") input.append(new Option(`#${c.name}`, c.id));
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
  input.id = `opt-${option.name}`;
  return input;
}

// A message's components as Discord draws them: action rows, buttons, select menus (with the options
// of user, role and channel menus filled from what the page knows) and the read-only layout parts.
import { el } from "./dom.js";
import { renderMarkdown, safeHttpUrl } from "./markdown.js";
import { placeMenu } from "./placement.js";

const BUTTON_STYLES = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium" };

function emojiText(emoji) {
  if (!emoji) return "";
  return emoji.id ? `:${emoji.name ?? "emoji"}:` : (emoji.name ?? "");
}

function renderButton(component, message, ctx) {
  const style = BUTTON_STYLES[component.style] ?? "secondary";
  const button = el("button", `btn btn-${style}`);
  button.type = "button";
  const emoji = emojiText(component.emoji);
  if (emoji) button.append(el("span", "btn-emoji", emoji));
  if (component.label) button.append(el("span", "btn-label", component.label));
  button.disabled = component.disabled === true;
  if (style === "link") {
    const href = safeHttpUrl(component.url ?? "");
    button.append(el("span", "btn-external", "↗"));
    if (!href) button.disabled = true;
    button.addEventListener("click", () => href && window.open(href, "_blank", "noopener,noreferrer"));
    return button;
  }
  button.addEventListener("click", () => ctx.pressComponent(message, component.custom_id, undefined, button));
  return button;
}

/** Options of the non-string select menus, from the people and places the page knows. */
function autoOptions(component, ctx) {
  switch (component.type) {
    case 5:
      return ctx.boot.users.map((u) => ({ label: u.displayName, value: u.id }));
    case 6:
      return ctx.boot.guild.roles.map((r) => ({ label: r.name, value: r.id }));
    case 7:
      return [
        ...ctx.boot.users.map((u) => ({ label: `@${u.displayName}`, value: u.id })),
        ...ctx.boot.guild.roles.map((r) => ({ label: `@${r.name}`, value: r.id })),
      ];
    case 8:
      return ctx.boot.guild.channels
        .filter((c) => c.type === "text")
        .map((c) => ({ label: `#${c.name}`, value: c.id }));
    default:
      return component.options ?? [];
  }
}

function renderSelect(component, message, ctx) {
  const options = autoOptions(component, ctx);
  const max = Math.max(1, Math.min(component.max_values ?? 1, options.length || 1));
  const min = Math.max(0, component.min_values ?? 1);
  const wrap = el("div", "select");
  const trigger = el("button", "select-trigger");
  trigger.type = "button";
  trigger.disabled = component.disabled === true;
  trigger.setAttribute("aria-haspopup", "listbox");
  const defaults = options.filter((o) => o.default).map((o) => o.label);
  const caption = el(
    "span",
    "select-caption",
    defaults.length > 0 ? defaults.join(", ") : (component.placeholder ?? "Make a selection"),
  );
  if (defaults.length === 0) caption.classList.add("placeholder");
  trigger.append(caption, el("span", "select-chevron", "▾"));
  const list = el("div", "select-list");
  list.setAttribute("role", "listbox");
  list.hidden = true;
  const chosen = new Set();
  const submit = (values) => {
    list.hidden = true;
    ctx.pressComponent(message, component.custom_id, values, trigger);
  };
  for (const option of options) {
    const item = el("div", "select-option");
    item.setAttribute("role", "option");
    item.tabIndex = 0;
    const emoji = emojiText(option.emoji);
    const text = el("div", "select-option-text");
    text.append(
      el("div", "select-option-label", `${emoji ? `${emoji} ` : ""}${option.label ?? option.value}`),
    );
    if (option.description) text.append(el("div", "select-option-description", option.description));
    item.append(text);
    if (max > 1) {
      const box = el("span", "select-check", "");
      item.prepend(box);
    }
    const pick = () => {
      if (max === 1) {
        submit([option.value]);
        return;
      }
      if (chosen.has(option.value)) chosen.delete(option.value);
      else if (chosen.size < max) chosen.add(option.value);
      item.classList.toggle("chosen", chosen.has(option.value));
    };
    item.addEventListener("click", pick);
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pick();
      }
    });
    list.append(item);
  }
  if (max > 1) {
    const done = el("button", "btn btn-primary select-done", "Done");
    done.type = "button";
    done.addEventListener("click", () => {
      if (chosen.size >= min) submit([...chosen]);
    });
    list.append(done);
  }
  trigger.addEventListener("click", () => {
    list.hidden = !list.hidden;
    if (!list.hidden) placeMenu(wrap, trigger, list);
  });
  wrap.append(trigger, list);
  return wrap;
}

/** Top-level components: action rows (and the few layout components of Components V2, read-only). */
export function renderComponent(component, message, ctx) {
  switch (component.type) {
    case 1: {
      const row = el("div", "action-row");
      for (const child of component.components ?? []) row.append(renderComponent(child, message, ctx));
      return row;
    }
    case 2:
      return renderButton(component, message, ctx);
    case 3:
    case 5:
    case 6:
    case 7:
    case 8:
      return renderSelect(component, message, ctx);
    case 10: {
      const text = el("div", "md");
      text.append(renderMarkdown(component.content ?? "", ctx.names));
      return text;
    }
    case 14:
      return el("hr", "separator");
    case 9:
    case 17: {
      const box = el("div", component.type === 17 ? "container" : "section");
      for (const child of component.components ?? []) box.append(renderComponent(child, message, ctx));
      if (component.accessory) box.append(renderComponent(component.accessory, message, ctx));
      return box;
    }
    default:
      return el("div", "muted small", `(component type ${component.type} is not shown in the playground)`);
  }
}

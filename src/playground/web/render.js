// Messages as Discord draws them: author line, markdown, embeds, attachments, buttons and select menus.
import { inline, renderMarkdown, safeHttpUrl } from "./markdown.js";
import { placeMenu } from "./placement.js";

export const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
};

const AVATAR_COLOURS = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#9b59b6", "#1abc9c"];

export function avatar(user, size = "") {
  const node = el(
    "div",
    `avatar ${size}`.trim(),
    (user.displayName || user.username || "?").slice(0, 1).toUpperCase(),
  );
  let hash = 0;
  for (const c of user.id ?? "") hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  node.style.backgroundColor = user.bot ? "#5865f2" : AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
  node.setAttribute("aria-hidden", "true");
  return node;
}

export function clockText(ms) {
  const date = new Date(ms);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(date);
  const today = new Date();
  if (date.toDateString() === today.toDateString()) return `Today at ${time}`;
  const yesterday = new Date(today.getTime() - 86_400_000);
  if (date.toDateString() === yesterday.toDateString()) return `Yesterday at ${time}`;
  return `${new Intl.DateTimeFormat(undefined, { dateStyle: "short" }).format(date)} ${time}`;
}

const hexColour = (n) => `#${Number(n).toString(16).padStart(6, "0")}`;

/**
 * Discord's field layout: a non-inline field takes a whole row; consecutive inline fields share
 * rows of up to three, each an equal share of twelve grid columns.
 */
function fieldRows(fields) {
  const rows = [];
  let run = [];
  const flush = () => {
    for (let i = 0; i < run.length; i += 3) rows.push(run.slice(i, i + 3));
    run = [];
  };
  for (const field of fields) {
    if (field.inline) run.push(field);
    else {
      flush();
      rows.push([field]);
    }
  }
  flush();
  return rows;
}

/** Images come from this page's own /files or https; anything else is not loaded. */
function imageSource(url, ctx) {
  if (typeof url !== "string") return undefined;
  if (url.startsWith("/files/")) return ctx.fileUrl(url);
  const safe = safeHttpUrl(url);
  return safe && safe.startsWith("https:") ? safe : undefined;
}

function image(src, className, alt) {
  const img = el("img", className);
  img.src = src;
  img.alt = alt ?? "";
  img.loading = "lazy";
  img.referrerPolicy = "no-referrer";
  // An icon the sandbox invented (or an offline CDN) should vanish, not show a broken frame.
  img.addEventListener("error", () => img.remove());
  return img;
}

export function renderEmbed(embed, ctx) {
  const box = el("div", "embed");
  if (typeof embed.color === "number") box.style.borderLeftColor = hexColour(embed.color);
  const grid = el("div", "embed-grid");
  const main = el("div", "embed-main");
  if (embed.author?.name) {
    const author = el("div", "embed-author");
    const href = embed.author.url ? safeHttpUrl(embed.author.url) : undefined;
    if (href) {
      const a = el("a", "md-link", embed.author.name);
      a.href = href;
      a.target = "_blank";
      a.rel = "noopener noreferrer nofollow";
      author.append(a);
    } else author.textContent = embed.author.name;
    main.append(author);
  }
  if (embed.title) {
    const title = el("div", "embed-title");
    const href = embed.url ? safeHttpUrl(embed.url) : undefined;
    if (href) {
      const a = el("a", "md-link");
      a.href = href;
      a.target = "_blank";
      a.rel = "noopener noreferrer nofollow";
      a.append(inline(embed.title, ctx.names));
      title.append(a);
    } else title.append(inline(embed.title, ctx.names));
    main.append(title);
  }
  if (embed.description) {
    const description = el("div", "embed-description");
    description.append(renderMarkdown(embed.description, ctx.names));
    main.append(description);
  }
  if (Array.isArray(embed.fields) && embed.fields.length > 0) {
    const fields = el("div", "embed-fields");
    for (const row of fieldRows(embed.fields)) {
      for (const field of row) {
        const f = el("div", "embed-field");
        f.style.gridColumn = `span ${12 / row.length}`;
        const name = el("div", "embed-field-name");
        name.append(inline(field.name ?? "", ctx.names));
        const value = el("div", "embed-field-value");
        value.append(renderMarkdown(field.value ?? "", ctx.names));
        f.append(name, value);
        fields.append(f);
      }
    }
    main.append(fields);
  }
  const imageUrl = imageSource(embed.image?.url, ctx);
  if (imageUrl) main.append(image(imageUrl, "embed-image", embed.title ?? "image"));
  grid.append(main);
  const thumb = imageSource(embed.thumbnail?.url, ctx);
  if (thumb) grid.append(image(thumb, "embed-thumbnail", "thumbnail"));
  box.append(grid);
  if (embed.footer?.text || embed.timestamp) {
    const footer = el("div", "embed-footer");
    const parts = [];
    if (embed.footer?.text) parts.push(embed.footer.text);
    if (embed.timestamp) parts.push(clockText(Date.parse(embed.timestamp)));
    footer.textContent = parts.join(" • ");
    box.append(footer);
  }
  return box;
}

function renderAttachment(attachment, ctx) {
  const src = ctx.fileUrl(attachment.url);
  if (attachment.contentType?.startsWith("image/")) {
    const a = el("a", "attachment-image");
    a.href = src;
    a.target = "_blank";
    a.rel = "noopener";
    a.append(image(src, "", attachment.filename));
    return a;
  }
  const box = el("div", "attachment-file");
  const a = el("a", "md-link", attachment.filename);
  a.href = src;
  a.download = attachment.filename;
  box.append(
    el("span", "file-icon", "📄"),
    a,
    el("span", "muted small", ` ${Math.ceil(attachment.size / 1024)} KB`),
  );
  return box;
}

// ---- components -----------------------------------------------------------------------------

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
function renderComponent(component, message, ctx) {
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

// ---- messages -------------------------------------------------------------------------------

/**
 * One message. `continued` hides the author line (same author a moment ago), as Discord groups them.
 * @param {object} m the server's MessageView
 */
export function renderMessage(m, ctx, continued) {
  const article = el("article", "msg");
  article.dataset.id = m.id;
  article.dataset.author = m.author.username;
  if (m.ephemeral) article.classList.add("ephemeral");
  const grouped = continued && !m.command;
  if (grouped) article.classList.add("continued");
  if (m.command) {
    const ref = el("div", "msg-command");
    ref.append(el("span", "msg-command-spine"), avatar(m.command.user, "tiny"));
    ref.append(el("span", "msg-command-user", m.command.user.displayName), el("span", "muted", " used "));
    ref.append(el("span", "msg-command-name", m.command.name));
    article.append(ref);
  }
  const row = el("div", "msg-row");
  const gutter = el("div", "msg-gutter");
  if (grouped)
    gutter.append(
      el(
        "span",
        "msg-hover-time",
        new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(
          new Date(m.createdAt),
        ),
      ),
    );
  else gutter.append(avatar(m.author));
  const body = el("div", "msg-body");
  if (!grouped) {
    const head = el("div", "msg-head");
    head.append(el("span", "msg-author", m.author.displayName));
    if (m.author.bot) head.append(el("span", "bot-tag", "APP"));
    head.append(el("span", "msg-time", clockText(m.createdAt)));
    body.append(head);
  }
  if (m.loading) {
    const thinking = el("div", "thinking");
    thinking.append(el("span", "", `${m.author.displayName} is thinking`), el("span", "dots"));
    body.append(thinking);
  }
  if (m.content) {
    const content = el("div", "msg-content md");
    content.append(renderMarkdown(m.content, ctx.names));
    if (m.editedAt) content.append(el("span", "edited", " (edited)"));
    body.append(content);
  }
  for (const embed of m.embeds ?? []) body.append(renderEmbed(embed, ctx));
  const files = (m.attachments ?? []).filter((a) => !a.inEmbed);
  if (files.length > 0) {
    const box = el("div", "attachments");
    for (const file of files) box.append(renderAttachment(file, ctx));
    body.append(box);
  }
  if ((m.components ?? []).length > 0) {
    const components = el("div", "components");
    for (const component of m.components) components.append(renderComponent(component, m, ctx));
    body.append(components);
  }
  body.append(el("div", "interaction-error"));
  if (m.ephemeral) {
    const note = el("div", "ephemeral-note");
    note.append(el("span", "eye", "👁"), el("span", "", "Only you can see this • "));
    const dismiss = el("button", "link-button", "Dismiss message");
    dismiss.type = "button";
    dismiss.addEventListener("click", () => ctx.dismiss(m.id));
    note.append(dismiss);
    body.append(note);
  }
  row.append(gutter, body);
  article.append(row);
  return article;
}

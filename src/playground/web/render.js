// Messages as Discord draws them: author line, markdown, embeds, attachments; buttons and select
// menus are drawn by messageComponents.js.
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { inline, renderMarkdown, safeHttpUrl } from "./markdown.js";
import { renderComponent } from "./messageComponents.js";

// The page's modules import `el` from here; it lives in dom.js so that messageComponents.js can use it
// without importing this file back.
export { el };

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
    icon("file", "file-icon"),
    a,
    el("span", "muted small", ` ${Math.ceil(attachment.size / 1024)} KB`),
  );
  return box;
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
    note.append(icon("eye", "eye"), el("span", "", "Only you can see this • "));
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

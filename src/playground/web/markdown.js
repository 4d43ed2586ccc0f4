// Discord-flavoured markdown to DOM nodes. Every piece of text becomes a text node: nothing is parsed as HTML.

/** @typedef {{ users: Map<string, string>, channels: Map<string, string>, roles: Map<string, string> }} Names */

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** Only web links become anchors; anything else (javascript:, data:...) stays text. */
export function safeHttpUrl(raw) {
  try {
    const url = new URL(raw);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function link(href, children) {
  const a = el("a", "md-link");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  a.title = href;
  for (const child of children) a.append(child);
  return a;
}

// ---- timestamps <t:unix:style> ------------------------------------------------------------

const RELATIVE_STEPS = [
  [60, "second"],
  [60, "minute"],
  [24, "hour"],
  [7, "day"],
  [4.345, "week"],
  [12, "month"],
  [Infinity, "year"],
];

export function relativeText(unixSeconds, nowMs = Date.now()) {
  let value = unixSeconds - nowMs / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [size, unit] of RELATIVE_STEPS) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit);
    value /= size;
  }
  return format.format(Math.round(value), "year");
}

const STYLES = {
  t: { hour: "2-digit", minute: "2-digit" },
  T: { hour: "2-digit", minute: "2-digit", second: "2-digit" },
  d: { year: "numeric", month: "2-digit", day: "2-digit" },
  D: { year: "numeric", month: "long", day: "numeric" },
  f: { year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" },
  F: { weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" },
};

export function timestampText(unixSeconds, style) {
  if (style === "R") return relativeText(unixSeconds);
  return new Intl.DateTimeFormat(undefined, STYLES[style] ?? STYLES.f).format(new Date(unixSeconds * 1000));
}

function timestamp(unixSeconds, style = "f") {
  const node = el("time", "md-time", timestampText(unixSeconds, style));
  node.dataset.unix = String(unixSeconds);
  node.dataset.style = style;
  node.dateTime = new Date(unixSeconds * 1000).toISOString();
  node.title = timestampText(unixSeconds, "F");
  return node;
}

/** Keeps "in 5 minutes" true while the page stays open. */
export function refreshRelativeTimes(root = document) {
  for (const node of root.querySelectorAll('time.md-time[data-style="R"]')) {
    node.textContent = relativeText(Number(node.dataset.unix));
  }
}

// ---- inline rules ----------------------------------------------------------------------------

/** Each rule: a sticky regex tried at the current position, and what it becomes. */
const INLINE_RULES = [
  { re: /\\([\\*_~`|<>[\]()#-])/y, make: (m) => document.createTextNode(m[1]) },
  { re: /``([^`]+?)``|`([^`\n]+?)`/y, make: (m) => el("code", "md-code", m[1] ?? m[2]) },
  { re: /<t:(-?\d{1,13})(?::([tTdDfFR]))?>/y, make: (m) => timestamp(Number(m[1]), m[2]) },
  {
    re: /<@!?(\d{5,25})>/y,
    make: (m, names) => el("span", "md-mention", `@${names.users.get(m[1]) ?? "unknown-user"}`),
  },
  {
    re: /<#(\d{5,25})>/y,
    make: (m, names) => el("span", "md-mention", `#${names.channels.get(m[1]) ?? "unknown-channel"}`),
  },
  {
    re: /<@&(\d{5,25})>/y,
    make: (m, names) => el("span", "md-mention", `@${names.roles.get(m[1]) ?? "unknown-role"}`),
  },
  { re: /<a?:(\w{1,32}):\d{5,25}>/y, make: (m) => document.createTextNode(`:${m[1]}:`) },
  {
    re: /\[([^\]\n]{1,256})\]\(<?(https?:\/\/[^\s)>]+)>?(?:\s+"[^"]*")?\)/y,
    make: (m, names) => {
      const href = safeHttpUrl(m[2]);
      return href ? link(href, [...inline(m[1], names).childNodes]) : document.createTextNode(m[0]);
    },
  },
  {
    re: /<(https?:\/\/[^\s>]+)>/y,
    make: (m) => {
      const href = safeHttpUrl(m[1]);
      return href ? link(href, [document.createTextNode(m[1])]) : document.createTextNode(m[0]);
    },
  },
  {
    re: /https?:\/\/[^\s<]+[^\s<.,:;"')\]!?]/y,
    make: (m) => {
      const href = safeHttpUrl(m[0]);
      return href ? link(href, [document.createTextNode(m[0])]) : document.createTextNode(m[0]);
    },
  },
  { re: /\*\*\*(?=\S)([\s\S]+?)\*\*\*(?!\*)/y, wrap: ["strong", "em"] },
  { re: /\*\*(?=\S)([\s\S]+?)\*\*(?!\*)/y, wrap: ["strong"] },
  { re: /__(?=\S)([\s\S]+?)__(?!_)/y, wrap: ["u"] },
  { re: /\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)|\*(?=[^\s*])([^*])\*(?!\*)/y, wrap: ["em"] },
  { re: /_(?=\S)([\s\S]*?\S)_(?![A-Za-z0-9_])/y, wrap: ["em"], wordStart: true },
  { re: /~~(?=\S)([\s\S]+?)~~/y, wrap: ["s"] },
  { re: /\|\|([\s\S]+?)\|\|/y, wrap: ["span"], className: "md-spoiler" },
];

/** Inline markdown of one block of text, as a fragment. */
export function inline(text, names) {
  const out = document.createDocumentFragment();
  let buffer = "";
  const flush = () => {
    if (buffer) out.append(document.createTextNode(buffer));
    buffer = "";
  };
  let i = 0;
  while (i < text.length) {
    let matched = false;
    for (const rule of INLINE_RULES) {
      // `_italic_` opens only at a word start, as in snake_case names it must not.
      if (rule.wordStart && i > 0 && /[A-Za-z0-9]/.test(text[i - 1])) continue;
      rule.re.lastIndex = i;
      const m = rule.re.exec(text);
      if (!m) continue;
      flush();
      if (rule.wrap) {
        const innerText = m[1] ?? m[2] ?? "";
        let node = inline(innerText, names);
        for (const tag of [...rule.wrap].reverse()) {
          const wrapper = el(tag, rule.className);
          wrapper.append(node);
          node = wrapper;
        }
        if (rule.className === "md-spoiler") {
          node.tabIndex = 0;
          node.addEventListener("click", () => node.classList.add("revealed"));
        }
        out.append(node);
      } else {
        out.append(rule.make(m, names));
      }
      i += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      buffer += text[i];
      i += 1;
    }
  }
  flush();
  return out;
}

// ---- blocks --------------------------------------------------------------------------------

/**
 * Full markdown: code blocks, quotes, headings, lists and subtext, then inline rules inside.
 * @param {string} text
 * @param {Names} names
 */
export function renderMarkdown(text, names) {
  const out = document.createDocumentFragment();
  const parts = text.split(/```/);
  parts.forEach((part, index) => {
    if (index % 2 === 1 && index < parts.length - 1) {
      const newline = part.indexOf("\n");
      const lang = newline > 0 ? part.slice(0, newline).trim() : "";
      const body = newline >= 0 && /^[\w+-]*$/.test(lang) ? part.slice(newline + 1) : part;
      const pre = el("pre", "md-pre");
      pre.append(el("code", undefined, body.replace(/\n$/, "")));
      out.append(pre);
      return;
    }
    const source = index % 2 === 1 ? "```" + part : part;
    out.append(blocks(source, names));
  });
  return out;
}

function blocks(text, names) {
  const out = document.createDocumentFragment();
  const lines = text.split("\n");
  let paragraph = [];
  let quote = [];
  const flushParagraph = () => {
    if (paragraph.length === 0) return;
    const p = el("div", "md-p");
    p.append(inline(paragraph.join("\n"), names));
    out.append(p);
    paragraph = [];
  };
  const flushQuote = () => {
    if (quote.length === 0) return;
    const q = el("blockquote", "md-quote");
    q.append(blocks(quote.join("\n"), names));
    out.append(q);
    quote = [];
  };
  for (const line of lines) {
    const quoted = /^>\s?(.*)$/.exec(line);
    if (quoted && !line.startsWith(">>>")) {
      flushParagraph();
      quote.push(quoted[1]);
      continue;
    }
    flushQuote();
    const heading = /^(#{1,3})\s+(.+)$/.exec(line);
    const subtext = /^-#\s+(.+)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.+)$/.exec(line);
    if (heading) {
      flushParagraph();
      const h = el(`h${heading[1].length + 2}`, "md-heading");
      h.append(inline(heading[2], names));
      out.append(h);
    } else if (subtext) {
      flushParagraph();
      const small = el("div", "md-subtext");
      small.append(inline(subtext[1], names));
      out.append(small);
    } else if (bullet) {
      flushParagraph();
      const item = el("div", "md-li");
      item.append(el("span", "md-bullet", "•"), inline(bullet[1], names));
      out.append(item);
    } else {
      paragraph.push(line);
    }
  }
  flushParagraph();
  flushQuote();
  return out;
}

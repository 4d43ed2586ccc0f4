// Slash commands as text, without the DOM: the commands a user can run, which of them match what is
// typed (best first), and a typed or pasted line such as `/search item:Rifle | Finish max_price:120`
// read into a command and its option values, as Discord's own client reads it. The page and the
// node tests import this one module.

export const OPTION_TYPES = {
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
const T = OPTION_TYPES;

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
 * The commands matching what follows the "/", best first: the command itself, then commands whose
 * name starts with the text (`/he` → `/help`), then those with a later word starting with it
 * (`/list` → `/watch list`), then any containing it. Ties keep the given (alphabetical) order.
 */
export function rankCommands(typed, leaves) {
  const text = typed.trim().toLowerCase().replace(/\s+/g, " ");
  const rank = (path) => {
    if (path === text) return 0;
    if (path.startsWith(text)) return 1;
    if (path.split(" ").some((word) => word.startsWith(text))) return 2;
    if (text.length > 1 && path.includes(text)) return 3;
    return undefined;
  };
  return leaves
    .map((leaf, index) => ({ leaf, index, rank: rank(leaf.path) }))
    .filter((r) => r.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((r) => r.leaf);
}

/** The command a line names: the longest path that the line starts with, followed by a space or nothing. */
export function commandOfLine(text, leaves) {
  if (!text.startsWith("/")) return undefined;
  const rest = text.slice(1).replace(/^\s+/, "");
  const lower = rest.toLowerCase();
  let best;
  for (const leaf of leaves) {
    const words = leaf.path.split(" ");
    const pattern = new RegExp(`^${words.map(escapeRegExp).join("\\s+")}(?=\\s|$)`);
    const found = pattern.exec(lower);
    if (found && (best === undefined || found[0].length > best.length)) {
      best = { leaf, length: found[0].length };
    }
  }
  return best && { leaf: best.leaf, tail: rest.slice(best.length) };
}

const QUOTES = { '"': '"', "'": "'", "“": "”", "‘": "’" };

/**
 * Reads `/command sub option:value option2:value with spaces` into the command and its values, as
 * the fields of the composer hold them (choices by value, users, channels and roles by id).
 * A value runs to the next ` name:` of one of the command's options, so values may hold spaces and
 * colons (`quiet_hours:22:00-07:00`); a quoted value may hold anything. `refs` lists the users,
 * channels and roles the page knows, for `user:@alice` or `channel:#deals`.
 *
 * @returns {{ ok: true, leaf: object, values: Record<string, string>, missing: string[] }
 *   | { ok: false, error: string, leaf?: object }}
 */
export function parseCommandLine(text, leaves, refs = {}) {
  const line = text.trim();
  if (!line.startsWith("/")) return { ok: false, error: "A command starts with /." };
  const found = commandOfLine(line, leaves);
  if (!found) {
    const name = line.slice(1).split(/\s+/)[0] ?? "";
    return { ok: false, error: `No command matches /${name}.` };
  }
  const { leaf, tail } = found;
  const byName = new Map(leaf.options.map((o) => [o.name, o]));
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const nextOption = names.length > 0 ? new RegExp(`\\s+(?:${names.join("|")}):`, "i") : undefined;
  const values = {};
  let pos = 0;
  for (;;) {
    while (pos < tail.length && /\s/.test(tail[pos])) pos += 1;
    if (pos >= tail.length) break;
    const head = /^([\w-]+):/.exec(tail.slice(pos));
    const option = head && byName.get(head[1].toLowerCase());
    if (!head || !option) {
      const word = tail.slice(pos).split(/\s+/)[0];
      if (!head && byName.has(word.toLowerCase())) {
        return { ok: false, leaf, error: `“${word}” needs a value: ${word.toLowerCase()}:…` };
      }
      const known = leaf.options.map((o) => o.name).join(", ") || "none";
      return {
        ok: false,
        leaf,
        error: `/${leaf.path} has no option “${head ? head[1] : word}” (its options: ${known}).`,
      };
    }
    if (option.name in values) {
      return { ok: false, leaf, error: `“${option.name}” is given twice.` };
    }
    pos += head[0].length;
    let raw;
    const close = QUOTES[tail[pos]];
    const end = close === undefined ? -1 : tail.indexOf(close, pos + 1);
    if (close !== undefined && end > pos && (end + 1 === tail.length || /\s/.test(tail[end + 1]))) {
      raw = tail.slice(pos + 1, end);
      pos = end + 1;
    } else {
      const rest = tail.slice(pos);
      const next = nextOption?.exec(rest);
      raw = (next ? rest.slice(0, next.index) : rest).trim();
      pos += next ? next.index : rest.length;
    }
    if (raw === "") return { ok: false, leaf, error: `“${option.name}” has no value after the colon.` };
    const value = resolveValue(option, raw, refs);
    if (!value.ok) return { ok: false, leaf, error: value.error };
    values[option.name] = value.value;
  }
  const missing = leaf.options.filter((o) => o.required && !(o.name in values)).map((o) => o.name);
  return { ok: true, leaf, values, missing };
}

/** What is wrong with the values typed so far, as the client says it before sending; undefined when nothing. */
export function problemWith(options, values) {
  for (const option of options) {
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
}

/** One typed value as the composer's field holds it, or why it cannot be one. */
function resolveValue(option, raw, refs) {
  const ok = (value) => ({ ok: true, value });
  const fail = (why) => ({ ok: false, error: `“${option.name}”: ${why}` });
  const lower = raw.toLowerCase();
  if (option.choices?.length > 0) {
    const choice =
      option.choices.find((c) => c.name.toLowerCase() === lower) ??
      option.choices.find((c) => String(c.value).toLowerCase() === lower);
    if (choice) return ok(String(choice.value));
    return fail(`choose one of ${option.choices.map((c) => c.name).join(", ")}.`);
  }
  switch (option.type) {
    case T.BOOLEAN:
      if (["true", "yes"].includes(lower)) return ok("true");
      if (["false", "no"].includes(lower)) return ok("false");
      return fail("True or False.");
    case T.USER:
    case T.MENTIONABLE: {
      const user = findNamed(refs.users, raw, /^<@!?(\d+)>$/, "@", (u) => [u.username, u.displayName]);
      if (user) return ok(user.id);
      if (option.type === T.MENTIONABLE) {
        const role = findNamed(refs.roles, raw, /^<@&(\d+)>$/, "@", (r) => [r.name]);
        if (role) return ok(role.id);
      }
      return fail(`no user “${raw}” here.`);
    }
    case T.ROLE: {
      const role = findNamed(refs.roles, raw, /^<@&(\d+)>$/, "@", (r) => [r.name]);
      return role ? ok(role.id) : fail(`no role “${raw}” here.`);
    }
    case T.CHANNEL: {
      const channel = findNamed(refs.channels, raw, /^<#(\d+)>$/, "#", (c) => [c.name]);
      return channel ? ok(channel.id) : fail(`no channel “${raw}” here.`);
    }
    case T.ATTACHMENT:
      return fail("a file cannot be typed; attach it in the option's box.");
    default:
      return ok(raw);
  }
}

/** A user, channel or role by mention (`<@id>`), by id, or by name with or without its sigil. */
function findNamed(list = [], raw, mention, sigil, namesOf) {
  const id = mention.exec(raw)?.[1] ?? (/^\d+$/.test(raw) ? raw : undefined);
  if (id !== undefined) return list.find((x) => x.id === id);
  const name = (raw.startsWith(sigil) ? raw.slice(1) : raw).toLowerCase();
  return list.find((x) => namesOf(x).some((n) => n?.toLowerCase() === name));
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

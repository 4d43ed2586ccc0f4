// Reading a Dockerfile and its .dockerignore the way the Docker engine does, for the replay in
// docker-build-check.mjs: instructions with continuations joined, stages, ARG/ENV substitution,
// COPY's flags, and the ignore rules.
import path from "node:path";

const KNOWN = new Set([
  "FROM",
  "ARG",
  "ENV",
  "WORKDIR",
  "COPY",
  "RUN",
  "USER",
  "EXPOSE",
  "VOLUME",
  "HEALTHCHECK",
  "CMD",
  "LABEL",
]);

/**
 * @typedef {{ keyword: string, args: string, line: number }} Instruction
 * @typedef {{ name: string, base: string, instructions: Instruction[] }} Stage
 */

/** Instructions in order: comments dropped, continuation lines joined. */
export function parseDockerfile(text) {
  /** @type {Instruction[]} */
  const out = [];
  let buffer = "";
  let startLine = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    if (buffer === "" && (raw.trim() === "" || raw.trimStart().startsWith("#"))) continue;
    if (buffer !== "" && raw.trimStart().startsWith("#")) continue; // comments inside a continued instruction
    if (buffer === "") startLine = i + 1;
    const continued = /\\\s*$/.test(raw);
    buffer += (buffer === "" ? "" : " ") + (continued ? raw.replace(/\\\s*$/, "") : raw).trim();
    if (continued) continue;
    const m = /^(\w+)\s*(.*)$/s.exec(buffer);
    if (!m) throw new Error(`Dockerfile line ${startLine}: cannot parse "${buffer}"`);
    out.push({ keyword: m[1].toUpperCase(), args: m[2], line: startLine });
    buffer = "";
  }
  return out;
}

/** Global ARGs (before the first FROM) and stages. */
export function stagesOf(instructions) {
  /** @type {Record<string, string>} */
  const globalArgs = {};
  /** @type {Stage[]} */
  const stages = [];
  for (const ins of instructions) {
    if (!KNOWN.has(ins.keyword))
      throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} is not handled by this check`);
    if (ins.keyword === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args.trim());
      if (!m) throw new Error(`Dockerfile line ${ins.line}: cannot parse FROM ${ins.args}`);
      stages.push({
        name: m[2] ?? String(stages.length),
        base: substitute(m[1], globalArgs),
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (ins.keyword !== "ARG") throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before FROM`);
      const [name, value = ""] = ins.args.trim().split("=");
      globalArgs[name] = value;
    } else {
      stages.at(-1).instructions.push(ins);
    }
  }
  return { globalArgs, stages };
}

export function substitute(text, vars) {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => vars[a ?? b] ?? "");
}

/** ENV K=V K2="V 2" or the legacy ENV K V. */
export function parseEnv(args) {
  /** @type {Record<string, string>} */
  const env = {};
  if (!/^\w+=/.test(args.trim())) {
    const m = /^(\w+)\s+(.*)$/.exec(args.trim());
    if (m) env[m[1]] = m[2];
    return env;
  }
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
    env[m[1]] = m[2].replace(/^"(.*)"$/s, "$1").replace(/^'(.*)'$/s, "$1");
  }
  return env;
}

/** COPY [--from=x] [--chown=y] src... dest, or its JSON form. */
export function parseCopy(args) {
  const flags = {};
  let rest = args.trim();
  for (let m = /^--(\w+)=(\S+)\s+/.exec(rest); m; m = /^--(\w+)=(\S+)\s+/.exec(rest)) {
    flags[m[1]] = m[2];
    rest = rest.slice(m[0].length);
  }
  const parts = rest.startsWith("[") ? JSON.parse(rest) : rest.split(/\s+/);
  if (parts.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
  return { from: flags.from, sources: parts.slice(0, -1), dest: parts.at(-1) };
}

/** .dockerignore as Docker reads it: paths from the context root, `*` within a segment, `**` across, `!` re-includes. */
export function dockerignore(text) {
  const rules = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = path.posix.normalize((negate ? l.slice(1) : l).replace(/^\/+/, ""));
      let re = "";
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === "*" && pattern[i + 1] === "*") {
          re += ".*";
          i++;
          if (pattern[i + 1] === "/") i++;
        } else if (c === "*") re += "[^/]*";
        else if (c === "?") re += "[^/]";
        else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return { negate, re: new RegExp(`^${re}$`) };
    });
  /** True when the path (relative to the context, posix) is left out of the build context. */
  return (rel) => {
    const prefixes = rel.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"));
    let excluded = false;
    for (const rule of rules) {
      if (prefixes.some((p) => rule.re.test(p))) excluded = !rule.negate;
    }
    return excluded;
  };
}

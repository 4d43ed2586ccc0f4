// Lists the test files that hold a fixed time, in their own text or in a test module they import
// (fixtures, support): the files whose verdict could change with the date. `.ci/run` runs them
// with the clock a year ahead (Debian's faketime), so a fixture time the real clock will soon pass
// fails in CI first instead of on that day. Usage: node scripts/fixed-time-tests.mjs [--why]
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TEST = path.join(ROOT, "test");
/** An ISO date (2026-11-30, with or without a time), Date.UTC(...) or new Date(2026, ...). */
const FIXED_TIME = /\b20\d\d-[01]\d-[0-3]\d(?!\d)|Date\.UTC\(|new Date\(\s*20\d\d\s*,/;
const LOCAL_IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+\.ts)["']/g;
/** Suites with their own runner and config (not part of `vitest run`). */
const OWN_CONFIG = [path.join(TEST, "soak"), path.join(TEST, "docker")];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

const files = walk(TEST);
const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
const importsOf = (f) =>
  [...text.get(f).matchAll(LOCAL_IMPORT)]
    .map((m) => path.resolve(path.dirname(f), m[1]))
    .filter((p) => text.has(p));

/** Each file that holds a fixed time or imports one that does, with the module that holds it. */
const via = new Map(files.filter((f) => FIXED_TIME.test(text.get(f))).map((f) => [f, f]));
for (let grew = true; grew;) {
  grew = false;
  for (const f of files) {
    if (via.has(f)) continue;
    const dep = importsOf(f).find((d) => via.has(d));
    if (dep !== undefined) {
      via.set(f, via.get(dep));
      grew = true;
    }
  }
}

const why = process.argv.includes("--why");
for (const f of files) {
  if (!f.endsWith(".test.ts") || OWN_CONFIG.some((d) => f.startsWith(d + path.sep))) continue;
  const holder = via.get(f);
  if (holder === undefined) continue;
  const rel = path.relative(ROOT, f);
  console.log(why && holder !== f ? `${rel}\t(via ${path.relative(ROOT, holder)})` : rel);
}

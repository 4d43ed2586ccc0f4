// docs/architecture.md describes the code as it is: every file or folder it names exists, and every
// export it names beside its file ("`createApp` (`src/app.ts`)") is exported there.
import { RULE_FILTERS } from "../../src/watch/filters/registry.ts";
import { filterTable, withFilterTable } from "../../src/watch/filters/table.ts";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, read } from "./sourceGraph.ts";

const DOC = "docs/architecture.md";
const TOPS = ["src/", "commands/", "test/", "bench/", "prisma/", "monitoring/", "docs/", "scripts/"];

/** Backticked tokens that are repo paths (globs and placeholders left out). */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const token = (m[1] as string).replace(/[),.:;]+$/, "");
    if (!TOPS.some((t) => token.startsWith(t)) || /[*{}<>|]/.test(token)) continue;
    out.add(token.replace(/\/$/, ""));
  }
  return [...out];
}

/** The first word of each line of the document's layout block (its first fenced block) that is a path. */
function layoutPaths(text: string): string[] {
  const block = /```\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.split(/\s+/)[0] ?? "")
    .filter((word) => TOPS.some((t) => word.startsWith(t)) || word.startsWith("monitoring/"))
    .map((word) => word.replace(/\/$/, ""));
}

/** Pairs written as "`name` (`file`)" or "`name()` (`file`)". */
function namedExports(text: string): Array<{ name: string; file: string }> {
  const out: Array<{ name: string; file: string }> = [];
  for (const m of text.matchAll(/`([A-Za-z_$][\w$]*)(?:\(\))?`\s*\(`([^`]+\.(?:ts|js))`/g)) {
    out.push({ name: m[1] as string, file: m[2] as string });
  }
  return out;
}

function exportsName(file: string, name: string): boolean {
  const src = read(file);
  const declared = new RegExp(
    `export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|class|interface|type|enum)\\s+${name}\\b`,
  );
  const listed = new RegExp(`export\\s+(?:type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}`);
  return declared.test(src) || listed.test(src);
}

describe("docs/architecture.md", () => {
  const text = read(DOC);

  it("GIVEN the paths the architecture document names WHEN each is looked up THEN it exists", () => {
    const paths = namedPaths(text);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it("GIVEN the layout block WHEN each folder and file it lists is looked up THEN it exists", () => {
    const paths = layoutPaths(text);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it("GIVEN the folders of src/ WHEN the layout block is read THEN it names every one (the generated client aside)", () => {
    const listed = new Set(layoutPaths(text));
    const folders = fs
      .readdirSync(path.join(ROOT, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "generated")
      .map((e) => `src/${e.name}`);
    expect(folders.filter((f) => !listed.has(f))).toEqual([]);
  });

  it("GIVEN the filter registry WHEN its table is made THEN the document's filter table is that table (npm run docs:filters writes it)", () => {
    const table = filterTable();
    expect(table.split("\n").filter((l) => l.startsWith("| `")).length).toBe(RULE_FILTERS.length);
    expect(withFilterTable(text, table)).toBe(text);
  });

  it("GIVEN the exports the document names beside their file WHEN the file is read THEN it exports them", () => {
    const pairs = namedExports(text);
    expect(pairs.length).toBeGreaterThan(10);
    const missing = pairs.filter(
      ({ name, file }) => !fs.existsSync(path.join(ROOT, file)) || !exportsName(file, name),
    );
    expect(missing).toEqual([]);
  });
});

// The project's own source files and the imports between them, read from the files (no build):
// what the structure tests check the house against.
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCE = /\.(ts|mts|js|mjs)$/;

/** Source files under the given top folders, repo-relative with forward slashes. */
export function sourceFiles(...tops: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "generated" && entry.name !== "node_modules") walk(rel);
      } else if (SOURCE.test(entry.name)) out.push(rel);
    }
  };
  for (const top of tops) walk(top);
  return out.sort();
}

export function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), "utf8");
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;

/** Every module specifier a file names (static and dynamic imports, re-exports). */
export function specifiers(file: string): string[] {
  return [...read(file).matchAll(SPECIFIER)].map((m) => m[1] as string);
}

/** The project files a file imports (relative specifiers resolved; packages left out). */
export function localImports(file: string): string[] {
  return specifiers(file)
    .filter((s) => s.startsWith("."))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

/** Import circles among the files: each strongly connected group of two or more (or a self-import). */
export function circles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((f) => [f, localImports(f).filter((t) => t !== f || true)]));
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const f of files) if (!order.has(f)) visit(f);
  return found;
}

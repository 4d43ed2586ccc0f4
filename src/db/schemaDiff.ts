// Development tool: the SQL Prisma would write to go from one schema.prisma to another, produced
// offline by prisma 6.19's WASM schema engine (dev dependency `prisma6`); used to author
// migrations and by the drift test (docs/decisions/002-offline-migrations.md).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

export interface SchemaDiffOptions {
  /** The starting schema file, or "empty" for a database with nothing in it. */
  from: string | "empty";
  /** The target schema file. */
  to: string;
  /**
   * Any reachable Postgres. The WASM engine opens a connection through the driver adapter
   * although it reads nothing from it; without one it refuses to run.
   */
  serverUrl: string;
}

const HEADER = /^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/;

/** Migration SQL from `from` to `to`, without the `CREATE SCHEMA "public"` header prisma 6 adds. */
export async function diffSchemas(opts: SchemaDiffOptions): Promise<string> {
  const require = createRequire(import.meta.url);
  let cli: string;
  try {
    cli = require.resolve("prisma6/build/index.js");
  } catch {
    throw new Error('schema diffing needs the dev dependency "prisma6" (npm:prisma@6.19.3); run npm install');
  }
  const adapterEntry = import.meta.resolve("@prisma/adapter-pg");
  const dir = await mkdtemp(path.join(os.tmpdir(), "schema-diff-"));
  try {
    const toFile = path.join(dir, "to.prisma");
    await writeFile(toFile, withDatasourceUrl(await readFile(opts.to, "utf8")));
    const fromArgs: string[] = ["--from-empty"];
    if (opts.from !== "empty") {
      const fromFile = path.join(dir, "from.prisma");
      await writeFile(fromFile, withDatasourceUrl(await readFile(opts.from, "utf8")));
      fromArgs.splice(0, 1, "--from-schema-datamodel", fromFile);
    }
    const configFile = path.join(dir, "prisma.config.mjs");
    // Owner-only: the pool settings may carry the server's password.
    await writeFile(configFile, configSource(adapterEntry, poolConfigOf(opts.serverUrl)), { mode: 0o600 });
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          cli,
          "migrate",
          "diff",
          "--config",
          configFile,
          ...fromArgs,
          "--to-schema-datamodel",
          toFile,
          "--script",
        ],
        {
          cwd: dir,
          maxBuffer: 16 * 1024 * 1024,
          // A minimal environment on purpose: PRISMA_SCHEMA_ENGINE_BINARY in particular makes
          // `migrate diff` print nothing and succeed. The query engine path only has to exist.
          env: {
            PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
            PRISMA_HIDE_UPDATE_MESSAGE: "1",
            CHECKPOINT_DISABLE: "1",
          },
        },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`prisma migrate diff failed: ${stderr.trim() || err.message}`));
          else resolve(stdout);
        },
      );
    });
    return out.replace(HEADER, "");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** prisma 6 insists on a datasource url; the value is never used for a diff of two files. */
function withDatasourceUrl(schema: string): string {
  return schema.replace(/datasource\s+(\w+)\s*\{([^}]*)\}/, (_m, name: string, body: string) => {
    const kept = body
      .split("\n")
      .filter((line) => !/^\s*(url|directUrl|shadowDatabaseUrl)\s*=/.test(line))
      .join("\n");
    return `datasource ${name} {${kept}\n  url = "postgresql://unused@127.0.0.1/unused"\n}`;
  });
}

function poolConfigOf(url: string): Record<string, string | number> {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || "postgres"),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    database: decodeURIComponent(u.pathname.slice(1) || "postgres"),
    // The engine leaves its connection idle; a short idle timeout lets the CLI exit at once.
    idleTimeoutMillis: 50,
  };
}

function configSource(adapterEntry: string, pool: Record<string, string | number>): string {
  return `import { PrismaPg } from ${JSON.stringify(adapterEntry)};
export default {
  engine: "js",
  experimental: { adapter: true },
  schema: "to.prisma",
  adapter: async () => new PrismaPg(${JSON.stringify(pool)}),
};
`;
}

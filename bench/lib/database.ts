// The benchmarks' Postgres: the embedded server (as a user's machine runs it, fsync on) in a temporary
// folder by default, or the server at BENCH_DATABASE_URL; every scenario gets a fresh migrated database.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { createPrismaClient, type Database } from "../../src/db/index.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/log.ts";

export interface BenchDatabase extends Database {
  readonly name: string;
}

export interface BenchPostgres {
  /** "embedded Postgres (fsync on)" or "Postgres server (BENCH_DATABASE_URL)". */
  readonly description: string;
  /** A new database migrated from the template; closing it drops it. */
  create(opts?: { poolMax?: number }): Promise<BenchDatabase>;
  close(): Promise<void>;
}

const quiet = createLogger({ level: "silent" });

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

export async function startBenchPostgres(serverUrl = process.env.BENCH_DATABASE_URL): Promise<BenchPostgres> {
  let embedded: EmbeddedPostgres | undefined;
  let dataDir: string | undefined;
  let adminUrl: string;
  if (serverUrl !== undefined && serverUrl !== "") {
    adminUrl = serverUrl;
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), "bench-pg-"));
    // Not ephemeral: fsync and synchronous commits stay on, as on a user's machine.
    embedded = await startEmbeddedPostgres({ baseDir: dataDir, logger: quiet, database: "postgres" });
    adminUrl = embedded.urlFor("postgres");
  }
  const run = `bench_${process.pid}_${randomBytes(3).toString("hex")}`;
  const template = `${run}_template`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    client.on("error", () => undefined);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${template}"`);
  await migrate(withDatabase(adminUrl, template), quiet);
  let counter = 0;
  const created = new Set<string>();

  return {
    description: embedded ? "embedded Postgres (fsync on)" : "Postgres server (BENCH_DATABASE_URL)",
    async create(opts = {}) {
      counter += 1;
      const name = `${run}_${counter}`;
      await admin(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      created.add(name);
      const url = withDatabase(adminUrl, name);
      const { prisma, pool } = createPrismaClient(url, quiet, opts.poolMax ?? 10);
      let closing: Promise<void> | undefined;
      return {
        name,
        url,
        prisma,
        pool,
        embedded: false,
        close() {
          closing ??= (async () => {
            await prisma.$disconnect().catch(() => undefined);
            await pool.end().catch(() => undefined);
            await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
            created.delete(name);
          })();
          return closing;
        },
      };
    },
    async close() {
      for (const name of created)
        await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).catch(() => undefined);
      await embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

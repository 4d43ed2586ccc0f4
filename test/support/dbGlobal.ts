// Once per test run: a Postgres server (TEST_DATABASE_URL's, or an embedded one in a temp folder)
// and a migrated template database; workers copy the template (test/support/db.ts).
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../src/db/embedded.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/log.ts";

/** Environment handed to forked workers (they inherit the environment set here). */
export const ENV_SERVER_URL = "TEST_DB_SERVER_URL";
export const ENV_TEMPLATE = "TEST_DB_TEMPLATE";
export const ENV_RUN_PREFIX = "TEST_DB_RUN_PREFIX";

export async function globalDatabaseSetup(): Promise<() => Promise<void>> {
  const logger = createLogger({ level: process.env.TEST_DB_LOG_LEVEL ?? "warn", name: "test-db" });
  // Unique per run so parallel runs against one server never touch each other's databases.
  const runPrefix = `t${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  const template = `${runPrefix}_template`;

  let serverUrl = process.env.TEST_DATABASE_URL;
  let stopServer = async () => {};
  if (serverUrl === undefined || serverUrl === "") {
    const dir = await mkdtemp(path.join(os.tmpdir(), "bot-test-pg-"));
    // Enterable by user postgres when we run as root (the server runs as postgres then).
    await chmod(dir, 0o711);
    const server = await startEmbeddedPostgres({
      baseDir: dir,
      logger,
      ephemeral: true,
      database: "postgres",
    });
    serverUrl = server.urlFor("postgres");
    stopServer = async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }

  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on("error", () => undefined);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(template)}`);
    await migrate(withDatabase(serverUrl, template), logger);
  } catch (err) {
    await admin.end();
    await stopServer();
    throw err;
  }

  process.env[ENV_SERVER_URL] = serverUrl;
  process.env[ENV_TEMPLATE] = template;
  process.env[ENV_RUN_PREFIX] = runPrefix;

  return async () => {
    try {
      // Workers drop their copies; whatever a crashed worker left behind goes here.
      const { rows } = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
        [`${runPrefix}_`],
      );
      for (const { datname } of rows) {
        await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(datname)} WITH (FORCE)`);
      }
    } finally {
      await admin.end();
      await stopServer();
    }
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

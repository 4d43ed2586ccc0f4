// A fresh, migrated database per test file (or per test): a copy of the run's template, dropped on close.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createPrismaClient } from "../../src/db/index.ts";
import type { PrismaClient } from "../../src/generated/prisma/client.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { ENV_RUN_PREFIX, ENV_SERVER_URL, ENV_TEMPLATE, withDatabase } from "./dbGlobal.ts";

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly prisma: PrismaClient;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

export interface EmptyDatabase {
  readonly name: string;
  readonly url: string;
  close(): Promise<void>;
}

let counter = 0;

function settings(): { serverUrl: string; template: string; runPrefix: string } {
  const serverUrl = process.env[ENV_SERVER_URL];
  const template = process.env[ENV_TEMPLATE];
  const runPrefix = process.env[ENV_RUN_PREFIX];
  if (!serverUrl || !template || !runPrefix) {
    throw new Error("test database not prepared: run through vitest (test/support/globalSetup.ts)");
  }
  return { serverUrl, template, runPrefix };
}

/** The test server's admin URL (for tests that need the server itself). */
export function testServerUrl(): string {
  return settings().serverUrl;
}

function newName(runPrefix: string): string {
  counter += 1;
  return `${runPrefix}_${process.pid}_${counter}_${randomBytes(2).toString("hex")}`;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: settings().serverUrl });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}

/** A database with nothing in it (for migrator tests). */
export async function emptyDatabase(): Promise<EmptyDatabase> {
  const { serverUrl, runPrefix } = settings();
  const name = newName(runPrefix);
  await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
  return { name, url: withDatabase(serverUrl, name), close: () => dropDatabase(name) };
}

/** A migrated database of its own, copied from the run's template (fast: a file copy on the server). */
export async function freshDatabase(opts: { logger?: Logger; poolMax?: number } = {}): Promise<TestDatabase> {
  const { serverUrl, template, runPrefix } = settings();
  const name = newName(runPrefix);
  await admin((c) =>
    c.query(`CREATE DATABASE ${c.escapeIdentifier(name)} TEMPLATE ${c.escapeIdentifier(template)}`),
  );
  const url = withDatabase(serverUrl, name);
  const logger = opts.logger ?? createLogger({ level: "silent" });
  const { prisma, pool } = createPrismaClient(url, logger, opts.poolMax ?? 10);
  let closed: Promise<void> | undefined;
  return {
    name,
    url,
    prisma,
    pool,
    close() {
      closed ??= (async () => {
        await prisma.$disconnect();
        await pool.end();
        await dropDatabase(name);
      })();
      return closed;
    },
  };
}

// Opens the database: DATABASE_URL's server or the embedded one, migrated, behind a Prisma client.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { Config } from "../config/index.ts";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../log.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from "./embedded.ts";
import { migrate } from "./migrate.ts";

export type { Db } from "./types.ts";
export { PrismaClient };

export interface Database {
  readonly prisma: PrismaClient;
  /** Connection URL (may contain a password: never log it). */
  readonly url: string;
  readonly embedded: boolean;
  /** The pg pool under Prisma, for LISTEN/NOTIFY or diagnostics. */
  readonly pool: pg.Pool;
  /** Disconnects, and stops the embedded server when this process owns it. Idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  config: Pick<Config, "DATABASE_URL" | "dataDir">;
  logger: Logger;
  /** Pool size (default 10). */
  poolMax?: number;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Embedded server tuning (tests use `ephemeral` to skip fsync). */
  embedded?: Pick<EmbeddedPostgresOptions, "ephemeral" | "port">;
  /**
   * Start the Prisma client's engine (load its query compiler) beside the migrations instead of
   * on the first query (default false): the app's first query is on its way to "running"; the
   * database commands that read with SQL alone (migrate, new-migration, backups) never pay it.
   */
  startEngine?: boolean;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const log = opts.logger.child({ module: "db" });
  let server: EmbeddedPostgres | undefined;
  let url: string;
  if (opts.config.DATABASE_URL !== undefined) {
    url = opts.config.DATABASE_URL;
    log.info({ database: describeUrl(url) }, "using the Postgres server from DATABASE_URL");
  } else {
    server = await startEmbeddedPostgres({
      ...opts.embedded,
      baseDir: opts.config.dataDir,
      logger: opts.logger,
    });
    url = server.url;
    log.info(
      { database: describeUrl(url), dataDir: server.dataDir },
      "using the embedded Postgres (no DATABASE_URL set); data stays in this folder",
    );
  }

  const { prisma, pool } = createPrismaClient(url, log, opts.poolMax ?? 10);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await prisma.$disconnect().catch((err: unknown) => log.warn({ err }, "prisma disconnect failed"));
      await pool.end().catch((err: unknown) => log.warn({ err }, "closing the pool failed"));
      await server?.stop();
    })();
    return closing;
  };
  const [migrated, connected] = await Promise.allSettled([
    (opts.migrate ?? true) ? migrate(url, opts.logger) : Promise.resolve(),
    opts.startEngine === true ? prisma.$connect() : Promise.resolve(),
  ]);
  const failed = [migrated, connected].find((r) => r.status === "rejected");
  if (failed !== undefined) {
    await close().catch(() => undefined);
    throw failed.reason;
  }
  return { prisma, url, embedded: server !== undefined, pool, close };
}

/**
 * A Prisma client over our own pg pool. The pool's `error` listener is what keeps the process
 * alive when Postgres restarts: idle clients error, the pool drops them, later queries reconnect.
 */
export function createPrismaClient(
  url: string,
  logger: Logger,
  poolMax = 10,
): { prisma: PrismaClient; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  pool.on("error", (err) =>
    logger.warn({ err: summarise(err) }, "idle database connection lost; will reconnect"),
  );
  const adapter = new PrismaPg(pool, {
    onConnectionError: (err) => logger.warn({ err: summarise(err) }, "database connection error"),
  });
  return { prisma: new PrismaClient({ adapter }), pool };
}

/** host:port/database and user, never the password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `postgresql://${user}${u.host}${u.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}

function summarise(err: Error): { message: string; code?: string } {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? { message: err.message, code } : { message: err.message };
}

// Applies prisma/migrations with Prisma's own bookkeeping, so `prisma migrate deploy|status`
// run online later agree with what we applied (docs/decisions/002-offline-migrations.md).
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Logger } from "../log.ts";
import { MigrationError } from "./errors.ts";
import { readRenames, type MigrationRename } from "./migrationNames.ts";

/** The advisory lock key Prisma's schema engine takes around migrations. */
export const PRISMA_MIGRATION_LOCK_KEY = 72707369;

/** Prisma's table, from the schema engine's source: identical DDL keeps the two interchangeable. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface LocalMigration {
  name: string;
  sql: string;
  /** Lowercase hex SHA-256 of migration.sql's bytes. */
  checksum: string;
}

export interface MigrateOptions {
  /** Defaults to the project's prisma/migrations, found from this file (not the cwd). */
  migrationsDir?: string;
  /** How long to wait for another migrator's lock before giving up. */
  lockTimeoutMs?: number;
}

export interface MigrateResult {
  applied: string[];
}

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  rolled_back_at: Date | null;
}

/** prisma/migrations of this project, whether running from src/ or a build under dist/. */
export function defaultMigrationsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, "prisma", "migrations");
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new MigrationError("invalid_migrations", "prisma/migrations not found above src/db");
}

export function checksumOf(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Prisma's rule: a checksum still matches when only line endings differ (git may convert them),
 * and old engines wrote hex without zero padding.
 */
export function checksumMatches(sql: string, recorded: string): boolean {
  const variants = [sql, sql.replaceAll("\r\n", "\n"), sql.replaceAll("\n", "\r\n")];
  return variants.some((v) => {
    const digest = createHash("sha256").update(v, "utf8").digest();
    if (digest.toString("hex") === recorded) return true;
    const unpadded = [...digest].map((b) => b.toString(16)).join("");
    return recorded.length !== 64 && unpadded === recorded;
  });
}

/** Migration folders sorted by name, as Prisma sorts them. */
export async function readMigrations(dir: string): Promise<LocalMigration[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new MigrationError("invalid_migrations", `cannot read migrations folder ${dir}`, [], {
      cause: err,
    });
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: LocalMigration[] = [];
  for (const name of names) {
    const file = path.join(dir, name, "migration.sql");
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new MigrationError("invalid_migrations", `migration ${name} has no migration.sql`, [name], {
        cause: err,
      });
    }
    out.push({ name, sql: bytes.toString("utf8"), checksum: checksumOf(bytes) });
  }
  return out;
}

/**
 * Brings the database at `url` up to date. Safe to run from several processes at once: the
 * advisory lock makes the others wait, then find nothing left to do.
 */
export async function migrate(
  url: string,
  logger: Logger,
  opts: MigrateOptions = {},
): Promise<MigrateResult> {
  const log = logger.child({ module: "db.migrate" });
  const dir = opts.migrationsDir ?? defaultMigrationsDir();
  const local = await readMigrations(dir);
  const renames = await readRenames(
    dir,
    local.map((m) => m.name),
  );
  const client = new pg.Client({ connectionString: url, application_name: "migrate" });
  // An error on an idle client (server restart) must not crash the process; the query fails instead.
  client.on("error", (err) => log.warn({ err }, "migration connection failed"));
  await client.connect();
  try {
    await client.query(`SET lock_timeout = ${Math.max(0, Math.trunc(opts.lockTimeoutMs ?? 60_000))}`);
    await client.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATION_LOCK_KEY})`).catch((err: unknown) => {
      if ((err as { code?: string }).code !== "55P03") throw err;
      throw new MigrationError(
        "lock_timeout",
        "another process kept the migration lock too long; try again",
        [],
        {
          cause: err,
        },
      );
    });
    await client.query("SET lock_timeout = 0");
    try {
      return await applyPending(client, local, renames, log);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATION_LOCK_KEY})`).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function readRows(client: pg.Client): Promise<MigrationRow[]> {
  const { rows } = await client.query<MigrationRow>(
    `SELECT id, checksum, finished_at, migration_name, rolled_back_at
       FROM "_prisma_migrations" ORDER BY started_at ASC`,
  );
  return rows;
}

/**
 * A migration applied under a name it has since lost is recorded again under its new name (a copy
 * of its row, checksum included), so it is not applied twice. The old row stays: a previous
 * release still running during a rolling update knows only the old name and must keep finding it.
 */
async function adoptRenames(
  client: pg.Client,
  rows: MigrationRow[],
  renames: readonly MigrationRename[],
  log: Logger,
): Promise<boolean> {
  const live = new Set(rows.filter((r) => r.rolled_back_at === null).map((r) => r.migration_name));
  let adopted = false;
  for (const r of renames) {
    if (!live.has(r.from) || live.has(r.to)) continue;
    await client.query(
      `INSERT INTO "_prisma_migrations"
         (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
       SELECT $1, checksum, finished_at, $3, logs, started_at, applied_steps_count
         FROM "_prisma_migrations"
        WHERE migration_name = $2 AND rolled_back_at IS NULL
        ORDER BY started_at DESC
        LIMIT 1`,
      [randomUUID(), r.from, r.to],
    );
    log.info(
      { from: r.from, to: r.to },
      "migration applied under its former name recorded under its new one",
    );
    adopted = true;
  }
  return adopted;
}

async function applyPending(
  client: pg.Client,
  local: LocalMigration[],
  renames: readonly MigrationRename[],
  log: Logger,
): Promise<MigrateResult> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  let rows = await readRows(client);
  if (await adoptRenames(client, rows, renames, log)) rows = await readRows(client);

  const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed.length > 0) {
    const names = failed.map((r) => r.migration_name);
    throw new MigrationError(
      "failed_migration",
      `migrations failed earlier and block new ones (P3009): ${names.join(", ")}. ` +
        "Fix the database by hand, then mark them rolled back (set rolled_back_at) or applied.",
      names,
    );
  }

  const applied = rows.filter((r) => r.rolled_back_at === null);
  const appliedNames = new Set(applied.map((r) => r.migration_name));
  const byName = new Map(local.map((m) => [m.name, m]));

  const edited = applied.filter((r) => {
    const m = byName.get(r.migration_name);
    return m !== undefined && !checksumMatches(m.sql, r.checksum);
  });
  if (edited.length > 0) {
    const names = edited.map((r) => r.migration_name);
    for (const name of names)
      log.warn({ migration: name }, `The migration \`${name}\` was modified after it was applied.`);
    throw new MigrationError(
      "modified_after_applied",
      `applied migrations were modified afterwards: ${names.join(", ")}. ` +
        "Restore the original files and put the change in a new migration.",
      names,
    );
  }

  const formerNames = new Set(renames.map((r) => r.from));
  const unknown = [...appliedNames].filter((n) => !byName.has(n) && !formerNames.has(n));
  if (unknown.length > 0) {
    // A newer release may have applied them; this code can still run against the older tables.
    log.warn({ migrations: unknown }, "the database has migrations this build does not know");
  }

  const pending = local.filter((m) => !appliedNames.has(m.name));
  const done: string[] = [];
  for (const m of pending) {
    const id = randomUUID();
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, started_at, migration_name, applied_steps_count)
       VALUES ($1, $2, now(), $3, 0)`,
      [id, m.checksum, m.name],
    );
    try {
      // No parameters: node-postgres sends a simple query, so the whole file runs as one implicit
      // transaction, as Prisma runs it.
      await client.query(m.sql);
    } catch (err) {
      const detail = describePgError(err);
      await client
        .query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, detail])
        .catch(() => undefined);
      log.error({ migration: m.name, error: detail }, "migration failed");
      throw new MigrationError("apply_failed", `migration ${m.name} failed (P3018): ${detail}`, [m.name], {
        cause: err,
      });
    }
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    log.info({ migration: m.name }, "migration applied");
    done.push(m.name);
  }
  if (done.length === 0) log.debug({ migrations: local.length }, "database schema is up to date");
  return { applied: done };
}

function describePgError(err: unknown): string {
  if (err instanceof Error) {
    const e = err as Error & { code?: string; position?: string; detail?: string };
    const parts = [e.message];
    if (e.code) parts.push(`Database error code: ${e.code}`);
    if (e.detail) parts.push(`Detail: ${e.detail}`);
    if (e.position) parts.push(`Position: ${e.position}`);
    return parts.join("\n");
  }
  return String(err);
}

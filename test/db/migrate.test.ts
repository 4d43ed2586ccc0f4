import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MigrationError } from "../../src/db/errors.ts";
import {
  defaultMigrationsDir,
  migrate,
  PRISMA_MIGRATION_LOCK_KEY,
  readMigrations,
} from "../../src/db/migrate.ts";
import { createLogger } from "../../src/log.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";

const logger = createLogger({ level: "silent" });

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
  logs: string | null;
}
const rowsOf = (url: string) =>
  query<Row>(url, `SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name`);

const databases: EmptyDatabase[] = [];
const dirs: string[] = [];
async function db(): Promise<EmptyDatabase> {
  const d = await emptyDatabase();
  databases.push(d);
  return d;
}
/** A migrations folder holding copies of the project's migrations plus `extra` ones. */
async function migrationsWith(extra: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-"));
  dirs.push(dir);
  await cp(defaultMigrationsDir(), dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

afterAll(async () => {
  await Promise.all(databases.map((d) => d.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("migrate", () => {
  let fresh: EmptyDatabase;
  let firstRun: { applied: string[] };
  beforeAll(async () => {
    fresh = await db();
    firstRun = await migrate(fresh.url, logger);
  });

  it("GIVEN an empty database WHEN migrated THEN every migration is recorded as Prisma records it, checksum = sha256 of the file", async () => {
    const local = await readMigrations(defaultMigrationsDir());
    expect(local.length).toBeGreaterThan(0);
    expect(firstRun.applied).toEqual(local.map((m) => m.name));
    const rows = await rowsOf(fresh.url);
    expect(rows.map((r) => r.migration_name)).toEqual(local.map((m) => m.name));
    for (const row of rows) {
      const bytes = await readFile(path.join(defaultMigrationsDir(), row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("GIVEN the migrations table Prisma expects THEN its columns match Prisma's DDL", async () => {
    const cols = await query<{ column_name: string; data_type: string; is_nullable: string }>(
      fresh.url,
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(cols.map((c) => `${c.column_name} ${c.data_type} ${c.is_nullable}`)).toEqual([
      "id character varying NO",
      "checksum character varying NO",
      "finished_at timestamp with time zone YES",
      "migration_name character varying NO",
      "logs text YES",
      "rolled_back_at timestamp with time zone YES",
      "started_at timestamp with time zone NO",
      "applied_steps_count integer NO",
    ]);
  });

  it("GIVEN a migrated database WHEN migrated again THEN nothing is applied", async () => {
    expect(await migrate(fresh.url, logger)).toEqual({ applied: [] });
    expect((await rowsOf(fresh.url)).length).toBe(firstRun.applied.length);
  });

  it("GIVEN a migration that fails WHEN migrating THEN the error is logged in its row and later runs refuse until it is resolved", async () => {
    const target = await db();
    const dir = await migrationsWith({
      "29990101000000_broken": "CREATE TABLE ok_part (id int);\nSELECT * FROM no_such_table;\n",
    });
    const failure = await migrate(target.url, logger, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as MigrationError).code).toBe("apply_failed");

    const broken = (await rowsOf(target.url)).find((r) => r.migration_name === "29990101000000_broken");
    expect(broken?.finished_at).toBeNull();
    expect(broken?.logs).toContain("no_such_table");
    // The file ran as one transaction: its first statement was rolled back with the second.
    expect(await query(target.url, "SELECT to_regclass('ok_part') AS t")).toEqual([{ t: null }]);

    const blocked = await migrate(target.url, logger, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(MigrationError);
    expect((blocked as MigrationError).code).toBe("failed_migration");
    expect((blocked as MigrationError).migrations).toEqual(["29990101000000_broken"]);

    // Resolving it the Prisma way (`migrate resolve --rolled-back`) and fixing the file unblocks.
    await query(
      target.url,
      `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1`,
      ["29990101000000_broken"],
    );
    await writeFile(
      path.join(dir, "29990101000000_broken", "migration.sql"),
      "CREATE TABLE ok_part (id int);\n",
    );
    expect(await migrate(target.url, logger, { migrationsDir: dir })).toEqual({
      applied: ["29990101000000_broken"],
    });
  });

  it("GIVEN an applied migration WHEN its file is edited afterwards THEN migrating refuses and names it", async () => {
    const target = await db();
    const dir = await migrationsWith({ "29990101000000_extra": "CREATE TABLE extra_t (id int);\n" });
    await migrate(target.url, logger, { migrationsDir: dir });
    await writeFile(
      path.join(dir, "29990101000000_extra", "migration.sql"),
      "CREATE TABLE extra_t (id bigint);\n",
    );
    const err = await migrate(target.url, logger, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe("modified_after_applied");
    expect((err as MigrationError).migrations).toEqual(["29990101000000_extra"]);
  });

  it("GIVEN an applied migration WHEN only its line endings change THEN it still matches (as in Prisma)", async () => {
    const target = await db();
    const dir = await migrationsWith({ "29990101000000_crlf": "CREATE TABLE crlf_t (id int);\nSELECT 1;\n" });
    await migrate(target.url, logger, { migrationsDir: dir });
    await writeFile(
      path.join(dir, "29990101000000_crlf", "migration.sql"),
      "CREATE TABLE crlf_t (id int);\r\nSELECT 1;\r\n",
    );
    expect(await migrate(target.url, logger, { migrationsDir: dir })).toEqual({ applied: [] });
  });

  it("GIVEN two migrators started at once THEN the advisory lock serialises them and each migration is applied once", async () => {
    const target = await db();
    const results = await Promise.all([migrate(target.url, logger), migrate(target.url, logger)]);
    const applied = results.map((r) => r.applied.length).sort();
    expect(applied[0]).toBe(0);
    expect(applied[1]).toBe(firstRun.applied.length);
    expect((await rowsOf(target.url)).length).toBe(firstRun.applied.length);
  });

  it("GIVEN another session holds Prisma's migration lock WHEN migrating THEN it waits for the lock before touching anything", async () => {
    const target = await db();
    const holder = new pg.Client({ connectionString: target.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATION_LOCK_KEY})`);
      let done = false;
      const running = migrate(target.url, logger).then((r) => {
        done = true;
        return r;
      });
      await vi.waitFor(
        async () => {
          const waiting = await holder.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
               AND query LIKE '%pg_advisory_lock%' AND pid <> pg_backend_pid()`,
          );
          expect(waiting.rowCount).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(done).toBe(false);
      expect((await holder.query("SELECT to_regclass('_prisma_migrations') AS t")).rows).toEqual([
        { t: null },
      ]);
      await holder.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATION_LOCK_KEY})`);
      expect((await running).applied.length).toBe(firstRun.applied.length);
    } finally {
      await holder.end();
    }
  });

  it("GIVEN the lock is held longer than the migrator waits THEN it gives up with a lock_timeout error", async () => {
    const target = await db();
    const holder = new pg.Client({ connectionString: target.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATION_LOCK_KEY})`);
      const err = await migrate(target.url, logger, { lockTimeoutMs: 50 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as MigrationError).code).toBe("lock_timeout");
    } finally {
      await holder.end();
    }
  });

  it("GIVEN the migrations folder is resolved THEN it is the project's prisma/migrations whatever the cwd", () => {
    expect(defaultMigrationsDir()).toBe(path.resolve(import.meta.dirname, "../../prisma/migrations"));
  });
});

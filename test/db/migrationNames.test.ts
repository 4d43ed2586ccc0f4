// Migration names sort in the order they were written, and the recorded renames keep databases
// migrated under the former names working (no re-apply, no checksum failure, old releases unharmed).
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MigrationError } from "../../src/db/errors.ts";
import { defaultMigrationsDir, migrate, readMigrations } from "../../src/db/migrate.ts";
import {
  migrationStamp,
  newMigrationNameProblem,
  readRenames,
  RENAMES_FILE,
} from "../../src/db/migrationNames.ts";
import { createLogger } from "../../src/log.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";
import { compareSchemas, describeSchema } from "./catalog.ts";

const logger = createLogger({ level: "silent" });
const projectDir = defaultMigrationsDir();

async function rowsOf(url: string): Promise<Array<{ migration_name: string; checksum: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

const databases: EmptyDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
async function db(): Promise<EmptyDatabase> {
  const d = await emptyDatabase();
  databases.push(d);
  return d;
}

/** The migrations folder as the previous release shipped it: the former names, no renames file. */
async function previousReleaseDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-old-"));
  dirs.push(dir);
  const local = await readMigrations(projectDir);
  const renames = await readRenames(
    projectDir,
    local.map((m) => m.name),
  );
  const formerName = new Map(renames.map((r) => [r.to, r.from]));
  // Migrations written after the renames were not in that release.
  const lastRenamed =
    renames
      .map((r) => r.to)
      .sort()
      .at(-1) ?? "";
  for (const m of local.filter((x) => x.name <= lastRenamed)) {
    await cp(path.join(projectDir, m.name), path.join(dir, formerName.get(m.name) ?? m.name), {
      recursive: true,
    });
  }
  return dir;
}

describe("migration names", () => {
  it("GIVEN the project's migrations WHEN listed THEN each is stamped with a real UTC time no later than now, so a new one sorts last", async () => {
    const names = (await readMigrations(projectDir)).map((m) => m.name);
    expect(names.length).toBeGreaterThan(10);
    const now = migrationStamp(new Date());
    for (const name of names) {
      const stamp = name.slice(0, 14);
      expect(name, "a 14-digit UTC stamp then a snake_case name").toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(
        migrationStamp(
          new Date(
            `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(8, 10)}:${stamp.slice(10, 12)}:${stamp.slice(12, 14)}Z`,
          ),
        ),
      ).toBe(stamp);
      expect(stamp <= now, `${name} is dated after now (${now})`).toBe(true);
    }
    expect(newMigrationNameProblem(`${now}_next`, names)).toBeUndefined();
  });

  it("GIVEN the renames file WHEN read THEN every new name is a folder, no former name is, and the renamed ones keep their former relative order", async () => {
    const local = (await readMigrations(projectDir)).map((m) => m.name);
    const renames = await readRenames(projectDir, local);
    expect(renames.length).toBeGreaterThan(0);
    const fromOrder = [...renames].sort((a, b) => (a.from < b.from ? -1 : 1)).map((r) => r.to);
    const toOrder = [...renames].sort((a, b) => (a.to < b.to ? -1 : 1)).map((r) => r.to);
    expect(toOrder).toEqual(fromOrder);
    for (const r of renames) {
      expect(local).toContain(r.to);
      expect(local).not.toContain(r.from);
      expect(r.from.slice(15), "a rename changes the stamp only").toBe(r.to.slice(15));
    }
  });

  it("GIVEN a stamp that sorts before or at the newest migration WHEN a new migration is named THEN it is refused with the newest's name", () => {
    const existing = ["20261121000000_init", "20261126122951_rule_filters_json"];
    expect(newMigrationNameProblem("20261126122950_late_clock", existing)).toMatch(
      /20261126122951_rule_filters_json/,
    );
    expect(newMigrationNameProblem("20261126122951_rule_filters_json", existing)).toBeDefined();
    expect(newMigrationNameProblem("20261127190000_next", existing)).toBeUndefined();
    expect(newMigrationNameProblem("20261121000000_first", [])).toBeUndefined();
  });

  it("GIVEN a renames file naming a folder that does not exist, or keeping the former folder, WHEN migrating THEN it refuses before touching the database", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-bad-"));
    dirs.push(dir);
    await cp(projectDir, dir, { recursive: true });
    const names = (await readdir(dir)).filter((n) => /^\d{14}_/.test(n));
    const first = names.sort()[0] ?? "";
    await writeFile(
      path.join(dir, RENAMES_FILE),
      JSON.stringify({ renames: [{ from: first, to: "20991231000000_nowhere", why: "test" }] }),
    );
    const target = await db();
    const err = await migrate(target.url, logger, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe("invalid_migrations");
    expect(await rowsOf(target.url).catch(() => "no table")).toBe("no table");
  });
});

describe("a database migrated under the former names", () => {
  let oldDir: string;
  let upgraded: EmptyDatabase;
  let fresh: EmptyDatabase;
  let upgradeRun: { applied: string[] };

  beforeAll(async () => {
    oldDir = await previousReleaseDir();
    upgraded = await db();
    fresh = await db();
    await migrate(upgraded.url, logger, { migrationsDir: oldDir });
    upgradeRun = await migrate(upgraded.url, logger);
    await migrate(fresh.url, logger);
  });

  it("GIVEN the previous release's migrations applied WHEN this release migrates THEN none of them is applied again (only migrations written since) and every current name is recorded with the file's checksum", async () => {
    const renames = await readRenames(
      projectDir,
      (await readMigrations(projectDir)).map((m) => m.name),
    );
    const lastRenamed =
      renames
        .map((r) => r.to)
        .sort()
        .at(-1) ?? "";
    expect(upgradeRun.applied.filter((name) => name <= lastRenamed)).toEqual([]);
    const rows = await rowsOf(upgraded.url);
    const byName = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    for (const m of await readMigrations(projectDir)) expect(byName.get(m.name), m.name).toBe(m.checksum);
    // Migrating once more finds nothing to adopt or apply.
    expect(await migrate(upgraded.url, logger)).toEqual({ applied: [] });
    expect((await rowsOf(upgraded.url)).length).toBe(rows.length);
  });

  it("GIVEN this release has migrated WHEN the previous release (still running in a rolling update) migrates at its start THEN it finds its own names applied and applies nothing", async () => {
    expect(await migrate(upgraded.url, logger, { migrationsDir: oldDir })).toEqual({ applied: [] });
  });

  it("GIVEN a fresh database and an upgraded one WHEN compared THEN their schemas are the same", async () => {
    const [a, b] = await Promise.all([describeSchema(fresh.url), describeSchema(upgraded.url)]);
    expect(compareSchemas(a, b)).toEqual([]);
  });

  it("GIVEN a migration applied under its former name WHEN its file was edited since THEN migrating refuses and names it", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-edited-"));
    dirs.push(dir);
    await cp(projectDir, dir, { recursive: true });
    const renames = await readRenames(
      projectDir,
      (await readMigrations(projectDir)).map((m) => m.name),
    );
    const last = renames.at(-1);
    expect(last).toBeDefined();
    const file = path.join(dir, last?.to ?? "", "migration.sql");
    await writeFile(file, `${await readFile(file, "utf8")}\n-- edited\n`);
    const target = await db();
    await migrate(target.url, logger, { migrationsDir: oldDir });
    const err = await migrate(target.url, logger, { migrationsDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe("modified_after_applied");
    expect((err as MigrationError).migrations).toEqual([last?.to]);
  });
});

// The rolling-update check: destructive statements are found, a contract-step marker with a note or
// a grandfathered name lets them through, and the project's migrations pass.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { defaultMigrationsDir, readMigrations } from "../../src/db/migrate.ts";
import {
  contractNote,
  destructiveChanges,
  GRANDFATHERED_MIGRATIONS,
  unsafeMigrations,
} from "../../src/db/migrationSafety.ts";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const kinds = (sql: string) => destructiveChanges(sql).map((c) => c.kind);

describe("destructive migration statements", () => {
  it("GIVEN drops and renames of tables and columns WHEN checked THEN each is reported", () => {
    expect(kinds(`DROP TABLE "drafts";`)).toEqual(["drop_table"]);
    expect(kinds(`ALTER TABLE "users" DROP COLUMN "dm_channel_id";`)).toEqual(["drop_column"]);
    expect(kinds(`ALTER TABLE "users" RENAME COLUMN "a" TO "b";`)).toEqual(["rename_column"]);
    expect(kinds(`ALTER TABLE "users" RENAME TO "people";`)).toEqual(["rename_table"]);
    expect(kinds(`DROP TYPE "arm_mode";`)).toEqual(["drop_type"]);
  });

  it("GIVEN a new NOT NULL column WHEN it has no default THEN it is reported, and with a default it is not", () => {
    expect(kinds(`ALTER TABLE "outbox" ADD COLUMN "priority" SMALLINT NOT NULL;`)).toEqual([
      "not_null_without_default",
    ]);
    expect(kinds(`ALTER TABLE "outbox" ADD COLUMN "priority" SMALLINT NOT NULL DEFAULT 20;`)).toEqual([]);
    expect(
      kinds(
        `ALTER TABLE "t" ADD COLUMN "a" INTEGER,\nADD COLUMN "b" INTEGER NOT NULL,\nADD COLUMN "c" TEXT;`,
      ),
    ).toEqual(["not_null_without_default"]);
    expect(kinds(`ALTER TABLE "t" ALTER COLUMN "a" SET NOT NULL;`)).toEqual(["set_not_null"]);
    expect(kinds(`ALTER TABLE "t" ALTER COLUMN "a" SET DATA TYPE JSON USING "a"::json;`)).toEqual([
      "change_type",
    ]);
  });

  it("GIVEN additive or loosening statements, comments and strings WHEN checked THEN nothing is reported", () => {
    const sql = `
      -- DROP TABLE "users"; (a comment)
      CREATE TABLE "x" ("id" SERIAL NOT NULL, "note" TEXT NOT NULL, CONSTRAINT "x_pkey" PRIMARY KEY ("id"));
      ALTER TABLE "x" ADD CONSTRAINT "x_fk" FOREIGN KEY ("id") REFERENCES "users"("id") ON DELETE CASCADE;
      ALTER TABLE "x" ALTER COLUMN "note" DROP NOT NULL, ALTER COLUMN "note" SET DEFAULT 'DROP TABLE y';
      ALTER TABLE "x" DROP CONSTRAINT "x_fk";
      DROP INDEX "outbox_status_next_attempt_at_idx";
      CREATE INDEX "x_idx" ON "x"("note");
      ALTER TYPE "alert_kind" ADD VALUE 'reversal';
    `;
    expect(destructiveChanges(sql)).toEqual([]);
  });

  it("GIVEN a destructive migration WHEN it carries a contract-step marker with a note THEN it passes, and without a note it does not", () => {
    const drop = `ALTER TABLE "users" DROP COLUMN "legacy";`;
    const marked = `-- contract-step: legacy unused since the release that added its successor\n${drop}`;
    expect(contractNote(marked)).toMatch(/legacy unused/);
    expect(unsafeMigrations([{ name: "20261201000000_drop_legacy", sql: marked }])).toEqual([]);
    const bare = `-- contract-step:\n${drop}`;
    expect(contractNote(bare)).toBeUndefined();
    expect(unsafeMigrations([{ name: "20261201000000_drop_legacy", sql: bare }])).toEqual([
      {
        migration: "20261201000000_drop_legacy",
        changes: [{ kind: "drop_column", statement: `ALTER TABLE "users" DROP COLUMN "legacy"` }],
      },
    ]);
  });
});

describe("the project's migrations", () => {
  it("GIVEN every migration in prisma/migrations WHEN checked THEN none breaks the previous release, and each grandfathered one exists and really needed it", async () => {
    const migrations = await readMigrations(defaultMigrationsDir());
    expect(unsafeMigrations(migrations)).toEqual([]);
    for (const name of GRANDFATHERED_MIGRATIONS.keys()) {
      const m = migrations.find((x) => x.name === name);
      expect(m, `${name} is grandfathered but is not a migration`).toBeDefined();
      expect(destructiveChanges(m?.sql ?? ""), `${name} need not be grandfathered`).not.toEqual([]);
    }
  });

  it("GIVEN a new migration dropping a column without a marker WHEN npm run db:check-migrations runs THEN it exits 1 and names the migration", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-check-"));
    dirs.push(dir);
    await cp(defaultMigrationsDir(), dir, { recursive: true });
    await mkdir(path.join(dir, "20991231000000_drop_dm_channel"));
    await writeFile(
      path.join(dir, "20991231000000_drop_dm_channel", "migration.sql"),
      `ALTER TABLE "users" DROP COLUMN "dm_channel_id";\n`,
    );
    const err = await run("npx", ["tsx", "src/db/checkMigrations.ts", dir], { cwd: REPO }).catch(
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(err).toMatchObject({ code: 1 });
    expect((err as { stderr: string }).stderr).toMatch(/20991231000000_drop_dm_channel: drop_column/);
    const ok = await run("npx", ["tsx", "src/db/checkMigrations.ts"], { cwd: REPO });
    expect(ok.stdout).toMatch(/none breaks the previous release/);
  });
});

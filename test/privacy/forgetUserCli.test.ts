// `npm run db:forget-user -- <discord id>`: the operator's way to answer a deletion request by mail.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { ownedRows, traces } from "./catalogue.ts";
import { seedEverything } from "./fixtures.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "src/privacy/cli.ts");

let db: TestDatabase;
let cwd: string;

beforeAll(async () => {
  db = await freshDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), "forget-user-"));
});

afterAll(async () => {
  await db?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

/** Runs `src/privacy/cli.ts` in a child with only the given environment (no .env: cwd is a temp folder). */
function cli(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), CLI, ...args],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          LOG_LEVEL: "info",
          DATABASE_URL: db.url,
          DATA_DIR: cwd,
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe("npm run db:forget-user", () => {
  it("GIVEN the package scripts WHEN read THEN db:forget-user runs the privacy feature's tool", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["db:forget-user"]).toBe("tsx src/privacy/cli.ts");
  });

  it("GIVEN a user asking by mail WHEN the operator runs it with their Discord id THEN they are in no table, another user is untouched, and a second run says there is nothing left", async () => {
    const victim = await seedEverything(db.prisma, {
      discordId: "812345678901236001",
      platformId: "42420000006001",
      tag: "mail",
      armed: "live",
    });
    const other = await seedEverything(db.prisma, {
      discordId: "812345678901236002",
      platformId: "42420000006002",
      tag: "stays",
    });
    const othersBefore = await ownedRows(db.pool, other);

    const first = await cli([victim.discordId]);
    expect(first.code).toBe(0);
    expect(first.output).toContain("user forgotten");
    expect(first.output).not.toContain("sealed-mail-secret");
    expect(await traces(db.pool, victim)).toEqual([]);
    expect(await ownedRows(db.pool, other)).toEqual(othersBefore);

    const again = await cli([victim.discordId]);
    expect(again.code).toBe(0);
    expect(again.output).toContain("nothing is stored about this user");
  }, 60_000);

  it("GIVEN no id or something that is not a Discord id WHEN run THEN it stops with the usage and erases nothing", async () => {
    const users = await db.prisma.user.count();
    for (const args of [[], ["alice"]]) {
      const run = await cli(args);
      expect(run.code).toBe(2);
      expect(run.output).toContain("usage: npm run db:forget-user -- <discord user id");
    }
    expect(await db.prisma.user.count()).toBe(users);
  }, 60_000);
});

import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { describeUrl, openDatabase } from "../../src/db/index.ts";
import { createLogger } from "../../src/log.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";

const databases: EmptyDatabase[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.close()));
});

describe("openDatabase with DATABASE_URL", () => {
  it("GIVEN a server URL WHEN opened THEN migrations are applied, the log names the server without its password, and close() is idempotent", async () => {
    const target = await emptyDatabase();
    databases.push(target);
    const lines: string[] = [];
    const logger = createLogger(
      { level: "info" },
      new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const db = await openDatabase({
      config: { DATABASE_URL: target.url, dataDir: "/nonexistent" },
      logger,
      poolMax: 2,
    });
    expect(db.embedded).toBe(false);
    expect(await db.prisma.watchRule.count()).toBe(0);
    const log = lines.join("");
    expect(log).toContain("using the Postgres server from DATABASE_URL");
    const password = new URL(target.url).password;
    if (password) expect(log).not.toContain(password);
    await db.close();
    await db.close();
  });

  it("GIVEN URLs with credentials THEN the description keeps host, port, database and user but never the password", () => {
    expect(describeUrl("postgresql://bot:s3cr%21t@db.internal:6543/market?sslmode=require")).toBe(
      "postgresql://bot@db.internal:6543/market",
    );
    expect(describeUrl("not a url")).toBe("(unparsable URL)");
  });
});

// Metrics read from the database at scrape time: whether it answers, and the operator's inventory
// (rules, users, automatic actions and money committed), against a real Postgres.
import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readInventory } from "../../src/db/repos/inventory.ts";
import { ensureUser } from "../../src/db/repos/users.ts";
import { createLogger } from "../../src/log.ts";
import { registerDatabaseMetrics } from "../../src/metricsDatabase.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { parseMetrics, valueOf } from "./support.ts";

const logger = createLogger({ level: "silent" });
let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

async function scrape(registry: Registry) {
  return parseMetrics(await registry.metrics());
}

describe("database metrics", () => {
  it("GIVEN a database that answers WHEN scraped THEN database_up is 1, and GIVEN one that does not THEN it is 0 within the probe's timeout", async () => {
    const up = new Registry();
    // A generous timeout here: this half checks an answering database reads as up, and the
    // client's first connection alone took over 1 s on a loaded CI machine. The timeout itself is
    // checked by the half below.
    registerDatabaseMetrics({ registry: up, logger, timeoutMs: 10_000, now: Date.now }).watchDatabase(
      () => db.prisma.$queryRaw`SELECT 1`,
    );
    expect(valueOf(await scrape(up), "database_up")).toBe(1);

    // A server that is not there: nothing listens on port 1 of loopback.
    const gone = new pg.Pool({ connectionString: "postgresql://postgres@127.0.0.1:1/none", max: 1 });
    gone.on("error", () => undefined);
    try {
      const down = new Registry();
      registerDatabaseMetrics({ registry: down, logger, timeoutMs: 1_000, now: Date.now }).watchDatabase(() =>
        gone.query("SELECT 1"),
      );
      const started = Date.now();
      expect(valueOf(await scrape(down), "database_up")).toBe(0);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await gone.end();
    }
  });

  it("GIVEN rules, users, automatic actions and purchases WHEN scraped THEN the inventory gauges count them, money in dollars, old and released ones left out", async () => {
    const alice = await ensureUser(db.prisma, "inventory-alice");
    const bob = await ensureUser(db.prisma, "inventory-bob");
    await db.prisma.user.update({
      where: { id: alice.id },
      data: { status: "active", encryptedKey: "sealed", linkedAt: new Date() },
    });
    for (const [i, armMode] of ([null, null, "live"] as const).entries()) {
      await db.prisma.watchRule.create({
        data: {
          userId: alice.id,
          name: `rule ${i}`,
          filters: {},
          ...(armMode ? { armMode, armMaxBuys: 1 } : {}),
        },
      });
    }
    await db.prisma.watchRule.create({ data: { userId: bob.id, name: "off", filters: {}, enabled: false } });
    const dayAgo = new Date(Date.now() - 25 * 3_600_000);
    await db.prisma.purchase.createMany({
      data: [
        { userId: alice.id, idempotencyKey: "p1", totalCents: 1_250n, status: "succeeded" },
        { userId: alice.id, idempotencyKey: "p2", totalCents: 300n, status: "succeeded" },
        { userId: alice.id, idempotencyKey: "p3", totalCents: 999n, status: "open" },
        { userId: alice.id, idempotencyKey: "p4", totalCents: 5_000n, status: "released" },
        {
          userId: alice.id,
          idempotencyKey: "p5",
          totalCents: 7_000n,
          status: "succeeded",
          createdAt: dayAgo,
        },
      ],
    });
    await db.prisma.autoAccept.create({ data: { userId: alice.id, tradeId: "t1", outcome: "accepted" } });

    expect(await readInventory(db.prisma)).toMatchObject({
      rules: { enabled: 3, armed: 1 },
      users: 2,
      linkedUsers: 1,
      automaticActions: [{ kind: "auto_accept", outcome: "accepted", count: 1 }],
    });

    const registry = new Registry();
    registerDatabaseMetrics({ registry, logger, timeoutMs: 2_000, now: Date.now }).watchInventory(() =>
      readInventory(db.prisma),
    );
    const samples = await scrape(registry);
    expect(valueOf(samples, "watch_rules", { armed: "false" })).toBe(2);
    expect(valueOf(samples, "watch_rules", { armed: "true" })).toBe(1);
    expect(valueOf(samples, "users", { linked: "true" })).toBe(1);
    expect(valueOf(samples, "users", { linked: "false" })).toBe(1);
    expect(valueOf(samples, "automatic_actions_24h", { kind: "auto_accept", outcome: "accepted" })).toBe(1);
    expect(valueOf(samples, "spend_committed_24h_dollars", { status: "succeeded" })).toBe(15.5);
    expect(valueOf(samples, "spend_committed_24h_dollars", { status: "open" })).toBe(9.99);
    expect(valueOf(samples, "spend_committed_24h_dollars", { status: "released" })).toBeUndefined();
  });
});

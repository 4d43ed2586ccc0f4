import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrismaClient } from "../../../src/db/index.ts";
import {
  alertExists,
  insertAlertsWithOutbox,
  insertAlertWithOutbox,
  listingDedupeKey,
  type NewAlert,
} from "../../../src/db/repos/alerts.ts";
import { createRule, getRule } from "../../../src/db/repos/rules.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import type { PrismaClient } from "../../../src/generated/prisma/client.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { withTransaction } from "../../../src/db/types.ts";
import { writeAlertsFlushedLater } from "../../../src/outbox/store.ts";

let db: TestDatabase;
let second: { prisma: PrismaClient; close(): Promise<void> };
beforeAll(async () => {
  db = await freshDatabase();
  // A second client with its own pool plays the second poller process.
  const { prisma, pool } = createPrismaClient(db.url, createLogger({ level: "silent" }), 4);
  second = { prisma, close: async () => (await prisma.$disconnect(), await pool.end()) };
});
afterAll(async () => {
  await second.close();
  await db.close();
});

let seq = 0;
async function userWithRule() {
  const user = await ensureUser(db.prisma, `${700000000000000000n + BigInt(++seq)}`);
  const rule = await createRule(
    db.prisma,
    { userId: user.id, name: "r", filters: {} },
    { maxRulesPerUser: 5 },
  );
  if (!rule.ok) throw new Error("expected a rule");
  return { user, rule: rule.rule };
}
const alertFor = (userId: number, ruleId: number, listingId: string, v = "1000"): NewAlert => ({
  userId,
  ruleId,
  kind: "listing",
  subjectId: listingId,
  version: v,
  dedupeKey: listingDedupeKey(ruleId, listingId, v),
  destination: "dm",
  payload: { content: `listing ${listingId}`, embeds: [{ title: "Item" }] },
});

describe("alerts repository", () => {
  it("GIVEN a new listing alert WHEN inserted THEN the log row and a pending outbox row exist; the same key again is a no-op", async () => {
    const { user, rule } = await userWithRule();
    const alert = alertFor(user.id, rule.id, "5001");
    expect(alert.dedupeKey).toBe(`listing:${rule.id}:5001:1000`);

    const first = await insertAlertWithOutbox(db.prisma, alert);
    expect(first.inserted).toBe(true);
    const again = await insertAlertWithOutbox(db.prisma, alert);
    expect(again).toEqual({ inserted: false });

    const rows = await db.prisma.outbox.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: "pending",
      destination: "dm",
      payload: alert.payload,
      attempts: 0,
    });
    expect(await alertExists(db.prisma, alert.dedupeKey)).toBe(true);
    expect(await getRule(db.prisma, user.id, rule.id)).toMatchObject({ matchCount: 1 });
  });

  it("GIVEN two pollers WHEN both insert the same dedupe key while the first is still uncommitted THEN exactly one wins and neither errors", async () => {
    const { user, rule } = await userWithRule();
    const alert = alertFor(user.id, rule.id, "6001");

    let releaseFirst: () => void = () => undefined;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstWrote: () => void = () => undefined;
    const firstHasWritten = new Promise<void>((resolve) => (firstWrote = resolve));
    const firstPoller = db.prisma.$transaction(
      async (tx) => {
        const r = await insertAlertWithOutbox(tx, alert);
        firstWrote();
        await firstHolds; // keep the insert uncommitted while the second poller tries
        return r;
      },
      { timeout: 20_000 },
    );
    await firstHasWritten;
    const secondPoller = second.prisma.$transaction((tx) => insertAlertWithOutbox(tx, alert), {
      timeout: 20_000,
    });
    await vi.waitFor(async () => {
      // The second poller is blocked on the first one's unique-index entry.
      const waiting = await db.prisma.$queryRaw<Array<{ n: bigint }>>`
        SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      expect(Number(waiting[0]?.n)).toBe(1);
    });
    releaseFirst();
    const results = await Promise.all([firstPoller, secondPoller]);
    expect(results.map((r) => r.inserted)).toEqual([true, false]);
    expect(await db.prisma.outbox.count({ where: { userId: user.id } })).toBe(1);
  });

  it("GIVEN many pollers racing on many keys THEN each key is queued exactly once", async () => {
    const { user, rule } = await userWithRule();
    const alerts = Array.from({ length: 20 }, (_, i) => alertFor(user.id, rule.id, `${7000 + i}`));
    const clients = [db.prisma, second.prisma];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => insertAlertsWithOutbox(clients[i % 2] ?? db.prisma, alerts)),
    );
    expect(results.flat()).toHaveLength(20);
    expect(new Set(results.flat().map((r) => r.dedupeKey)).size).toBe(20);
    expect(await db.prisma.outbox.count({ where: { userId: user.id } })).toBe(20);
    expect(await getRule(db.prisma, user.id, rule.id)).toMatchObject({ matchCount: 20 });
  });

  it("GIVEN a batch with a repeated key, an old key and a held alert THEN only new alerts are returned and held ones wait", async () => {
    const { user, rule } = await userWithRule();
    const old = alertFor(user.id, rule.id, "8000");
    await insertAlertWithOutbox(db.prisma, old);
    // Quotes, backslashes, braces and non-ASCII survive the array round trip into jsonb.
    const fresh = {
      ...alertFor(user.id, rule.id, "8001"),
      payload: { content: 'He said "hi" \\ {x,y} — ✓\nnext' },
    };
    const held: NewAlert = { ...alertFor(user.id, rule.id, "8002"), status: "held" };
    const inserted = await insertAlertsWithOutbox(db.prisma, [old, fresh, fresh, held]);
    expect(inserted.map((r) => r.dedupeKey).sort()).toEqual([fresh.dedupeKey, held.dedupeKey].sort());
    const statuses = await db.prisma.outbox.findMany({
      where: { userId: user.id },
      orderBy: { id: "asc" },
      select: { status: true },
    });
    expect(statuses.map((s) => s.status)).toEqual(["pending", "pending", "held"]);
    const stored = await db.prisma.outbox.findFirst({ where: { alert: { dedupeKey: fresh.dedupeKey } } });
    expect(stored?.payload).toEqual(fresh.payload);
    expect(await insertAlertsWithOutbox(db.prisma, [])).toEqual([]);
  });

  it("GIVEN an alert without a rule (a trade update) THEN it is queued with no rule and a channel destination", async () => {
    const { user } = await userWithRule();
    const r = await insertAlertWithOutbox(db.prisma, {
      userId: user.id,
      kind: "trade",
      subjectId: "42",
      version: "accepted",
      dedupeKey: `trade:${user.id}:42:accepted`,
      destination: "channel",
      channelId: "333333333333333333",
      payload: { content: "trade accepted" },
    });
    expect(r.inserted).toBe(true);
    const log = await db.prisma.alertLog.findUnique({ where: { dedupeKey: `trade:${user.id}:42:accepted` } });
    expect(log).toMatchObject({ ruleId: null, kind: "trade" });
  });

  it("GIVEN alerts written with their commit's flush left to the next flushed commit WHEN the statement runs THEN they are written, and the relaxed commit is that statement's alone: the connection's next statement commits flushed as before", async () => {
    const { user, rule } = await userWithRule();
    const { prisma, pool } = createPrismaClient(db.url, createLogger({ level: "silent" }), 1);
    try {
      const setting = async () =>
        ((await prisma.$queryRaw<{ synchronous_commit: string }[]>`SHOW synchronous_commit`)[0] ?? {})
          .synchronous_commit;
      // Test clusters may run with synchronous_commit off: the session asks for flushed commits.
      await prisma.$executeRaw`SET synchronous_commit = on`;
      const written = await insertAlertsWithOutbox(prisma, [alertFor(user.id, rule.id, "5102")], {
        flushLater: true,
      });
      expect(written).toHaveLength(1);
      // One connection in the pool: the same session that ran the statement answers.
      expect(await setting()).toBe("on");
      expect(await alertExists(prisma, listingDedupeKey(rule.id, "5102", "1000"))).toBe(true);
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
  });

  it("GIVEN a transaction WHEN listing alerts are written flushed later inside it THEN it is refused: the whole transaction's commit would be relaxed", async () => {
    const { user, rule } = await userWithRule();
    await expect(withTransaction(db.prisma, (tx) => writeAlertsFlushedLater(tx, []))).rejects.toThrow(
      /inside a transaction/,
    );
    await expect(
      withTransaction(db.prisma, (tx) =>
        insertAlertsWithOutbox(tx, [alertFor(user.id, rule.id, "5103")], { flushLater: true }),
      ),
    ).rejects.toThrow(/inside a transaction/);
    expect(await alertExists(db.prisma, listingDedupeKey(rule.id, "5103", "1000"))).toBe(false);
  });
});

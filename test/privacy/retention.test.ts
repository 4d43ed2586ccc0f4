// Retention: each kind of record is pruned after its configured lifetime, rows still in use never
// are, and the leader does it without being asked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { DEFAULT_RETENTION, pruneExpired, retentionFromConfig } from "../../src/privacy/retention.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startWorld, waitUntil, type World } from "../alerts/engine/world.ts";

let db: TestDatabase;
let userId: number;
let ruleId: number;

beforeAll(async () => {
  db = await freshDatabase();
  const user = await db.prisma.user.create({ data: { discordId: "812345678901235001" } });
  userId = user.id;
  ruleId = (await db.prisma.watchRule.create({ data: { userId, name: "r", filters: {} } })).id;
});

afterAll(async () => {
  await db?.close();
});

let n = 0;
const daysAgo = (d: number) => new Date(Date.now() - d * 24 * 60 * 60_000);

async function alert(createdDaysAgo: number, outbox?: "sent" | "pending", goneDaysAgo?: number) {
  n += 1;
  const row = await db.prisma.alertLog.create({
    data: {
      userId,
      ruleId,
      kind: "listing",
      subjectId: `l${n}`,
      version: "1",
      dedupeKey: `k${n}`,
      createdAt: daysAgo(createdDaysAgo),
      ...(goneDaysAgo === undefined ? {} : { goneAt: daysAgo(goneDaysAgo), goneState: "sold" }),
    },
  });
  const message =
    outbox === undefined
      ? undefined
      : await db.prisma.outbox.create({
          data: {
            alertId: row.id,
            userId,
            destination: "dm",
            payload: {},
            status: outbox,
            createdAt: daysAgo(createdDaysAgo),
          },
        });
  return { alertId: row.id, outboxId: message?.id };
}

async function autoBuy(createdDaysAgo: number, outcome: "bought" | "pending" | "unknown") {
  n += 1;
  return (
    await db.prisma.autoBuy.create({
      data: {
        userId,
        ruleId,
        listingId: `ab${n}`,
        mode: "live",
        itemName: "x",
        priceCents: 100n,
        outcome,
        seenAt: daysAgo(createdDaysAgo),
        createdAt: daysAgo(createdDaysAgo),
      },
    })
  ).id;
}

const alertExists = async (id: bigint) => (await db.prisma.alertLog.count({ where: { id } })) === 1;
const outboxExists = async (id: bigint | undefined) =>
  id !== undefined && (await db.prisma.outbox.count({ where: { id } })) === 1;

describe("pruning records past their retention", () => {
  it("GIVEN records on both sides of each default lifetime WHEN pruned THEN only the expired ones go, and unsent or unsettled ones stay whatever their age", async () => {
    const oldSent = await alert(91, "sent");
    const oldUnsent = await alert(91, "pending");
    const recentSent = await alert(6, "sent");
    const weekOldSent = await alert(8, "sent");
    const oldFate = await alert(31, undefined, 31);
    const recentFate = await alert(10, undefined, 10);
    const guard = await db.prisma.guard.create({
      data: {
        userId,
        kind: "listing",
        subjectId: `g${n}`,
        limitCents: 1n,
        stepCents: 1n,
        maxChangesPerDay: 5,
      },
    });
    const event = (d: number) =>
      db.prisma.guardEvent.create({ data: { guardId: guard.id, userId, kind: "change", at: daysAgo(d) } });
    const oldEvent = await event(31);
    const newEvent = await event(1);
    const settled = await autoBuy(91, "bought");
    const pending = await autoBuy(91, "pending");
    const unknown = await autoBuy(91, "unknown");
    const draft = (id: string, expiredDaysAgo: number) =>
      db.prisma.draft.create({
        data: { id, userId, kind: "k", payload: {}, expiresAt: daysAgo(expiredDaysAgo) },
      });
    await draft("old-draft", 2);
    await draft("new-draft", 0.5);

    const pruned = await pruneExpired(db.prisma, DEFAULT_RETENTION);

    expect(pruned).toMatchObject({ alertLog: 1, fates: 1, guardEvents: 1, autoBuys: 1, drafts: 1 });
    expect(pruned.outbox).toBe(2); // the 91- and 8-day-old sent messages
    expect(await alertExists(oldSent.alertId)).toBe(false);
    expect(await alertExists(oldUnsent.alertId)).toBe(true);
    expect(await outboxExists(oldUnsent.outboxId)).toBe(true);
    expect(await outboxExists(recentSent.outboxId)).toBe(true);
    expect(await outboxExists(weekOldSent.outboxId)).toBe(false);
    expect(await alertExists(weekOldSent.alertId)).toBe(true);
    const fates = await db.prisma.alertLog.findMany({
      where: { id: { in: [oldFate.alertId, recentFate.alertId] } },
      orderBy: { id: "asc" },
    });
    expect(fates.map((f) => f.goneState)).toEqual([null, "sold"]);
    expect(await db.prisma.guardEvent.count({ where: { id: oldEvent.id } })).toBe(0);
    expect(await db.prisma.guardEvent.count({ where: { id: newEvent.id } })).toBe(1);
    const buys = await db.prisma.autoBuy.findMany({ where: { id: { in: [settled, pending, unknown] } } });
    expect(buys.map((b) => b.outcome).sort()).toEqual(["pending", "unknown"]);
    expect((await db.prisma.draft.findMany()).map((d) => d.id)).toEqual(["new-draft"]);

    // A second pass finds nothing more.
    expect(Object.values(await pruneExpired(db.prisma, DEFAULT_RETENTION)).every((c) => c === 0)).toBe(true);
  });

  it("GIVEN a longer outbox retention in the configuration WHEN pruned THEN a delivered message of 8 days stays", async () => {
    const sent = await alert(8, "sent");
    const policy = retentionFromConfig(
      loadConfig({ RETENTION_OUTBOX_DAYS: "30" }, process.cwd(), "tool", { embeddedPostgres: true }),
    );
    expect(policy.outboxDays).toBe(30);
    expect((await pruneExpired(db.prisma, policy)).outbox).toBe(0);
    expect(await outboxExists(sent.outboxId)).toBe(true);
  });

  it("GIVEN an alert-log retention shorter than the weekly report needs WHEN the configuration is read THEN it is refused with the variable named", () => {
    const problems = (() => {
      try {
        loadConfig(
          { RETENTION_ALERT_LOG_DAYS: "3", RETENTION_GUARD_EVENTS_DAYS: "x" },
          process.cwd(),
          "tool",
          {
            embeddedPostgres: true,
          },
        );
        return [];
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
    })();
    expect(problems.some((p) => p.startsWith("RETENTION_ALERT_LOG_DAYS:"))).toBe(true);
    expect(problems.some((p) => p.startsWith("RETENTION_GUARD_EVENTS_DAYS:"))).toBe(true);
  });
});

describe("the leader prunes", () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld();
  });

  afterAll(async () => {
    await world?.close();
  });

  it("GIVEN an engine elected leader WHEN it starts THEN records past their retention are pruned without being asked", async () => {
    const u = await world.db.prisma.user.create({ data: { discordId: "812345678901235002" } });
    const old = await world.db.prisma.draft.create({
      data: { id: "stale", userId: u.id, kind: "k", payload: {}, expiresAt: daysAgo(3) },
    });
    const engine = world.engine({ leader: { checkIntervalMs: 50, leaseMs: 1_000 } });
    await engine.start();
    await waitUntil(
      async () => (await world.db.prisma.draft.count({ where: { id: old.id } })) === 0,
      10_000,
      "the leader's prune",
    );
    expect(engine.stats().leader).toBe(true);
  });
});

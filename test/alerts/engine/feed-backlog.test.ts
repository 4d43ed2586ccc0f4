// Backlogs longer than a page: read to the end within the rate budget, from a stored position,
// or given up with one notice to each user whose rules could have matched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../support/discord.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

/** The sandbox's GET /listings budget per key: 4 requests a second. */
const BUDGET = { limit: 4, windowMs: 1_000 };

let w: World;
let alice: World["double"]["users"][number];
let aliceId: number;

beforeAll(async () => {
  w = await startWorld({ sandboxRateLimit: BUDGET });
  alice = w.double.user("alice");
  aliceId = await w.plainUser(alice);
  await w.engine().runFeedOnce(); // first run: the mark is the newest seeded listing
});

afterAll(async () => {
  await w?.close();
});

const keysOf = async (ruleId: number) =>
  (
    await w.db.prisma.alertLog.findMany({
      where: { ruleId },
      orderBy: { id: "asc" },
      select: { dedupeKey: true },
    })
  ).map((a) => a.dedupeKey);

const listingReads = () => {
  const route = w.sandbox.control.stats().routes["GET /listings"];
  return { total: route?.total ?? 0, refused: route?.byStatus["429"] ?? 0 };
};

const feedExtra = async () =>
  (await w.db.prisma.pollerState.findUniqueOrThrow({ where: { key: "feed" } })).extra as {
    walk?: { pages: number };
  } | null;

describe("feed backlog", () => {
  it("GIVEN a cap of one page a cycle WHEN 130 listings arrive between two cycles THEN the next cycles read on from a stored position, across a restart, and alert each listing once", async () => {
    const item = uniqueItemName("backlog");
    const ruleId = await w.addRule(aliceId, "backlog", { item });
    const feed = { maxPages: 1 };
    const engine = w.engine({ feed });
    await engine.runFeedOnce();
    const created = w.sandbox.control.createListings(130, { market_hash_name: item, price: 400 });

    const first = await engine.runFeedOnce();
    expect(first).toMatchObject({ outcome: "backlog", pages: 1, newListings: 50 });
    expect((await feedExtra())?.walk?.pages).toBe(1);
    await engine.stop();

    // A restart half-way: the new process goes on from the stored position.
    const restarted = w.engine({ feed });
    const second = await restarted.runFeedOnce();
    expect(second).toMatchObject({ outcome: "backlog", pages: 1, newListings: 50 });
    const third = await restarted.runFeedOnce();
    expect(third).toMatchObject({ outcome: "ok", pages: 1, newListings: 30 });
    expect(await feedExtra()).toBeNull();

    const keys = await keysOf(ruleId);
    expect(new Set(keys)).toEqual(new Set(created.map((l) => `listing:u${aliceId}:${l.id}`)));
    expect(keys).toHaveLength(130);
    const row = await w.db.prisma.pollerState.findUniqueOrThrow({ where: { key: "feed" } });
    expect(row.highWaterMark).toBe(created[129]?.id);
    expect(await restarted.runFeedOnce()).toMatchObject({ outcome: "ok", newListings: 0 });
  });

  it("GIVEN a rate budget of four reads a second WHEN 220 listings arrive THEN no cycle reads past the budget, none is refused, and every listing is alerted", async () => {
    const item = uniqueItemName("budget");
    const ruleId = await w.addRule(aliceId, "budget", { item });
    const engine = w.engine();
    await engine.runFeedOnce();
    const created = w.sandbox.control.createListings(220, { market_hash_name: item, price: 450 });
    const before = listingReads();

    const results = [];
    for (let i = 0; i < 6; i++) {
      const result = await engine.runFeedOnce();
      results.push(result);
      // Each cycle stays within what the key had left, one request kept in reserve.
      expect(result.pages).toBeLessThanOrEqual(BUDGET.limit - 1);
      if (result.outcome === "ok") break;
    }

    expect(results.at(-1)?.outcome).toBe("ok");
    expect(results.slice(0, -1).every((r) => r.outcome === "backlog")).toBe(true);
    expect(results.reduce((n, r) => n + r.newListings, 0)).toBe(220);
    const keys = await keysOf(ruleId);
    expect(new Set(keys)).toEqual(new Set(created.map((l) => `listing:u${aliceId}:${l.id}`)));
    expect(keys).toHaveLength(220);
    const after = listingReads();
    expect(after.refused - before.refused).toBe(0);
    // Five pages of backlog and one to see the head again, nothing read twice.
    expect(after.total - before.total).toBeLessThanOrEqual(6);
  });

  it("GIVEN a backlog that cannot be read in time WHEN the feed gives up the rest THEN each user whose rules could have matched gets one notice, others none, and a re-read after a crash adds none", async () => {
    const bob = w.double.user("bob");
    const bobId = await w.plainUser(bob);
    // Users who never talk to this Discord: one without rules, one with listing alerts off.
    const other = (discordId: string) =>
      w.db.prisma.user.create({ data: { discordId, status: "unlinked" } }).then((u) => u.id);
    const carolId = await other("900000000000000003");
    const daveId = await other("900000000000000004");
    await w.addRule(bobId, "paused", { item: uniqueItemName("paused") }, { enabled: false });
    await w.addRule(daveId, "muted", { item: uniqueItemName("muted") });
    await w.db.prisma.user.update({ where: { id: daveId }, data: { alertListing: false } });
    const item = uniqueItemName("gap");
    const ruleId = await w.addRule(aliceId, "gap", { item });
    // No backlog may outlive the cycle that found it.
    const engine = w.engine({ feed: { maxPages: 1, maxCatchUpMs: 0 } });
    await engine.runFeedOnce();
    const beforeGapAt = new Date();
    const created = w.sandbox.control.createListings(120, { market_hash_name: item, price: 300 });

    expect(await engine.runFeedOnce()).toMatchObject({ outcome: "backlog", newListings: 50 });
    const beforeGap = await w.db.prisma.pollerState.findUniqueOrThrow({ where: { key: "feed" } });
    const gap = await engine.runFeedOnce();

    expect(gap.outcome).toBe("gap");
    const notices = await w.db.prisma.alertLog.findMany({ where: { kind: "feed_gap" } });
    expect(notices.map((n) => n.userId)).toEqual([aliceId]);
    for (const id of [bobId, carolId, daveId]) expect(notices.map((n) => n.userId)).not.toContain(id);
    // The 50 newest were alerted; the 70 oldest are the gap the notice is about.
    expect(await keysOf(ruleId)).toHaveLength(50);
    const row = await w.db.prisma.pollerState.findUniqueOrThrow({ where: { key: "feed" } });
    expect(row.highWaterMark).toBe(created[119]?.id);

    // Listing alerts of earlier tests are not this test's business: only the 50 and the notice go out.
    await w.db.prisma.outbox.deleteMany({ where: { alert: { createdAt: { lt: beforeGapAt } } } });
    while ((await engine.runDeliveryOnce()).claimed > 0);
    const dm = await w.double.waitForDm(alice.id, (m) => textOf(m).includes("were not checked"));
    expect(textOf(dm)).toContain("/watch test");

    // The process died after telling, before moving its mark: the same gap, told once.
    await w.db.prisma.pollerState.update({
      where: { key: "feed" },
      data: {
        highWaterMark: beforeGap.highWaterMark,
        highWaterCreatedAt: beforeGap.highWaterCreatedAt,
        extra: beforeGap.extra as object,
      },
    });
    expect((await w.engine({ feed: { maxPages: 1, maxCatchUpMs: 0 } }).runFeedOnce()).outcome).toBe("gap");
    expect(await w.db.prisma.alertLog.count({ where: { kind: "feed_gap" } })).toBe(1);
    expect(await engine.runFeedOnce()).toMatchObject({ outcome: "ok", newListings: 0 });
    expect(await w.db.prisma.alertLog.count({ where: { kind: "feed_gap" } })).toBe(1);
  });

  it("GIVEN a backlog half read WHEN the marketplace no longer accepts its cursor THEN the rest is told as a gap and the feed goes on from the newest listings", async () => {
    const item = uniqueItemName("cursor");
    const ruleId = await w.addRule(aliceId, "cursor", { item });
    const engine = w.engine({ feed: { maxPages: 1 } });
    await engine.runFeedOnce();
    w.sandbox.control.createListings(120, { market_hash_name: item, price: 350 });
    expect(await engine.runFeedOnce()).toMatchObject({ outcome: "backlog", newListings: 50 });
    const told = await w.db.prisma.alertLog.count({ where: { kind: "feed_gap" } });

    w.sandbox.control.injectFault({
      method: "GET",
      path: "/listings",
      kind: "status",
      status: 400,
      times: 1,
    });
    const expired = await engine.runFeedOnce();
    const next = w.sandbox.control.createListing({ market_hash_name: item, price: 360 });
    const after = await engine.runFeedOnce();

    expect(expired.outcome).toBe("gap");
    expect(await w.db.prisma.alertLog.count({ where: { kind: "feed_gap" } })).toBe(told + 1);
    expect(after).toMatchObject({ outcome: "ok", newListings: 1 });
    expect(await keysOf(ruleId)).toContain(`listing:u${aliceId}:${next.id}`);
  });
});

// The one feed: new listings matched against stored rules, alerted once, with the mark persisted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../support/discord.ts";
import { startWorld, uniqueItemName, waitUntil, type World } from "./world.ts";

let w: World;
let alice: World["double"]["users"][number];

beforeAll(async () => {
  w = await startWorld();
  alice = w.double.user("alice");
});

afterAll(async () => {
  await w?.close();
});

const alertKeys = async () =>
  (await w.db.prisma.alertLog.findMany({ orderBy: { id: "asc" }, select: { dedupeKey: true } })).map(
    (a) => a.dedupeKey,
  );

describe("feed poller", () => {
  it("GIVEN no mark yet WHEN the feed first runs THEN the mark is set to the newest listing and nothing old is alerted", async () => {
    const userId = await w.plainUser(alice);
    // A rule every seeded listing under $1,000,000 would satisfy on price alone.
    await w.addRule(userId, "everything cheap", { max_price: 100_000_000 });
    const newest = (
      await w.market.forKey(w.sandbox.operatorKey).searchListings({ sort_by: "most_recent", limit: 1 })
    ).data[0];
    const engine = w.engine();

    const result = await engine.runFeedOnce();

    expect(result.outcome).toBe("first_run");
    const mark = await w.db.prisma.pollerState.findUnique({ where: { key: "feed" } });
    expect(mark?.highWaterMark).toBe(newest?.id);
    expect(await alertKeys()).toEqual([]);
    await w.db.prisma.watchRule.deleteMany({});
  });

  it("GIVEN a rule WHEN a matching listing appears THEN exactly one DM arrives AND a non-matching one sends none", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const item = uniqueItemName("match");
    await w.addRule(userId, "cheap test blade", { item, max_price: 5_000 });
    const engine = w.engine();

    const hit = w.sandbox.control.createListing({
      market_hash_name: item,
      price: 4_000,
      float_value: 0.01,
      paint_seed: 661,
    });
    w.sandbox.control.createListing({ market_hash_name: item, price: 6_000 }); // over max_price
    w.sandbox.control.createListing({ market_hash_name: uniqueItemName("other"), price: 100 }); // other item

    const feed = await engine.runFeedOnce();
    expect(feed.outcome).toBe("ok");
    expect(feed.newListings).toBe(3);
    expect(await alertKeys()).toEqual([`listing:u${userId}:${hit.id}`]);

    const delivery = await engine.runDeliveryOnce();
    expect(delivery.sent).toBe(1);
    const dm = await w.double.waitForDm(alice.id, (m) => textOf(m).includes(hit.id));
    const text = textOf(dm);
    expect(text).toContain(item.split(" (")[0]);
    expect(text).toContain("$40.00");
    expect(text).toContain("661");
    expect(text).toContain("cheap test blade");
    // Buy and View buttons, both owned by the alert's user.
    const ids = JSON.stringify(dm.components);
    expect(ids).toContain(`buy:${hit.id}:${alice.id}`);
    expect(ids).toContain(`alert.view:${hit.id}:${alice.id}`);

    // Nothing new upstream: the next cycle and delivery pass add nothing.
    await engine.runFeedOnce();
    await engine.runDeliveryOnce();
    expect(w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(hit.id))).toHaveLength(1);
    expect(await alertKeys()).toEqual([`listing:u${userId}:${hit.id}`]);
  });

  it("GIVEN a DM rule and a default destination of a channel in settings WHEN a listing matches THEN the alert is posted in that channel, not by DM", async () => {
    const bob = w.double.user("bob");
    const bobId = await w.plainUser(bob);
    await w.db.prisma.user.update({
      where: { id: bobId },
      data: { defaultDestination: "channel", defaultChannelId: w.double.channelId },
    });
    const item = uniqueItemName("default-dest");
    await w.addRule(bobId, "to my channel", { item });
    const engine = w.engine();
    await engine.runFeedOnce(); // settle the mark after earlier tests
    const dmsBefore = w.double.dmsTo(bob.id).length;

    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 700 });
    await engine.runFeedOnce();
    await engine.runDeliveryOnce();

    const posted = w.double.messagesIn(w.double.channelId).filter((m) => textOf(m).includes(listing.id));
    expect(posted).toHaveLength(1);
    expect(w.double.dmsTo(bob.id)).toHaveLength(dmsBefore);
    await w.db.prisma.user.delete({ where: { id: bobId } });
  });

  it("GIVEN 120 listings created between two polls WHEN the feed runs once THEN it pages back to its mark and sees all of them", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const item = uniqueItemName("burst");
    await w.addRule(userId, "burst", { item });
    const engine = w.engine();
    await engine.runFeedOnce(); // settle the mark after earlier tests
    const before = w.sandbox.control.stats();

    const created = w.sandbox.control.createListings(120, { market_hash_name: item, price: 500 });
    const result = await engine.runFeedOnce();

    expect(result.outcome).toBe("ok");
    expect(result.newListings).toBe(120);
    expect(result.pages).toBe(3);
    const keys = new Set(await alertKeys());
    for (const l of created) expect(keys.has(`listing:u${userId}:${l.id}`)).toBe(true);
    const after = w.sandbox.control.stats();
    expect(searchCalls(after) - searchCalls(before)).toBe(3);
  });

  it("GIVEN an engine restarted on the same database WHEN listings appeared while it was down THEN it alerts those and nothing it handled before", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const item = uniqueItemName("restart");
    await w.addRule(userId, "restart", { item });
    const first = w.engine();
    const old = w.sandbox.control.createListing({ market_hash_name: item, price: 700 });
    await first.runFeedOnce();
    await first.stop();
    const alertsBefore = await w.db.prisma.alertLog.count();

    const whileDown = w.sandbox.control.createListings(3, { market_hash_name: item, price: 800 });
    const second = w.engine();
    const result = await second.runFeedOnce();

    expect(result.outcome).toBe("ok");
    expect(result.newListings).toBe(3);
    const keys = await alertKeys();
    expect(keys.filter((k) => k === `listing:u${userId}:${old.id}`)).toHaveLength(1);
    for (const l of whileDown) expect(keys).toContain(`listing:u${userId}:${l.id}`);
    expect(await w.db.prisma.alertLog.count()).toBe(alertsBefore + 3);
  });

  it("GIVEN the feed's mark was not saved after alerts were written (a crash) WHEN the feed re-reads THEN no alert is written twice", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const item = uniqueItemName("crash");
    await w.addRule(userId, "crash", { item });
    const engine = w.engine();
    await engine.runFeedOnce();
    const markBefore = await w.db.prisma.pollerState.findUniqueOrThrow({ where: { key: "feed" } });
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 900 });
    await engine.runFeedOnce();
    // Roll the mark back as if the process died between writing alerts and saving the mark.
    await w.db.prisma.pollerState.update({
      where: { key: "feed" },
      data: { highWaterMark: markBefore.highWaterMark, highWaterCreatedAt: markBefore.highWaterCreatedAt },
    });

    const again = w.engine();
    const result = await again.runFeedOnce();

    expect(result.newListings).toBeGreaterThanOrEqual(1);
    const keys = await alertKeys();
    expect(keys.filter((k) => k === `listing:u${userId}:${listing.id}`)).toHaveLength(1);
    expect(
      await w.db.prisma.outbox.count({ where: { alert: { dedupeKey: `listing:u${userId}:${listing.id}` } } }),
    ).toBe(1);
  });

  it("GIVEN more rules and users WHEN the feed runs THEN it makes the same number of marketplace calls", async () => {
    const engine = w.engine();
    await engine.runFeedOnce();
    const item = uniqueItemName("scale");
    w.sandbox.control.createListings(10, { market_hash_name: item, price: 300 });
    const before = searchCalls(w.sandbox.control.stats());
    await engine.runFeedOnce();
    const fewRules = searchCalls(w.sandbox.control.stats()) - before;

    for (const u of w.double.users) {
      const id =
        u.id === alice.id
          ? (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: u.id } })).id
          : await w.plainUser(u);
      for (let i = 0; i < 20; i++)
        await w.addRule(id, `scale ${u.username} ${i}`, { item, max_price: 100 + i });
    }
    w.sandbox.control.createListings(10, { market_hash_name: item, price: 300 });
    const mid = searchCalls(w.sandbox.control.stats());
    await engine.runFeedOnce();
    const manyRules = searchCalls(w.sandbox.control.stats()) - mid;

    expect(fewRules).toBe(1);
    expect(manyRules).toBe(fewRules);
  });

  it("GIVEN the marketplace fails WHEN the feed runs THEN the cycle fails softly, backs off, and the next cycle catches up", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const item = uniqueItemName("fault");
    await w.addRule(userId, "fault", { item });
    const engine = w.engine();
    await engine.runFeedOnce();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    w.sandbox.control.injectFault({
      method: "GET",
      path: "/listings",
      kind: "status",
      status: 503,
      times: 5,
    });

    const failed = await engine.runFeedOnce();
    expect(failed.outcome).toBe("failed");
    expect(engine.stats().feed.consecutiveFailures).toBe(1);
    expect(engine.stats().feed.nextDelayMs).toBeGreaterThan(0);

    w.sandbox.control.clearFaults();
    const ok = await engine.runFeedOnce();
    expect(ok.outcome).toBe("ok");
    expect(await alertKeys()).toContain(`listing:u${userId}:${listing.id}`);
  });

  it("GIVEN a rule saved while a feed cycle is reading WHEN a listing for it appears before the read answers THEN it is alerted", async () => {
    const userId = (await w.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } })).id;
    const engine = w.engine();
    await engine.runFeedOnce();
    w.sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "latency", ms: 300, times: 1 });
    const faultsLeft = async () => {
      const res = await fetch(`${w.sandbox.controlUrl}/faults`);
      return ((await res.json()) as { faults: unknown[] }).faults.length;
    };

    const cycle = engine.runFeedOnce(); // rules synced, now waiting on the slow read
    await waitUntil(async () => (await faultsLeft()) === 0, 5_000, "the feed's read to reach the sandbox");
    const item = uniqueItemName("mid-cycle");
    await w.addRule(userId, "mid-cycle", { item });
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 600 });
    const result = await cycle;

    expect(result.newListings).toBe(1);
    expect(await alertKeys()).toContain(`listing:u${userId}:${listing.id}`);
  });
});

function searchCalls(stats: ReturnType<World["sandbox"]["control"]["stats"]>): number {
  const routes = stats.routes as Record<string, { total: number } | undefined>;
  return routes["GET /listings"]?.total ?? 0;
}

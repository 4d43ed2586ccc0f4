// The feed's first start: listings created after the bot started alert, on an empty market and
// after first reads that failed, and nothing from before the start does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../support/discord.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

const DAY = 24 * 3_600_000;
/** Seeded auctions end within five days; the sandbox starts this far back and catches up. */
const BACK = 6 * DAY;

let w: World;
let alice: World["double"]["users"][number];
let aliceId: number;

beforeAll(async () => {
  // The sandbox's clock starts six days back so that moving it forward ends every seeded auction
  // and brings it level with the bot's clock again.
  w = await startWorld({ sandboxClock: () => Date.now() - BACK });
  w.sandbox.control.advanceClock(BACK);
  alice = w.double.user("alice");
  aliceId = await w.plainUser(alice);
});

afterAll(async () => {
  await w?.close();
});

/** Sells every listed listing (the auctions ended as the clock caught up): nothing is left for sale. */
async function emptyTheMarket(): Promise<void> {
  const api = w.market.forKey(w.sandbox.operatorKey);
  for (;;) {
    const page = await api.searchListings({ sort_by: "most_recent", limit: 50 });
    if (page.data.length === 0) return;
    for (const listing of page.data) w.sandbox.control.sellToBuyer(listing.id);
  }
}

/** Alert keys, oldest first; with a rule: only the alerts that rule led. */
const alertKeys = async (ruleId?: number) =>
  (
    await w.db.prisma.alertLog.findMany({
      where: ruleId === undefined ? {} : { ruleId },
      orderBy: { id: "asc" },
      select: { dedupeKey: true },
    })
  ).map((a) => a.dedupeKey);

const feedRow = () => w.db.prisma.pollerState.findUnique({ where: { key: "feed" } });

describe("feed first start", () => {
  it("GIVEN a first start on an empty market WHEN listings appear THEN they are alerted", async () => {
    await emptyTheMarket();
    const item = uniqueItemName("empty");
    await w.addRule(aliceId, "empty market", { item });
    const engine = w.engine();

    const first = await engine.runFeedOnce();
    expect(first).toMatchObject({ outcome: "first_run", newListings: 0 });

    const listings = w.sandbox.control.createListings(2, { market_hash_name: item, price: 900 });
    const next = await engine.runFeedOnce();
    expect(next).toMatchObject({ outcome: "ok", newListings: 2 });
    expect(await alertKeys()).toEqual(listings.map((l) => `listing:u${aliceId}:${l.id}`));

    await engine.runDeliveryOnce();
    for (const l of listings) await w.double.waitForDm(alice.id, (m) => textOf(m).includes(l.id));
    expect((await feedRow())?.highWaterMark).toBe(listings[1]?.id);
  });

  it("GIVEN a first start whose first reads fail, across a restart WHEN the marketplace recovers THEN listings created since the start are alerted and older ones are not", async () => {
    await w.db.prisma.pollerState.deleteMany({ where: { key: "feed" } }); // a first start again
    const item = uniqueItemName("outage");
    const ruleId = await w.addRule(aliceId, "outage", { item });
    const before = w.sandbox.control.createListing({ market_hash_name: item, price: 700 });
    const down = () =>
      w.sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "status", status: 503 });

    down();
    const first = w.engine();
    expect((await first.runFeedOnce()).outcome).toBe("failed");
    const during = w.sandbox.control.createListing({ market_hash_name: item, price: 800 });
    await first.stop();
    // Restarted while the marketplace is still down: the first start still counts.
    const second = w.engine();
    expect((await second.runFeedOnce()).outcome).toBe("failed");
    const later = w.sandbox.control.createListings(2, { market_hash_name: item, price: 900 });

    w.sandbox.control.clearFaults();
    const recovered = await second.runFeedOnce();

    expect(recovered).toMatchObject({ outcome: "first_run", newListings: 3 });
    const keys = await alertKeys(ruleId);
    expect(keys).toEqual([during, ...later].map((l) => `listing:u${aliceId}:${l.id}`));
    expect(keys).not.toContain(`listing:u${aliceId}:${before.id}`);
    expect((await feedRow())?.highWaterMark).toBe(later[1]?.id);

    // From then on the mark is a listing and the feed goes on as usual.
    const after = w.sandbox.control.createListing({ market_hash_name: item, price: 950 });
    expect(await second.runFeedOnce()).toMatchObject({ outcome: "ok", newListings: 1 });
    expect(await alertKeys()).toContain(`listing:u${aliceId}:${after.id}`);
  });

  it("GIVEN a first start on a market with listings WHEN the feed first runs THEN the newest listing becomes the mark and nothing is alerted", async () => {
    await w.db.prisma.pollerState.deleteMany({ where: { key: "feed" } });
    const item = uniqueItemName("existing");
    const ruleId = await w.addRule(aliceId, "existing", { item });
    const existing = w.sandbox.control.createListings(2, { market_hash_name: item, price: 500 });
    const engine = w.engine();

    const first = await engine.runFeedOnce();

    expect(first).toMatchObject({ outcome: "first_run", newListings: 0 });
    expect((await feedRow())?.highWaterMark).toBe(existing[1]?.id);
    expect(await alertKeys(ruleId)).toEqual([]);
  });
});

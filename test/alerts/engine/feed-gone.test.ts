// The feed's gone detection against the sandbox: sales inside the first page's window are told, page shifts never are.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFeedPoller, feedStateStore } from "../../../src/feed/feedPoller.ts";
import { createLogger } from "../../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../../src/market/client.ts";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

const logger = createLogger({ level: "silent" });
let sandbox: Sandbox;
let db: TestDatabase;
let market: MarketClient;
let told: Array<{ ids: string[]; at: number }>;
let feed: ReturnType<typeof createFeedPoller>;
let feedKey = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
  db = await freshDatabase();
  market = createMarketClient({ baseUrl: sandbox.baseUrl, logger, retry: { attempts: 1 } });
});

afterAll(async () => {
  await market?.close();
  await db?.close();
  await sandbox?.close();
});

beforeEach(() => {
  told = [];
  feedKey += 1;
  // A poller of its own per test (own state row): each test starts without a previous page.
  feed = createFeedPoller({
    market,
    apiKey: sandbox.operatorKey,
    logger,
    state: feedStateStore(db.prisma, `feed-${feedKey}`),
    handle: async () => {},
    onGap: async () => {},
    onGone: (ids, at) => {
      told.push({ ids, at: at.getTime() });
    },
    intervalMs: 1_000,
    now: () => sandbox.control.now(),
  });
});

/** n buy-now listings, each a millisecond after the one before (the marketplace's times are ms). */
function listings(n: number): string[] {
  return Array.from({ length: n }, () => {
    sandbox.control.advanceClock(1);
    return sandbox.control.createListing({ type: "buy_now", price: 1_000 }).id;
  });
}

async function firstPage(): Promise<string[]> {
  const page = await market.forKey(sandbox.operatorKey).searchListings({ sort_by: "most_recent", limit: 50 });
  return page.data.map((l) => l.id);
}

describe("gone detection in the feed", () => {
  it("GIVEN a listing on the first page WHEN it sells before the next cycle THEN it is told once, at that cycle's time", async () => {
    const [sold] = listings(3);
    if (sold === undefined) throw new Error("no listing");
    sandbox.control.advanceClock(1);
    await feed.runOnce();
    expect(told).toEqual([]); // a first cycle has nothing to compare with

    sandbox.control.sellToBuyer(sold);
    const from = sandbox.control.now();
    await feed.runOnce();
    const until = sandbox.control.now();
    await feed.runOnce();

    expect(told.map((t) => t.ids)).toEqual([[sold]]);
    expect(told[0]?.at).toBeGreaterThanOrEqual(from);
    expect(told[0]?.at).toBeLessThanOrEqual(until);
  });

  it("GIVEN 30 new listings between cycles WHEN nothing sold THEN nothing is told although 30 left the first page", async () => {
    listings(5);
    await feed.runOnce();
    const before = await firstPage();

    listings(30);
    await feed.runOnce();

    const after = new Set(await firstPage());
    expect(before.filter((id) => !after.has(id))).toHaveLength(30); // really pushed off
    expect(told).toEqual([]);
  });

  it("GIVEN new listings and two sales WHEN one sold inside the new window and one was pushed below it THEN only the first is told", async () => {
    listings(50);
    await feed.runOnce();
    const before = await firstPage();
    const inside = before[4]; // stays on the first page after 20 new listings
    const below = before[40]; // pushed to the second page by them
    if (inside === undefined || below === undefined) throw new Error("first page too short");

    listings(20);
    sandbox.control.sellToBuyer(inside);
    sandbox.control.sellToBuyer(below);
    await feed.runOnce();

    expect(told.map((t) => t.ids)).toEqual([[inside]]);
  });

  it("GIVEN a cycle whose read failed WHEN a listing sells THEN the cycle after it compares nothing (no stale window)", async () => {
    const [sold] = listings(2);
    if (sold === undefined) throw new Error("no listing");
    await feed.runOnce();
    sandbox.control.injectFault({ path: "/listings", kind: "status", status: 503, times: 1 });
    expect((await feed.runOnce()).outcome).toBe("failed");
    sandbox.control.sellToBuyer(sold);

    await feed.runOnce(); // reads a new first page: nothing to compare it with
    expect(told).toEqual([]);
  });
});

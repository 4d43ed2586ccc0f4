// Read-side verbs against the real sandbox: search, stalls, watchlist and price history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserFacingError } from "../../src/errors.ts";
import { priceHistory } from "../../src/trading/history.ts";
import { searchListings, toListingsQuery } from "../../src/trading/search.ts";
import { viewStall } from "../../src/trading/stall.ts";
import { listWatchlist, unwatchListing, watchListing } from "../../src/trading/watchlist.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { rejection, startTradingWorld, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

/** A seeded seller who keeps their stall private. */
const PRIVATE_SELLER = "42420000000000202";

describe("search", () => {
  it("GIVEN no filters WHEN searching THEN the market's best deals come back with a cursor to the next page", async () => {
    const user = await world.trader();

    const page = await searchListings(user.deps, {});

    expect(page.listings).toHaveLength(10);
    expect(page.cursor).toEqual(expect.any(String));
    const next = await searchListings(user.deps, { cursor: page.cursor });
    expect(next.listings[0]?.listingId).not.toBe(page.listings[0]?.listingId);
  });

  it("GIVEN a price and type filter WHEN searching THEN every result satisfies it", async () => {
    const user = await world.trader();
    world.sandbox.control.createListing({ price: 1_234, type: "buy_now" });

    const page = await searchListings(user.deps, {
      minPriceCents: 1_000,
      maxPriceCents: 1_500,
      type: "buy_now",
      sortBy: "lowest_price",
      limit: 50,
    });

    expect(page.listings.length).toBeGreaterThan(0);
    for (const l of page.listings) {
      expect(l.priceCents).toBeGreaterThanOrEqual(1_000);
      expect(l.priceCents).toBeLessThanOrEqual(1_500);
      expect(l.type).toBe("buy_now");
    }
  });

  it("GIVEN two sellers' listings of one item WHEN searched for one seller THEN only theirs are kept, the page's size is told, and no user_id is sent", async () => {
    const user = await world.trader();
    const item = uniqueItemName("by-seller");
    const mine = world.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    const seller = mine.seller?.platform_id ?? "";
    const other = world.sandbox.control
      .users()
      .find((u) => u.kind === "seller" && u.platformId !== seller)?.platformId;
    const theirs = world.sandbox.control.createListing({
      market_hash_name: item,
      price: 1_100,
      sellerPlatformId: other ?? "",
    });

    const page = await searchListings(user.deps, { itemName: item, sellerId: seller });

    expect(page.listings.map((l) => l.listingId)).toEqual([mine.id]);
    expect(page.listings.map((l) => l.listingId)).not.toContain(theirs.id);
    expect(page.sellerFilter).toEqual({ sellerId: seller, scanned: 2 });
    expect(toListingsQuery({ itemName: item, sellerId: seller })).not.toHaveProperty("user_id");
  });

  it("GIVEN a minimum price above the maximum WHEN searching THEN invalid_input and no request", async () => {
    const user = await world.trader();
    const before = world.hits("GET /listings");

    const error = await rejection(() =>
      searchListings(user.deps, { minPriceCents: 2_000, maxPriceCents: 1_000 }),
    );

    expect(error).toMatchObject({ code: "invalid_input", context: { option: "min_price" } });
    expect(world.hits("GET /listings")).toBe(before);
  });
});

describe("stall", () => {
  it("GIVEN a private stall WHEN viewed THEN forbidden says the stall is private", async () => {
    const user = await world.trader();

    const error = await rejection(() => viewStall(user.deps, { platformId: PRIVATE_SELLER }));

    expect(error).toMatchObject({ code: "forbidden" });
    expect((error as UserFacingError).userMessage).toBe("This seller's stall is private.");
  });

  it("GIVEN a public stall WHEN viewed THEN its listings and totals come back", async () => {
    const user = await world.trader();
    const seller = await world.trader();
    const l = world.sandbox.control.createListing({ price: 900, sellerPlatformId: seller.platformId });

    const stall = await viewStall(user.deps, { platformId: seller.platformId });

    expect(stall.listings.map((x) => x.listingId)).toEqual([l.id]);
    expect(stall).toMatchObject({ totalCount: 1, totalPriceCents: 900, cursor: undefined });
  });
});

describe("watchlist", () => {
  it("GIVEN a listing WHEN watched and then unwatched THEN the watchlist shows it and then does not", async () => {
    const user = await world.trader();
    const l = world.sandbox.control.createListing({ price: 900 });

    await watchListing(user.deps, { listingId: l.id });
    const watching = await listWatchlist(user.deps);
    await unwatchListing(user.deps, { listingId: l.id });
    const after = await listWatchlist(user.deps);

    expect(watching.listings.map((x) => x.listingId)).toEqual([l.id]);
    expect(after.listings).toEqual([]);
  });
});

describe("history", () => {
  it("GIVEN an item with past sales WHEN its history is read THEN daily points are oldest first and sales newest first", async () => {
    const user = await world.trader();
    const seller = await world.trader();
    const l = world.sandbox.control.createListing({ price: 700, sellerPlatformId: seller.platformId });
    world.sandbox.control.sellToBuyer(l.id);

    const history = await priceHistory(user.deps, { itemName: l.item.market_hash_name });

    expect(history.points.length).toBeGreaterThan(0);
    const days = history.points.map((p) => p.day);
    expect(days).toEqual([...days].sort());
    // Live sales entries carry no listing id: the sale is there by its price and float.
    expect(history.recentSales.every((s) => s.listingId === undefined)).toBe(true);
    expect(history.recentSales).toContainEqual(
      expect.objectContaining({ priceCents: 700, floatValue: l.item.float_value }),
    );
    expect(history.salesUnavailable).toBe(false);
    const times = history.recentSales.map((s) => s.soldAt?.getTime() ?? 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const p of history.points) expect(Number.isInteger(p.avgPriceCents)).toBe(true);
  });

  it("GIVEN the sales read fails WHEN the history is read THEN the graph still comes and the sales are marked unavailable", async () => {
    const user = await world.trader();
    const l = world.sandbox.control.createListing({ price: 800 });
    world.sandbox.control.sellToBuyer(l.id);
    world.sandbox.control.injectFault({
      method: "GET",
      path: "/history/*/sales",
      kind: "status",
      status: 500,
      times: 10,
    });
    try {
      const history = await priceHistory(user.deps, { itemName: l.item.market_hash_name });

      expect(history.points.length).toBeGreaterThan(0);
      expect(history.recentSales).toEqual([]);
      expect(history.salesUnavailable).toBe(true);
    } finally {
      world.sandbox.control.clearFaults();
    }
  });
});

// Selling against the real sandbox: listing with validation, repricing, removing one or many.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserFacingError } from "../../src/errors.ts";
import type { MarketApi } from "../../src/market/client.ts";
import { delist, listItem, myListings, reprice } from "../../src/trading/selling.ts";
import { rejection, startTradingWorld, type Trader, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

function asset(t: Trader): string {
  const [first] = world.sandbox.control.inventory(t.platformId);
  if (first === undefined) throw new Error("no asset left");
  return first;
}

async function listed(t: Trader, priceCents: number): Promise<string> {
  return (await listItem(t.deps, { assetId: asset(t), type: "buy_now", priceCents })).listingId;
}

describe("listItem", () => {
  it("GIVEN an inventory asset WHEN listed buy-now THEN it is on the market at that price", async () => {
    const seller = await world.trader();
    const assetId = asset(seller);

    const summary = await listItem(seller.deps, {
      assetId,
      type: "buy_now",
      priceCents: 1_999,
      maxOfferDiscountBps: 500,
    });

    expect(summary).toMatchObject({ type: "buy_now", state: "listed", priceCents: 1_999, isSeller: true });
    expect((await seller.market.getListing(summary.listingId)).max_offer_discount).toBe(500);
    expect(world.sandbox.control.inventory(seller.platformId)).not.toContain(assetId);
  });

  it("GIVEN an auction with a starting price and 3 days WHEN listed THEN it ends about 3 days from now", async () => {
    const seller = await world.trader();

    const summary = await listItem(seller.deps, {
      assetId: asset(seller),
      type: "auction",
      reservePriceCents: 500,
      durationDays: 3,
    });

    expect(summary).toMatchObject({ type: "auction", durationDays: 3 });
    expect(summary.auction?.reservePriceCents).toBe(500);
    const days = ((summary.auction?.expiresAt?.getTime() ?? 0) - world.sandbox.control.now()) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThanOrEqual(3);
  });

  it("GIVEN an auction without a chosen duration WHEN listed THEN the default 7 days is sent, reported and applied", async () => {
    const seller = await world.trader();

    const summary = await listItem(seller.deps, {
      assetId: asset(seller),
      type: "auction",
      reservePriceCents: 700,
    });

    expect(summary.durationDays).toBe(7);
    const days = ((summary.auction?.expiresAt?.getTime() ?? 0) - world.sandbox.control.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
  });

  it.each([
    [
      "a description over 180 characters",
      { type: "buy_now", priceCents: 500, description: "x".repeat(181) },
      "description",
    ],
    ["a duration of 2 days", { type: "auction", reservePriceCents: 500, durationDays: 2 }, "duration"],
    ["a price under 3 cents", { type: "buy_now", priceCents: 2 }, "price"],
    ["an auction without a starting price", { type: "auction" }, "reserve_price"],
    ["a duration on a buy-now listing", { type: "buy_now", priceCents: 500, durationDays: 3 }, "duration"],
  ] as const)(
    "GIVEN %s WHEN listed THEN invalid_input names the option and nothing is sent",
    async (_, input, option) => {
      const seller = await world.trader();
      const before = world.hits("POST /listings");

      const error = await rejection(() => listItem(seller.deps, { assetId: asset(seller), ...input }));

      expect(error).toMatchObject({ code: "invalid_input", context: { option } });
      expect(world.hits("POST /listings")).toBe(before);
    },
  );
});

describe("reprice", () => {
  it("GIVEN an active buy-now listing WHEN repriced THEN the market shows the new price", async () => {
    const seller = await world.trader();
    const id = await listed(seller, 1_000);

    const summary = await reprice(seller.deps, { listingId: id, priceCents: 1_250 });

    expect(summary.priceCents).toBe(1_250);
    expect((await seller.market.getListing(id)).price).toBe(1_250);
  });

  it("GIVEN an auction with bids WHEN repriced THEN the clear auction message and no update is sent", async () => {
    const seller = await world.trader();
    const a = world.sandbox.control.createListing({
      type: "auction",
      price: 1_000,
      sellerPlatformId: seller.platformId,
    });
    world.sandbox.control.placeCompetingBid(a.id, 2_000);
    const before = world.hits("PATCH /listings/{listing_id}");

    const error = await rejection(() => reprice(seller.deps, { listingId: a.id, priceCents: 5_000 }));

    expect(error).toMatchObject({ code: "conflict" });
    expect((error as UserFacingError).userMessage).toBe(
      "An auction cannot be repriced once bidding has opened.",
    );
    expect(world.hits("PATCH /listings/{listing_id}")).toBe(before);
  });

  it("GIVEN a bid lands between the read and the update WHEN the service refuses THEN the same auction message", async () => {
    const seller = await world.trader();
    const a = world.sandbox.control.createListing({
      type: "auction",
      price: 1_000,
      sellerPlatformId: seller.platformId,
    });
    const racing: MarketApi = {
      ...seller.market,
      updateListing: async (id, patch) => {
        world.sandbox.control.placeCompetingBid(a.id, 2_000);
        return seller.market.updateListing(id, patch);
      },
    };

    const error = await rejection(() =>
      reprice({ ...seller.deps, market: racing }, { listingId: a.id, priceCents: 1_000 }),
    );

    expect(error).toMatchObject({ code: "conflict" });
    expect((error as UserFacingError).userMessage).toBe(
      "An auction cannot be repriced once bidding has opened.",
    );
  });

  it("GIVEN someone else's listing WHEN repriced THEN not_owner", async () => {
    const seller = await world.trader();
    const other = world.sandbox.control.createListing({ price: 1_000 });

    const error = await rejection(() => reprice(seller.deps, { listingId: other.id, priceCents: 900 }));

    expect(error).toMatchObject({ code: "not_owner" });
  });
});

describe("delist", () => {
  it("GIVEN three listings WHEN delisted together THEN one bulk request removes them all", async () => {
    const seller = await world.trader();
    const ids = [await listed(seller, 500), await listed(seller, 600), await listed(seller, 700)];
    const bulkBefore = world.hits("PATCH /listings/bulk-delist");
    const singleBefore = world.hits("DELETE /listings/{listing_id}");

    const outcomes = await delist(seller.deps, { listingIds: ids });

    expect(outcomes).toEqual(ids.map((listingId) => ({ listingId, removed: true, problem: undefined })));
    expect(world.hits("PATCH /listings/bulk-delist") - bulkBefore).toBe(1);
    expect(world.hits("DELETE /listings/{listing_id}")).toBe(singleBefore);
    for (const id of ids) expect((await seller.market.getListing(id)).state).toBe("delisted");
  });

  it("GIVEN one listing WHEN delisted THEN a single DELETE removes it", async () => {
    const seller = await world.trader();
    const id = await listed(seller, 500);
    const bulkBefore = world.hits("PATCH /listings/bulk-delist");
    const singleBefore = world.hits("DELETE /listings/{listing_id}");

    const outcomes = await delist(seller.deps, { listingIds: [id] });

    expect(outcomes).toEqual([{ listingId: id, removed: true, problem: undefined }]);
    expect(world.hits("DELETE /listings/{listing_id}") - singleBefore).toBe(1);
    expect(world.hits("PATCH /listings/bulk-delist")).toBe(bulkBefore);
  });

  it("GIVEN a batch with a sold listing and someone else's WHEN delisted THEN each listing gets its own outcome", async () => {
    const seller = await world.trader();
    const keep = await listed(seller, 500);
    const sold = await listed(seller, 600);
    world.sandbox.control.sellToBuyer(sold);
    const foreign = world.sandbox.control.createListing({ price: 700 }).id;

    const outcomes = await delist(seller.deps, { listingIds: [keep, sold, foreign] });

    expect(outcomes).toEqual([
      { listingId: keep, removed: true, problem: undefined },
      { listingId: sold, removed: false, problem: "it is sold" },
      { listingId: foreign, removed: false, problem: "not your listing" },
    ]);
    expect((await seller.market.getListing(keep)).state).toBe("delisted");
    expect((await seller.market.getListing(foreign)).state).toBe("listed");
  });
});

describe("myListings", () => {
  it("GIVEN a seller with two listings WHEN they ask for theirs THEN both come back", async () => {
    const seller = await world.trader();
    const ids = [await listed(seller, 500), await listed(seller, 600)];

    const page = await myListings(seller.deps, { platformId: seller.platformId });

    expect(page.listings.map((l) => l.listingId).sort()).toEqual([...ids].sort());
    expect(page.totalCount).toBe(2);
  });

  it("GIVEN the stall refuses its own owner (a private stall on some service versions) WHEN they ask for theirs THEN they read that it is private and no seller search stands in for it", async () => {
    const seller = await world.trader();
    await listed(seller, 500);
    world.sandbox.control.injectFault({
      method: "GET",
      path: "/users/*/stall",
      kind: "status",
      status: 403,
      times: 1,
    });
    const searches = world.hits("GET /listings");

    const error = await rejection(() => myListings(seller.deps, { platformId: seller.platformId }));

    expect(error).toMatchObject({ code: "forbidden" });
    expect((error as UserFacingError).userMessage).toContain("Your stall is private");
    expect(world.hits("GET /listings")).toBe(searches);
  });
});

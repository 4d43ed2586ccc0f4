// Bidding against the real sandbox's proxy bidding, with tracked bids in a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTrackedBid, listBidsForUser } from "../../src/db/repos/bids.ts";
import type { UserFacingError } from "../../src/errors.ts";
import { placeBid } from "../../src/trading/bid.ts";
import { rejection, startTradingWorld, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

const BID = "POST /listings/{listing_id}/bid";

function auction(reserve: number) {
  return world.sandbox.control.createListing({ type: "auction", price: reserve, reserve_price: reserve });
}

describe("placeBid", () => {
  it("GIVEN an auction WHEN the user bids, a rival outbids and the user raises THEN the user leads again and one tracked bid holds the new ceiling", async () => {
    const bidder = await world.trader();
    const a = auction(1_000);

    const first = await placeBid(bidder.deps, {
      userId: bidder.userId,
      listingId: a.id,
      maxPriceCents: 2_000,
    });
    expect(first).toMatchObject({
      youAreTop: true,
      topBidCents: 1_000,
      minNextBidCents: 1_050,
      maxPriceCents: 2_000,
    });
    expect(first.expiresAt).toBeInstanceOf(Date);
    expect(await getTrackedBid(world.db.prisma, bidder.userId, a.id)).toMatchObject({
      maxPriceCents: 2_000,
      status: "active",
      lastSeenTopBidCents: 1_000,
      lastSeenTopBidderIsUser: true,
    });

    world.sandbox.control.placeCompetingBid(a.id, 3_000);
    const raised = await placeBid(bidder.deps, {
      userId: bidder.userId,
      listingId: a.id,
      maxPriceCents: 4_000,
    });

    expect(raised).toMatchObject({ youAreTop: true, topBidCents: 3_050, minNextBidCents: 3_100 });
    const rows = await listBidsForUser(world.db.prisma, bidder.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      listingId: a.id,
      maxPriceCents: 4_000,
      status: "active",
      lastSeenTopBidCents: 3_050,
    });
  });

  it("GIVEN a rival with a higher ceiling WHEN the user bids THEN the reply says they are not on top and the tracked bid is already outbid", async () => {
    const bidder = await world.trader();
    const a = auction(1_000);
    world.sandbox.control.placeCompetingBid(a.id, 5_000);

    const result = await placeBid(bidder.deps, {
      userId: bidder.userId,
      listingId: a.id,
      maxPriceCents: 2_000,
    });

    expect(result).toMatchObject({ youAreTop: false, topBidCents: 2_050 });
    expect(await getTrackedBid(world.db.prisma, bidder.userId, a.id)).toMatchObject({
      status: "outbid",
      lastSeenTopBidderIsUser: false,
    });
  });

  it("GIVEN a ceiling below the minimum next bid WHEN the user bids THEN the message names the minimum and no bid is sent", async () => {
    const bidder = await world.trader();
    const a = auction(1_000);
    const bidsBefore = world.hits(BID);

    const error = await rejection(() =>
      placeBid(bidder.deps, { userId: bidder.userId, listingId: a.id, maxPriceCents: 999 }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((error as UserFacingError).userMessage).toContain("the minimum next bid is $10.00");
    expect(world.hits(BID)).toBe(bidsBefore);
    expect(await getTrackedBid(world.db.prisma, bidder.userId, a.id)).toBeNull();
  });

  it("GIVEN a buy-now listing WHEN the user bids THEN they are pointed to /buy", async () => {
    const bidder = await world.trader();
    const l = world.sandbox.control.createListing({ price: 1_000 });

    const error = await rejection(() =>
      placeBid(bidder.deps, { userId: bidder.userId, listingId: l.id, maxPriceCents: 2_000 }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((error as UserFacingError).userMessage).toContain("/buy");
  });

  it("GIVEN a per-purchase cap WHEN the ceiling exceeds it THEN spend_cap and no bid is sent", async () => {
    const bidder = await world.trader({ perPurchaseCapCents: 1_500 });
    const a = auction(1_000);
    const bidsBefore = world.hits(BID);

    const error = await rejection(() =>
      placeBid(bidder.deps, { userId: bidder.userId, listingId: a.id, maxPriceCents: 2_000 }),
    );

    expect(error).toMatchObject({ code: "spend_cap", context: { cap: 1_500 } });
    expect(world.hits(BID)).toBe(bidsBefore);
  });

  it("GIVEN the bid request hangs WHEN the client times out THEN unknown_outcome says re-bidding is safe and nothing is tracked", async () => {
    const bidder = await world.trader();
    const market = world.extraClient({ timeoutMs: 300 }).forKey(bidder.apiKey);
    const a = auction(1_000);
    world.sandbox.control.injectFault({ method: "POST", path: "/listings/*/bid", kind: "hang", times: 1 });
    const bidsBefore = world.hits(BID);

    const error = await rejection(() =>
      placeBid({ ...bidder.deps, market }, { userId: bidder.userId, listingId: a.id, maxPriceCents: 2_000 }),
    );

    expect(error).toMatchObject({ code: "unknown_outcome" });
    expect((error as UserFacingError).userMessage).toContain("Run /bid again with the same ceiling");
    expect(world.hits(BID) - bidsBefore).toBe(1);
    expect(await getTrackedBid(world.db.prisma, bidder.userId, a.id)).toBeNull();
  });
});

// Bidding against the real sandbox's proxy bidding, with tracked bids in a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTrackedBid, listBidsForUser } from "../../src/db/repos/bids.ts";
import { bidEmbed } from "../../src/discord/render/trading.ts";
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

    // The rival's ceiling plus the sandbox's live-like $1 step (docs/live-service.md).
    expect(raised).toMatchObject({ youAreTop: true, topBidCents: 3_100, minNextBidCents: 3_200 });
    const rows = await listBidsForUser(world.db.prisma, bidder.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      listingId: a.id,
      maxPriceCents: 4_000,
      status: "active",
      lastSeenTopBidCents: 3_100,
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

  it("GIVEN a rival who set the same ceiling first WHEN the user bids it THEN the earlier bid leads: the reply says so, the ceiling is released and the tracked bid is outbid", async () => {
    const bidder = await world.trader();
    const a = auction(1_000);
    world.sandbox.control.placeCompetingBid(a.id, 4_000);

    const result = await placeBid(bidder.deps, {
      userId: bidder.userId,
      listingId: a.id,
      maxPriceCents: 4_000,
    });

    expect(result).toMatchObject({ youAreTop: false, topBidCents: 4_000 });
    expect(JSON.stringify(bidEmbed(result))).toContain("with equal ceilings the earlier bid leads");
    expect(await getTrackedBid(world.db.prisma, bidder.userId, a.id)).toMatchObject({
      status: "outbid",
      lastSeenTopBidderIsUser: false,
    });
    const commitments = await world.db.prisma.purchase.findMany({
      where: { userId: bidder.userId, kind: "bid", subjectId: a.id },
    });
    expect(commitments.map((c) => c.status)).toEqual(["released"]);
  });

  it("GIVEN a fresh auction WHEN the user bids exactly its reserve (the standing price equals the ceiling) THEN their own bidder id tells they lead and the ceiling stays held", async () => {
    const bidder = await world.trader();
    const a = auction(1_000);

    const result = await placeBid(bidder.deps, {
      userId: bidder.userId,
      listingId: a.id,
      maxPriceCents: 1_000,
    });

    expect(result).toMatchObject({ youAreTop: true, topBidCents: 1_000 });
    const commitments = await world.db.prisma.purchase.findMany({
      where: { userId: bidder.userId, kind: "bid", subjectId: a.id },
    });
    expect(commitments.map((c) => c.status)).toEqual(["open"]);
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

// Outbid and auction results: tracked bids polled once per auction, one DM per outbid episode and per outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeBid } from "../../../src/trading/bid.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

const HOUR = 3_600_000;

let w: World;
let alice: DoubleUser;
let bob: DoubleUser;
let aliceId: number;
let bobId: number;

beforeAll(async () => {
  w = await startWorld();
  ({ user: alice, id: aliceId } = await w.linkDemo("alice"));
  ({ user: bob, id: bobId } = await w.linkDemo("bob"));
});

afterAll(async () => {
  await w?.close();
});

function bidAs(user: "alice" | "bob", listingId: string, maxPriceCents: number) {
  return placeBid(
    { market: w.market.forKey(w.demo(user).apiKey), logger: w.logger, prisma: w.db.prisma },
    { userId: user === "alice" ? aliceId : bobId, listingId, maxPriceCents },
  );
}

function auction() {
  return w.sandbox.control.createListing({
    market_hash_name: uniqueItemName("auction"),
    type: "auction",
    reserve_price: 1_000,
    auction_duration_ms: HOUR,
  });
}

const dmsAbout = (user: DoubleUser, listingId: string) =>
  w.double.dmsTo(user.id).filter((m) => textOf(m).includes(`Listing ${listingId}`));

const listingReads = () => w.sandbox.control.stats().routes["GET /listings/{listing_id}"]?.total ?? 0;

describe("bid poller", () => {
  it("GIVEN a tracked bid WHEN a rival passes the ceiling THEN one outbid DM with the new top bid and a Raise bid button", async () => {
    const engine = w.engine();
    const listing = auction();
    const placed = await bidAs("alice", listing.id, 5_000);
    expect(placed.youAreTop).toBe(true);

    const calm = await engine.runBidsOnce();
    expect(calm.outbid).toBe(0);

    w.sandbox.control.placeCompetingBid(listing.id, 9_000);
    const hit = await engine.runBidsOnce();
    expect(hit.outbid).toBe(1);
    await engine.runDeliveryOnce();

    const [dm, ...more] = dmsAbout(alice, listing.id);
    expect(more).toHaveLength(0);
    if (dm === undefined) throw new Error("no outbid DM");
    const text = textOf(dm);
    expect(text).toContain("Outbid");
    expect(text).toContain("$50.00"); // the user's ceiling
    const top = (await w.market.forKey(w.sandbox.operatorKey).getListing(listing.id)).auction_details
      ?.top_bid;
    expect(top?.price).toBeGreaterThan(5_000);
    expect(text).toContain(`$${((top?.price ?? 0) / 100).toFixed(2)}`);
    expect(text).toMatch(/<t:\d+:R>/);
    expect(JSON.stringify(dm.components)).toContain(`alert.bid:${listing.id}:${alice.id}`);

    // The rival outbids again: still the same episode, no second DM.
    w.sandbox.control.placeCompetingBid(listing.id, 12_000);
    const again = await engine.runBidsOnce();
    expect(again.outbid).toBe(0);
    await engine.runDeliveryOnce();
    expect(dmsAbout(alice, listing.id)).toHaveLength(1);
  });

  it("GIVEN an outbid user who raises WHEN passed again THEN a new outbid DM", async () => {
    const engine = w.engine();
    const listing = auction();
    await bidAs("alice", listing.id, 2_000);
    w.sandbox.control.placeCompetingBid(listing.id, 3_000);
    await engine.runBidsOnce();
    await engine.runDeliveryOnce();
    expect(dmsAbout(alice, listing.id)).toHaveLength(1);

    const raised = await bidAs("alice", listing.id, 6_000);
    expect(raised.youAreTop).toBe(true);
    expect((await engine.runBidsOnce()).outbid).toBe(0);
    w.sandbox.control.placeCompetingBid(listing.id, 8_000);
    expect((await engine.runBidsOnce()).outbid).toBe(1);
    await engine.runDeliveryOnce();
    expect(dmsAbout(alice, listing.id)).toHaveLength(2);
  });

  it("GIVEN auctions that end WHEN the poller sees them THEN the leader gets a won DM and the outbid bidder a lost DM, once", async () => {
    const engine = w.engine();
    const won = auction();
    const lost = auction();
    await bidAs("alice", won.id, 4_000);
    await bidAs("bob", lost.id, 2_000);
    w.sandbox.control.placeCompetingBid(lost.id, 7_000);
    await engine.runBidsOnce();

    w.sandbox.control.advanceClock(HOUR + 60_000);
    // Every auction of this file has ended by now: each tracked bid gets its outcome.
    const ended = await engine.runBidsOnce();
    expect(ended.ended).toBe(
      await w.db.prisma.trackedBid.count({ where: { status: { in: ["won", "lost"] } } }),
    );
    await engine.runDeliveryOnce();
    expect((await engine.runBidsOnce()).listings).toBe(0); // finished bids are no longer polled
    await engine.runDeliveryOnce();

    const wonDms = dmsAbout(alice, won.id);
    expect(wonDms).toHaveLength(1);
    expect(textOf(wonDms[0] as (typeof wonDms)[0])).toContain("You won");
    const lostDms = dmsAbout(bob, lost.id).filter((m) => textOf(m).includes("Auction lost"));
    expect(lostDms).toHaveLength(1);
    const statuses = await w.db.prisma.trackedBid.findMany({
      where: { listingId: { in: [won.id, lost.id] } },
      select: { status: true, listingId: true },
    });
    expect(statuses.find((s) => s.listingId === won.id)?.status).toBe("won");
    expect(statuses.find((s) => s.listingId === lost.id)?.status).toBe("lost");
  });

  it("GIVEN two users bidding on one auction WHEN the poller runs THEN it reads that auction once per cycle", async () => {
    const engine = w.engine();
    const shared = auction();
    await bidAs("alice", shared.id, 3_000);
    await bidAs("bob", shared.id, 4_000);
    await engine.runBidsOnce();
    const openListings = new Set(
      (
        await w.db.prisma.trackedBid.findMany({
          where: { status: { in: ["active", "outbid"] } },
          select: { listingId: true },
        })
      ).map((b) => b.listingId),
    );

    const before = listingReads();
    await engine.runBidsOnce();

    expect(listingReads() - before).toBe(openListings.size);
    expect(await w.db.prisma.trackedBid.count({ where: { listingId: shared.id } })).toBe(2);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  getTrackedBid,
  listBidsForUser,
  listOpenBids,
  recordBidObservation,
  trackBid,
  transitionBid,
  untrackBid,
} from "../../../src/db/repos/bids.ts";
import {
  advanceBoughtCount,
  listTrackedBuyOrders,
  trackBuyOrder,
  untrackBuyOrder,
} from "../../../src/db/repos/buyOrders.ts";
import { getCommandHash, setCommandHash } from "../../../src/db/repos/state.ts";
import { advanceHighWaterMark, getPollerState, setPollerState } from "../../../src/db/repos/state.ts";
import {
  claimTradeReminder,
  closeTrade,
  getTrackedTrade,
  listOpenTrades,
  markTradeNotified,
  upsertTrackedTrade,
} from "../../../src/db/repos/trades.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { DAY_MS } from "../../support/clock.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
const newUser = () => ensureUser(db.prisma, `${400000000000000000n + BigInt(++seq)}`);

describe("tracked bids", () => {
  it("GIVEN a bid WHEN tracked, observed and outbid by two pollers at once THEN the transition is reported once", async () => {
    const user = await newUser();
    const bid = await trackBid(db.prisma, {
      userId: user.id,
      listingId: "9001",
      maxPriceCents: 12_345,
      expiresAt: new Date(Date.now() + 30 * DAY_MS),
    });
    expect(bid).toMatchObject({ status: "active", maxPriceCents: 12_345, lastSeenTopBidCents: null });
    await recordBidObservation(db.prisma, bid.id, { topBidCents: 12_000, topBidderIsUser: true });
    expect(await getTrackedBid(db.prisma, user.id, "9001")).toMatchObject({
      lastSeenTopBidCents: 12_000,
      lastSeenTopBidderIsUser: true,
    });

    const moves = await Promise.all([
      transitionBid(db.prisma, bid.id, ["active"], "outbid"),
      transitionBid(db.prisma, bid.id, ["active"], "outbid"),
    ]);
    expect(moves.filter(Boolean)).toHaveLength(1);
    expect((await listOpenBids(db.prisma)).map((b) => b.id)).toContain(bid.id);

    // Raising the bid makes it active again at the new ceiling.
    expect(
      await trackBid(db.prisma, { userId: user.id, listingId: "9001", maxPriceCents: 20_000 }),
    ).toMatchObject({
      status: "active",
      maxPriceCents: 20_000,
    });
    expect(await transitionBid(db.prisma, bid.id, ["active", "outbid"], "won")).toBe(true);
    expect((await listOpenBids(db.prisma)).map((b) => b.id)).not.toContain(bid.id);
    expect(await listBidsForUser(db.prisma, user.id)).toHaveLength(1);
    expect(await untrackBid(db.prisma, user.id, "9001")).toBe(true);
  });
});

describe("tracked trades", () => {
  it("GIVEN a trade WHEN its state changes THEN each state is notified once, reminders are claimed once, and closing stops polling", async () => {
    const user = await newUser();
    const t = await upsertTrackedTrade(db.prisma, {
      userId: user.id,
      tradeId: "T1",
      role: "seller",
      state: "pending",
    });
    expect(await markTradeNotified(db.prisma, t.id, "pending")).toBe(true);
    expect(await markTradeNotified(db.prisma, t.id, "pending")).toBe(false);
    await upsertTrackedTrade(db.prisma, {
      userId: user.id,
      tradeId: "T1",
      role: "seller",
      state: "accepted",
    });
    expect(await markTradeNotified(db.prisma, t.id, "accepted")).toBe(true);

    const now = new Date();
    const claims = await Promise.all([
      claimTradeReminder(db.prisma, t.id, now),
      claimTradeReminder(db.prisma, t.id, now),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await getTrackedTrade(db.prisma, user.id, "T1")).toMatchObject({
      remindersSent: 1,
      lastKnownState: "accepted",
    });

    expect((await listOpenTrades(db.prisma, { userId: user.id })).map((x) => x.id)).toEqual([t.id]);
    expect(await closeTrade(db.prisma, t.id, "verified")).toBe(true);
    expect(await closeTrade(db.prisma, t.id, "verified")).toBe(false);
    expect(await listOpenTrades(db.prisma, { userId: user.id })).toEqual([]);
  });
});

describe("tracked buy orders", () => {
  it("GIVEN a buy order WHEN two pollers see the same fill THEN only one advances the count", async () => {
    const user = await newUser();
    const order = await trackBuyOrder(db.prisma, { userId: user.id, orderId: "B1" });
    expect(
      (await trackBuyOrder(db.prisma, { userId: user.id, orderId: "B1", boughtCount: 5 })).lastBoughtCount,
    ).toBe(0);
    const moves = await Promise.all([
      advanceBoughtCount(db.prisma, order.id, 0, 2),
      advanceBoughtCount(db.prisma, order.id, 0, 2),
    ]);
    expect(moves.filter(Boolean)).toHaveLength(1);
    expect((await listTrackedBuyOrders(db.prisma, { userId: user.id }))[0]?.lastBoughtCount).toBe(2);
    expect(await untrackBuyOrder(db.prisma, user.id, "B1")).toBe(true);
  });
});

describe("poller state", () => {
  it("GIVEN a feed high-water mark WHEN pollers advance it THEN it only moves forward, comparing ids as numbers", async () => {
    const t0 = new Date("2030-01-01T00:00:00Z");
    expect(await getPollerState(db.prisma, "feed")).toBeNull();
    expect(await advanceHighWaterMark(db.prisma, "feed", "999", t0)).toBe(true);
    expect(await advanceHighWaterMark(db.prisma, "feed", "1000", t0)).toBe(true);
    expect(await advanceHighWaterMark(db.prisma, "feed", "998", t0)).toBe(false);
    expect(await advanceHighWaterMark(db.prisma, "feed", "5", new Date(t0.getTime() - 1000))).toBe(false);
    expect(await getPollerState(db.prisma, "feed")).toMatchObject({
      highWaterMark: "1000",
      highWaterCreatedAt: t0,
    });
    await expect(advanceHighWaterMark(db.prisma, "feed", "1; drop", t0)).rejects.toThrow(RangeError);
  });

  it("GIVEN extra state stored as JSON WHEN read THEN it is parsed with the caller's schema", async () => {
    const Extra = z.object({ cursor: z.string(), seen: z.number() });
    await setPollerState(db.prisma, "bids", { extra: { cursor: "abc", seen: 3 } });
    expect((await getPollerState(db.prisma, "bids", Extra))?.extra).toEqual({ cursor: "abc", seen: 3 });
    await setPollerState(db.prisma, "bids", { extra: { cursor: 1 } });
    await expect(getPollerState(db.prisma, "bids", Extra)).rejects.toThrow();
    await setPollerState(db.prisma, "bids", { extra: null });
    expect((await getPollerState(db.prisma, "bids", Extra))?.extra).toBeUndefined();
  });
});

describe("command registration", () => {
  it("GIVEN a scope WHEN a hash is stored twice THEN the latest is returned", async () => {
    expect(await getCommandHash(db.prisma, "global")).toBeNull();
    await setCommandHash(db.prisma, "global", "h1");
    await setCommandHash(db.prisma, "global", "h2");
    expect(await getCommandHash(db.prisma, "global")).toBe("h2");
  });
});

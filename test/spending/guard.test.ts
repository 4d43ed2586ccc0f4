// One spending guard for every path that can commit money: buys, bids and offers share the caps,
// atomically, and a commitment stops counting the moment it ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spentInWindow } from "../../src/db/repos/purchases.ts";
import type { UserFacingError } from "../../src/errors.ts";
import { randomUUID } from "node:crypto";
import { capsOf, describeCaps, endStanding, recordFill } from "../../src/spending/guard.ts";
import { cancelBuyOrder, createBuyOrder } from "../../src/trading/buyOrders.ts";
import { placeBid } from "../../src/trading/bid.ts";
import { confirmBuy } from "../../src/trading/buy.ts";
import { makeOffer } from "../../src/trading/offers.ts";
import { rejection, startTradingWorld, type Trader, type TradingWorld } from "../trading/world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

const PRICE = 999;

function buyNow(price = PRICE) {
  return world.sandbox.control.createListing({ type: "buy_now", price, max_offer_discount: 5_000 });
}

function auction(reserve = 500) {
  return world.sandbox.control.createListing({ type: "auction", reserve_price: reserve });
}

/** Every kind of spend the trader can attempt, each committing `PRICE` cents. */
function attempts(t: Trader, n: number): (() => Promise<unknown>)[] {
  const out: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < n; i += 1) {
    const kind = i % 4;
    if (kind === 0) {
      const l = buyNow();
      out.push(() =>
        confirmBuy(t.deps, {
          userId: t.userId,
          listingId: l.id,
          expectedPriceCents: PRICE,
          idempotencyKey: `race-buy-${t.userId}-${i}`,
        }),
      );
    } else if (kind === 1) {
      const l = auction();
      out.push(() => placeBid(t.deps, { userId: t.userId, listingId: l.id, maxPriceCents: PRICE }));
    } else if (kind === 2) {
      const l = buyNow(PRICE * 2);
      out.push(() => makeOffer(t.deps, { userId: t.userId, listingId: l.id, priceCents: PRICE }));
    } else {
      const name = buyNow().item.market_hash_name;
      out.push(() =>
        createBuyOrder(t.deps, {
          userId: t.userId,
          idempotencyKey: `race-order-${t.userId}-${i}`,
          itemName: name,
          maxPriceCents: PRICE,
          quantity: 1,
        }),
      );
    }
  }
  return out;
}

describe("spending guard", () => {
  it("GIVEN a $10 daily cap WHEN two $9.99 bids are placed THEN the second is refused and never reaches the marketplace", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 1_000 });
    const first = auction();
    const second = auction();
    const bidsBefore = world.hits("POST /listings/{listing_id}/bid");

    await placeBid(t.deps, { userId: t.userId, listingId: first.id, maxPriceCents: PRICE });
    const error = await rejection(() =>
      placeBid(t.deps, { userId: t.userId, listingId: second.id, maxPriceCents: PRICE }),
    );

    expect(error).toMatchObject({ code: "spend_cap" });
    expect((error as UserFacingError).userMessage).toContain("A bid ceiling of $9.99");
    expect((error as UserFacingError).userMessage).toContain("no bid was placed");
    expect(world.hits("POST /listings/{listing_id}/bid") - bidsBefore).toBe(1);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(PRICE);
  });

  it("GIVEN a $10 per-purchase cap WHEN an offer of $550 is made THEN it is refused and nothing is sent", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 1_000 });
    const l = buyNow(60_000);
    const offersBefore = world.hits("POST /offers");

    const error = await rejection(() =>
      makeOffer(t.deps, { userId: t.userId, listingId: l.id, priceCents: 55_000 }),
    );

    expect(error).toMatchObject({ code: "spend_cap" });
    expect((error as UserFacingError).userMessage).toContain("An offer of $550.00");
    expect(world.hits("POST /offers") - offersBefore).toBe(0);
  });

  it("GIVEN a standing bid WHEN the user raises it THEN only the new ceiling counts, and a lost bid releases it", async () => {
    const t = await world.trader({ perPurchaseCapCents: 5_000, dailyCapCents: 5_000 });
    const l = auction();

    await placeBid(t.deps, { userId: t.userId, listingId: l.id, maxPriceCents: 2_000 });
    await placeBid(t.deps, { userId: t.userId, listingId: l.id, maxPriceCents: 4_000 });
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(4_000);

    // The auction is lost (the bid poller ends the standing commitment this way).
    const ended = await endStanding(
      world.db.prisma,
      { userId: t.userId, kind: "bid", subjectId: l.id },
      { releasedBecause: "lost" },
    );
    expect(ended).toBe(true);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(0);
  });

  it("GIVEN an offer WHEN a new offer replaces it THEN only the new price counts", async () => {
    const t = await world.trader({ perPurchaseCapCents: 5_000, dailyCapCents: 5_000 });
    const l = buyNow(4_000);

    await makeOffer(t.deps, { userId: t.userId, listingId: l.id, priceCents: 3_000 });
    await makeOffer(t.deps, { userId: t.userId, listingId: l.id, priceCents: 3_500 });

    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(3_500);
  });

  it("GIVEN a $50 daily cap WHEN 60 buys, bids, offers and buy orders of $9.99 race THEN exactly five commit and the marketplace sees only those", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 5_000 });
    const tries = attempts(t, 60);
    const sent = () =>
      world.hits("POST /listings/buy") +
      world.hits("POST /listings/{listing_id}/bid") +
      world.hits("POST /offers") +
      world.hits("POST /buy-orders");
    const before = sent();

    const results = await Promise.allSettled(tries.map((attempt) => attempt()));

    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter(
      (r) => r.status === "rejected" && (r.reason as UserFacingError).code === "spend_cap",
    );
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(55);
    expect(sent() - before).toBe(5);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(5 * PRICE);
  });

  it("GIVEN caps WHEN they are described THEN the confirmation line names both caps and what is left", async () => {
    const t = await world.trader({ perPurchaseCapCents: 10_000, dailyCapCents: 30_000 });
    await placeBid(t.deps, { userId: t.userId, listingId: auction().id, maxPriceCents: 2_500 });

    const line = describeCaps(await capsOf(world.db.prisma, t.userId));

    expect(line).toBe(
      "Your caps: $100.00 per purchase, $300.00 a day ($25.00 committed, $275.00 left). Change them with /account settings.",
    );
  });

  it("GIVEN $10 caps WHEN a buy order for 50 items at $40 is placed THEN it is refused before anything is sent", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 1_000 });
    const ordersBefore = world.hits("POST /buy-orders");

    const error = await rejection(() =>
      createBuyOrder(t.deps, {
        userId: t.userId,
        idempotencyKey: randomUUID(),
        itemName: buyNow().item.market_hash_name,
        maxPriceCents: 4_000,
        quantity: 50,
      }),
    );

    expect(error).toMatchObject({ code: "spend_cap" });
    expect((error as UserFacingError).userMessage).toContain(
      "This buy order commits $2,000.00 ($40.00 per item)",
    );
    expect(world.hits("POST /buy-orders") - ordersBefore).toBe(0);
  });

  it("GIVEN an open buy order holding price x quantity WHEN it is cancelled THEN its exposure is released at once", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 1_000 });
    const name = buyNow().item.market_hash_name;
    const order = (quantity: number) =>
      createBuyOrder(t.deps, {
        userId: t.userId,
        idempotencyKey: randomUUID(),
        itemName: name,
        maxPriceCents: 200,
        quantity,
      });

    const first = await order(4);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(800);
    await expect(order(2)).rejects.toMatchObject({ code: "spend_cap" });

    await cancelBuyOrder(t.deps, { userId: t.userId, orderId: first.orderId });
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(0);
    await expect(order(2)).resolves.toMatchObject({ quantity: 2 });
  });

  it("GIVEN an open buy order WHEN items are bought THEN that part turns into spend and the rest stays committed", async () => {
    const t = await world.trader({ perPurchaseCapCents: 1_000, dailyCapCents: 5_000 });
    const o = await createBuyOrder(t.deps, {
      userId: t.userId,
      idempotencyKey: randomUUID(),
      itemName: buyNow().item.market_hash_name,
      maxPriceCents: 300,
      quantity: 4,
    });
    const fill = (bought: number, newly: number) =>
      recordFill(world.db.prisma, {
        userId: t.userId,
        orderId: o.orderId,
        priceCents: 300,
        newlyBought: newly,
        stillWanted: 4 - bought,
        boughtCount: bought,
      });

    expect(await fill(1, 1)).toBe(true);
    await fill(1, 1); // the same fill seen twice (a retried poll) counts once
    const rows = await world.db.prisma.purchase.findMany({
      where: { userId: t.userId },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.status, Number(r.totalCents)])).toEqual([
      ["open", 900],
      ["succeeded", 300],
    ]);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(1_200);

    await fill(4, 3);
    expect(await spentInWindow(world.db.prisma, t.userId)).toBe(1_200);
    const after = await world.db.prisma.purchase.findMany({
      where: { userId: t.userId },
      orderBy: { id: "asc" },
    });
    expect(after.map((r) => r.status)).toEqual(["released", "succeeded", "succeeded"]);
  });
});

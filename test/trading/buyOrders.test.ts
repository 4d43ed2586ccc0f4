// Buy orders against the real sandbox, whose update is absolute like the service's.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarketApi } from "../../src/market/client.ts";
import {
  cancelBuyOrder,
  createBuyOrder,
  listBuyOrders,
  matchesForListing,
  similarOrders,
} from "../../src/trading/buyOrders.ts";
import { editBuyOrder } from "../../src/trading/buyOrderEdit.ts";
import { rejection, startTradingWorld, type Trader, type TradingWorld } from "./world.ts";

/** The acting user and a fresh key per action (orders go through the spending guard). */
const as = (t: Trader) => ({ userId: t.userId, idempotencyKey: randomUUID() });

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

function itemName(): string {
  return world.sandbox.control.createListing({ price: 5_000 }).item.market_hash_name;
}

/** The order as the marketplace now holds it (not as our verb reported it). */
async function stored(market: MarketApi, orderId: string) {
  const page = await market.getMyBuyOrders({ limit: 100 });
  const order = page.orders.find((o) => o.id === orderId);
  if (!order) throw new Error(`order ${orderId} not found`);
  return order;
}

describe("editBuyOrder", () => {
  it("GIVEN an order with a float range and seeds WHEN only the price changes THEN every constraint is kept", async () => {
    const buyer = await world.trader();
    const order = await createBuyOrder(buyer.deps, {
      ...as(buyer),
      itemName: itemName(),
      maxPriceCents: 2_000,
      quantity: 2,
      constraints: { minFloat: 0.1, maxFloat: 0.2, paintSeeds: [7, 42] },
    });

    const edited = await editBuyOrder(buyer.deps, {
      ...as(buyer),
      orderId: order.orderId,
      maxPriceCents: 2_500,
    });

    expect(edited).toMatchObject({ maxPriceCents: 2_500, quantity: 2 });
    const now = await stored(buyer.market, order.orderId);
    expect(now.price).toBe(2_500);
    expect(now.qty).toBe(2);
    expect(now.hybrid_properties).toMatchObject({ min_float: 0.1, max_float: 0.2, paint_seeds: [7, 42] });
  });

  it("GIVEN an order with a float range and seeds WHEN `clear` names the seeds THEN only the seeds go", async () => {
    const buyer = await world.trader();
    const order = await createBuyOrder(buyer.deps, {
      ...as(buyer),
      itemName: itemName(),
      maxPriceCents: 2_000,
      constraints: { minFloat: 0.1, maxFloat: 0.2, paintSeeds: [7] },
    });

    const edited = await editBuyOrder(buyer.deps, {
      ...as(buyer),
      orderId: order.orderId,
      clear: ["paintSeeds"],
    });

    expect(edited.constraints).toEqual({ minFloat: 0.1, maxFloat: 0.2 });
    const now = await stored(buyer.market, order.orderId);
    expect(now.hybrid_properties?.paint_seeds).toBeUndefined();
    expect(now.hybrid_properties).toMatchObject({ min_float: 0.1, max_float: 0.2 });
    expect(now.price).toBe(2_000);
  });

  it("GIVEN a kept min float WHEN the new max float is below it THEN invalid_input and the order is untouched", async () => {
    const buyer = await world.trader();
    const order = await createBuyOrder(buyer.deps, {
      ...as(buyer),
      itemName: itemName(),
      maxPriceCents: 2_000,
      constraints: { minFloat: 0.3, maxFloat: 0.4 },
    });

    const error = await rejection(() =>
      editBuyOrder(buyer.deps, { ...as(buyer), orderId: order.orderId, constraints: { maxFloat: 0.2 } }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((await stored(buyer.market, order.orderId)).hybrid_properties).toMatchObject({
      min_float: 0.3,
      max_float: 0.4,
    });
  });

  it("GIVEN more orders than one page WHEN the oldest is edited THEN it is found and changed", async () => {
    const buyer = await world.trader();
    const name = itemName();
    const oldest = await createBuyOrder(buyer.deps, {
      ...as(buyer),
      itemName: name,
      maxPriceCents: 300,
      constraints: { paintIndex: 44 },
    });
    for (let i = 0; i < 55; i++)
      await buyer.market.createBuyOrder({ market_hash_name: name, max_price: 100, quantity: 1 });

    const edited = await editBuyOrder(buyer.deps, { ...as(buyer), orderId: oldest.orderId, quantity: 3 });

    expect(edited).toMatchObject({ orderId: oldest.orderId, quantity: 3, maxPriceCents: 300 });
    expect(edited.constraints).toEqual({ paintIndex: 44 });
  });

  it("GIVEN an id that is not one of the user's orders WHEN edited THEN not_found", async () => {
    const buyer = await world.trader();

    const error = await rejection(() =>
      editBuyOrder(buyer.deps, { ...as(buyer), orderId: "987654321", maxPriceCents: 500 }),
    );

    expect(error).toMatchObject({ code: "not_found" });
  });
});

describe("other buy-order verbs", () => {
  it("GIVEN an order WHEN listed, matched against a listing, compared and cancelled THEN each view reflects it", async () => {
    const buyer = await world.trader();
    const l = world.sandbox.control.createListing({ price: 5_000 });
    const order = await createBuyOrder(buyer.deps, {
      ...as(buyer),
      itemName: l.item.market_hash_name,
      maxPriceCents: 4_900,
      quantity: 1,
    });

    const page = await listBuyOrders(buyer.deps, { page: 0 });
    const matches = await matchesForListing(buyer.deps, { listingId: l.id });
    const similar = await similarOrders(buyer.deps, { itemName: l.item.market_hash_name });
    await cancelBuyOrder(buyer.deps, { userId: buyer.userId, orderId: order.orderId });
    const after = await listBuyOrders(buyer.deps, { page: 0 });

    expect(page.orders.map((o) => o.orderId)).toEqual([order.orderId]);
    expect(page).toMatchObject({ total: 1, hasMore: false });
    expect(matches.some((m) => m.maxPriceCents === 4_900 && m.itemName === l.item.market_hash_name)).toBe(
      true,
    );
    expect(similar.some((m) => m.maxPriceCents === 4_900)).toBe(true);
    expect(after.orders).toEqual([]);
  });
});

// Advanced buy orders (made on the marketplace's website) against the real sandbox: a filter
// expression and no item name. Listed, repriced, matched and cancelled; their filter never touched.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editBuyOrder } from "../../src/trading/buyOrderEdit.ts";
import { cancelBuyOrder, listBuyOrders, matchesForListing } from "../../src/trading/buyOrders.ts";
import { rejection, startTradingWorld, type Trader, type TradingWorld } from "./world.ts";

const as = (t: Trader) => ({ userId: t.userId, idempotencyKey: randomUUID() });

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

/** A listing's item, and an order made on the website for it with a float ceiling. */
function websiteOrder(buyer: Trader, opts: { maxPrice?: number; quantity?: number } = {}) {
  const listing = world.sandbox.control.createListing({ price: 5_000, float_value: 0.05 });
  const order = world.sandbox.control.createWebsiteBuyOrder({
    platformId: buyer.platformId,
    marketHashName: listing.item.market_hash_name,
    maxPrice: opts.maxPrice ?? 4_000,
    quantity: opts.quantity ?? 3,
    maxFloat: 0.07,
  });
  if (order.expression === undefined) throw new Error("the sandbox made no advanced order");
  return { listing, order, expression: order.expression };
}

async function stored(buyer: Trader, orderId: string) {
  const page = await buyer.market.getMyBuyOrders({ limit: 100 });
  return page.orders.find((o) => o.id === orderId);
}

describe("advanced buy orders", () => {
  it("GIVEN an order made on the website WHEN the buyer lists orders THEN it comes with its expression and no item name", async () => {
    const buyer = await world.trader();
    const { order, expression } = websiteOrder(buyer);

    const page = await listBuyOrders(buyer.deps, { page: 0 });

    expect(page.orders).toEqual([
      expect.objectContaining({ orderId: order.id, itemName: undefined, expression, maxPriceCents: 4_000 }),
    ]);
  });

  it("GIVEN an order made on the website WHEN its price and quantity change THEN the marketplace holds them and the same expression", async () => {
    const buyer = await world.trader();
    const { order, expression } = websiteOrder(buyer);

    const edited = await editBuyOrder(buyer.deps, {
      ...as(buyer),
      orderId: order.id,
      maxPriceCents: 3_500,
      quantity: 5,
    });

    expect(edited).toMatchObject({ orderId: order.id, expression, maxPriceCents: 3_500, quantity: 5 });
    const now = await stored(buyer, order.id);
    expect(now).toMatchObject({ price: 3_500, qty: 5, expression });
    expect(now?.market_hash_name).toBeUndefined();
  });

  it("GIVEN an order made on the website WHEN a constraint change is asked THEN it is refused and no update is sent", async () => {
    const buyer = await world.trader();
    const { order, expression } = websiteOrder(buyer);
    const patches = world.hits("PATCH /buy-orders/{order_id}");

    const error = await rejection(() =>
      editBuyOrder(buyer.deps, { ...as(buyer), orderId: order.id, constraints: { minFloat: 0.01 } }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((error as Error).message).toContain("can only be edited on the website");
    expect(world.hits("PATCH /buy-orders/{order_id}")).toBe(patches);
    expect(await stored(buyer, order.id)).toMatchObject({ price: 4_000, qty: 3, expression });
  });

  it("GIVEN an order made on the website WHEN a listing it would buy is checked THEN the match shows the expression", async () => {
    const buyer = await world.trader();
    const { listing, expression } = websiteOrder(buyer, { maxPrice: 4_900, quantity: 2 });

    const matches = await matchesForListing(buyer.deps, { listingId: listing.id });

    expect(matches).toContainEqual(
      expect.objectContaining({ itemName: undefined, expression, maxPriceCents: 4_900, quantity: 2 }),
    );
  });

  it("GIVEN an order made on the website WHEN cancelled THEN it is gone", async () => {
    const buyer = await world.trader();
    const { order } = websiteOrder(buyer);

    await cancelBuyOrder(buyer.deps, { userId: buyer.userId, orderId: order.id });

    expect(await stored(buyer, order.id)).toBeUndefined();
  });
});

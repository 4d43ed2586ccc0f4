// Who counts as a rival, on its own: the user's own order taken out of its price group (a tie is a
// rival), and only comparable listings (same item, similar float, other sellers, buy-now).
import { describe, expect, it } from "vitest";
import { bestRival } from "../../src/guards/buyOrderGuard.ts";
import { cheapestRival, FLOAT_WINDOW } from "../../src/guards/listingGuard.ts";
import { BuyOrder, BuyOrderAggregate, Listing } from "../../src/market/schemas.ts";

const order = (price: number, qty = 1, bought = 0) =>
  BuyOrder.parse({ id: "1", market_hash_name: "A", price, qty, bought_item_count: bought });
const group = (price: number, qty: number) => BuyOrderAggregate.parse({ market_hash_name: "A", price, qty });

const listing = (id: string, price: number, float: number, extra: Record<string, unknown> = {}) =>
  Listing.parse({
    id,
    type: "buy_now",
    price,
    state: "listed",
    seller: { platform_id: `7656${id}` },
    item: { market_hash_name: "A", float_value: float },
    ...extra,
  });

describe("bestRival (buy orders)", () => {
  it("GIVEN only the user's own order in the answer WHEN rivals are counted THEN there is none", () => {
    expect(bestRival([group(1000, 2)], order(1000, 3, 1))).toBeUndefined();
  });

  it("GIVEN another buyer at the same price WHEN rivals are counted THEN the tie is a rival", () => {
    expect(bestRival([group(1000, 3)], order(1000, 2))).toBe(1000);
  });

  it("GIVEN rivals above and below WHEN rivals are counted THEN the highest one is the rival", () => {
    expect(bestRival([group(900, 5), group(1000, 1), group(1200, 1)], order(1000))).toBe(1200);
  });
});

describe("cheapestRival (listings)", () => {
  const own = listing("10", 2000, 0.2, { is_seller: true });

  it("GIVEN listings of other floats, the user's own and auctions WHEN compared THEN none is a rival", () => {
    const page = [
      own,
      listing("11", 500, 0.2 + FLOAT_WINDOW * 3),
      listing("12", 500, 0.2, { is_seller: true }),
      listing("13", 500, 0.2, { type: "auction" }),
      listing("14", 500, 0.2, { item: { market_hash_name: "B", float_value: 0.2 } }),
    ];
    expect(cheapestRival(own, page)).toBeUndefined();
  });

  it("GIVEN comparable listings WHEN compared THEN the cheapest is the rival", () => {
    const page = [listing("21", 1900, 0.205), listing("22", 1800, 0.195), listing("23", 2500, 0.2)];
    expect(cheapestRival(own, page)).toBe(1800);
  });
});

// Finding a buy order in the user's open orders when the service caps its pages below the size we
// ask for and sends no count: a short page is not the end, and the page guard makes "unknown".
import { describe, expect, it } from "vitest";
import { findBuyOrder } from "../../src/accountPollers/lookups.ts";
import type { MarketApi } from "../../src/market/client.ts";
import type { BuyOrder } from "../../src/market/schemas.ts";

/** 60 orders served 20 a page (below the 50 asked for), with no count; the target is the 55th. */
function cappedOrders(): { api: MarketApi; pagesRead: () => number } {
  const orders = Array.from(
    { length: 60 },
    (_, i) => ({ id: String(9_007_199_254_741_000 + i) }) as BuyOrder,
  );
  let reads = 0;
  const api = {
    async getMyBuyOrders(q: { page?: number }) {
      reads += 1;
      const page = q.page ?? 0;
      return { orders: orders.slice(page * 20, page * 20 + 20) };
    },
  } as unknown as MarketApi;
  return { api, pagesRead: () => reads };
}

const target = String(9_007_199_254_741_000 + 54);

describe("finding a buy order on capped pages", () => {
  it("GIVEN pages of 20 without a count WHEN the order is on the third page THEN it is found, the short first page not taken as the end", async () => {
    const { api, pagesRead } = cappedOrders();
    const found = await findBuyOrder(api, (o) => o.id === target, 20);
    expect(found).toMatchObject({ kind: "found", item: { id: target } });
    expect(pagesRead()).toBe(3);
  });

  it("GIVEN the same orders WHEN the page guard stops the read after two pages THEN the answer is unknown, not absent", async () => {
    const { api } = cappedOrders();
    expect(await findBuyOrder(api, (o) => o.id === target, 2)).toEqual({ kind: "unknown" });
  });

  it("GIVEN an order that is not there WHEN the read reaches the empty page after the last THEN it is absent", async () => {
    const { api } = cappedOrders();
    expect(await findBuyOrder(api, (o) => o.id === "1", 20)).toEqual({ kind: "absent" });
  });
});

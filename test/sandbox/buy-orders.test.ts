// Buy orders: create, absolute PATCH, delete, listing aggregates with ETag/304, item lookup, fills.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BuyOrder, BuyOrderAggregate, Trade } from "../../src/market/schemas.ts";
import { ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

const NAME = "Talon Sniper | Violet Drift (Lightly Used)";

describe("buy orders", () => {
  const t = useSandbox();
  const create = (body: unknown, key = t.alice) => t.api("POST", "/buy-orders", { key, body });

  it("creates an order with price = max_price, qty and bought_item_count 0", async () => {
    const o = parse(
      BuyOrder,
      await create({
        market_hash_name: NAME,
        max_price: 40_000,
        quantity: 2,
        hybrid_properties: { max_float: 0.1 },
      }),
    );
    expect(o).toMatchObject({ market_hash_name: NAME, price: 40_000, qty: 2, bought_item_count: 0 });
    expect(o.hybrid_properties?.max_float).toBe(0.1);
    for (const body of [
      { market_hash_name: NAME, max_price: -1, quantity: 1 },
      { market_hash_name: NAME, max_price: 10.5, quantity: 1 },
      { market_hash_name: NAME, max_price: 100, quantity: 0 },
      { max_price: 100, quantity: 1 },
    ]) {
      expect((await create(body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it("updates absolutely: omitted or null constraints are cleared, bought_item_count is untouched", async () => {
    const o = parse(
      BuyOrder,
      await create({
        market_hash_name: NAME,
        max_price: 30_000,
        quantity: 5,
        hybrid_properties: {
          min_float: 0.07,
          max_float: 0.1,
          paint_seeds: [1, 2],
          applied_stickers: [{ sId: 1101 }],
        },
      }),
    );
    t.sb.control.fillBuyOrder(o.id, 2);
    const res = await t.api("PATCH", `/buy-orders/${o.id}`, {
      key: t.alice,
      body: { max_price: 31_000, quantity: 6, max_float: 0.12, paint_seeds: null },
    });
    expect(res.status).toBe(200);
    const u = parse(BuyOrder, res);
    expect(u).toMatchObject({ price: 31_000, qty: 6, bought_item_count: 2 });
    expect(u.hybrid_properties).toEqual({
      min_float: undefined,
      max_float: 0.12,
      paint_index: undefined,
      paint_seeds: undefined,
      applied_stickers: undefined,
      applied_keychains: undefined,
      min_keychain_pattern: undefined,
      max_keychain_pattern: undefined,
    });
    const raw = z.object({ hybrid_properties: z.record(z.string(), z.unknown()) }).parse(res.json);
    expect(Object.keys(raw.hybrid_properties)).toEqual(["max_float"]);
    expect(
      (await t.api("PATCH", `/buy-orders/${o.id}`, { key: t.alice, body: { quantity: 1 } })).status,
    ).toBe(400);
    expect((await t.api("PATCH", `/buy-orders/${o.id}`, { key: t.bob, body: { max_price: 1 } })).status).toBe(
      404,
    );
    expect((await t.api("PATCH", "/buy-orders/12", { key: t.alice, body: { max_price: 1 } })).status).toBe(
      404,
    );
  });

  it("lists my orders with a count, and deletes one", async () => {
    const o = parse(
      BuyOrder,
      await create({ market_hash_name: NAME, max_price: 1000, quantity: 1 }, t.carol),
    );
    const Mine = z.object({ orders: z.array(BuyOrder), count: z.number().int() });
    const mine = parse(Mine, await t.api("GET", "/me/buy-orders", { key: t.carol }));
    expect(mine.count).toBe(1);
    expect(mine.orders[0]?.id).toBe(o.id);
    expect((await t.api("DELETE", `/buy-orders/${o.id}`, { key: t.carol })).status).toBe(200);
    expect(parse(Mine, await t.api("GET", "/me/buy-orders", { key: t.carol })).count).toBe(0);
    expect((await t.api("DELETE", `/buy-orders/${o.id}`, { key: t.carol })).status).toBe(404);
  });

  it("fills an order: bought_item_count rises and trades queue for its owner", async () => {
    const o = parse(BuyOrder, await create({ market_hash_name: NAME, max_price: 2000, quantity: 3 }, t.bob));
    const filled = t.sb.control.fillBuyOrder(o.id, 2);
    expect(filled.bought_item_count).toBe(2);
    const trades = parse(
      z.object({ trades: z.array(Trade) }),
      await t.api("GET", "/me/trades?role=buyer&state=queued", { key: t.bob }),
    ).trades;
    expect(trades.filter((x) => x.contract?.item.market_hash_name === NAME)).toHaveLength(2);
    expect(t.sb.control.fillBuyOrder(o.id, 5).bought_item_count).toBe(3);
  });

  it("answers the aggregates matching a listing with an ETag and 304 on If-None-Match", async () => {
    const l = t.sb.control.createListing({ market_hash_name: NAME, float_value: 0.09 });
    await create(
      { market_hash_name: NAME, max_price: 50_000, quantity: 2, hybrid_properties: { max_float: 0.095 } },
      t.carol,
    );
    await create(
      { market_hash_name: NAME, max_price: 50_000, quantity: 1, hybrid_properties: { max_float: 0.095 } },
      t.carol,
    );
    await create(
      { market_hash_name: NAME, max_price: 60_000, quantity: 1, hybrid_properties: { max_float: 0.08 } },
      t.carol,
    );
    const a = await t.api("GET", `/listings/${l.id}/buy-orders`);
    expect(a.status).toBe(200);
    const aggs = parse(z.array(BuyOrderAggregate), a);
    expect(aggs[0]).toMatchObject({ price: 50_000, qty: 3 });
    expect(aggs.every((x) => (x.hybrid_properties?.max_float ?? 1) >= 0.09)).toBe(true);
    expect(a.json).toEqual(expect.not.arrayContaining([expect.objectContaining({ id: expect.anything() })]));
    const etag = a.headers["etag"] ?? "";
    expect(etag).toMatch(/^".+"$/);
    const again = await t.api("GET", `/listings/${l.id}/buy-orders`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await create({ market_hash_name: NAME, max_price: 55_000, quantity: 1 }, t.carol);
    const changed = await t.api("GET", `/listings/${l.id}/buy-orders`, {
      headers: { "if-none-match": etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers["etag"]).not.toBe(etag);
    expect(
      parse(z.array(BuyOrderAggregate), await t.api("GET", `/listings/${l.id}/buy-orders?limit=1`)),
    ).toHaveLength(1);
  });

  it("requires url, market_hash_name and sig on GET /buy-orders/item", async () => {
    const l = t.sb.control.createListing({ market_hash_name: NAME, float_value: 0.09 });
    const q = new URLSearchParams({
      url: l.item.inspect_link ?? "",
      market_hash_name: NAME,
      sig: l.item.gs_sig ?? "",
    });
    const ok = await t.api("GET", `/buy-orders/item?${q}`);
    expect(ok.status).toBe(200);
    const orders = parse(z.array(BuyOrder), ok);
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.length).toBeLessThanOrEqual(3);
    for (const drop of ["url", "market_hash_name", "sig"]) {
      const partial = new URLSearchParams(q);
      partial.delete(drop);
      const res = await t.api("GET", `/buy-orders/item?${partial}`);
      expect(res.status).toBe(400);
      expect(parse(ErrorBodyStrict, res).message).toContain(drop);
    }
    const forged = new URLSearchParams(q);
    forged.set("sig", "0000");
    expect((await t.api("GET", `/buy-orders/item?${forged}`)).status).toBe(400);
  });

  it("answers similar orders as {data: aggregates}", async () => {
    const res = await t.api("POST", "/buy-orders/similar-orders?limit=2", {
      key: t.alice,
      body: { market_hash_name: NAME, hybrid_properties: {} },
    });
    const data = parse(z.object({ data: z.array(BuyOrderAggregate) }), res).data;
    expect(data.length).toBe(2);
    expect(data.every((d) => d.market_hash_name === NAME)).toBe(true);
    expect(
      parse(
        z.array(z.object({ price: z.number() })),
        await t.api("GET", `/history/${encodeURIComponent(NAME)}/sales`),
      ).length,
    ).toBeGreaterThan(0);
  });
});

// The sandbox answers in the shapes public clients report from the live service (docs/live-service.md), so
// the bot's own end-to-end tests meet them: string fees, website buy orders, odd and unreadable
// listings, auctions that need a duration.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

describe("live shapes", () => {
  const t = useSandbox();

  it("sends ledger fee fields as numeric strings and original_tx as a number", async () => {
    const listing = t.sb.control.createListing({ type: "buy_now", price: 1_234 });
    const buy = await t.api("POST", "/listings/buy", {
      key: t.bob,
      body: { contract_ids: [listing.id], total_price: 1_234 },
    });
    expect(buy.status).toBe(200);
    const seller = t.sb.control.users().find((u) => u.platformId === listing.seller?.platform_id);
    const sold = parse(
      z.object({ transactions: z.array(z.object({ details: z.record(z.string(), z.unknown()) })) }),
      await t.api("GET", "/me/transactions?type=contract_sold&limit=1", { key: seller?.apiKey }),
    ).transactions[0];

    expect(sold?.details).toMatchObject({ fee_amount: "0.00", fee: "0", float_fee: "0" });
    expect(typeof sold?.details["original_tx"]).toBe("number");
    const deposit = parse(
      z.object({ transactions: z.array(z.object({ details: z.record(z.string(), z.unknown()) })) }),
      await t.api("GET", "/me/transactions?type=deposit", { key: t.alice }),
    ).transactions[0];
    expect(typeof deposit?.details["fee_amount"]).toBe("string");
  });

  it("refuses an auction without duration_days, as live, and takes one with it", async () => {
    const [asset] = t.sb.control.inventory(t.aliceId);
    const without = await t.api("POST", "/listings", {
      key: t.alice,
      body: { asset_id: asset, type: "auction", reserve_price: 500 },
    });
    expect(without.status).toBe(400);
    expect(parse(ErrorBodyStrict, without).message).toContain("duration_days is required");

    const withIt = await t.api("POST", "/listings", {
      key: t.alice,
      body: { asset_id: asset, type: "auction", reserve_price: 500, duration_days: 7 },
    });
    expect(withIt.status).toBe(200);
  });

  it("keeps a website buy order with its expression and no item name through list, item lookup, edit and cancel", async () => {
    const name = t.sb.control.createListing({ price: 900 }).item.market_hash_name;
    const made = t.sb.control.createWebsiteBuyOrder({
      platformId: t.aliceId,
      marketHashName: name,
      maxPrice: 700,
      quantity: 3,
      maxFloat: 0.2,
    });
    expect(made).not.toHaveProperty("market_hash_name");
    expect(made.expression).toBe(`(and (== Item "${name}") (< FloatValue 0.2))`);

    const mine = parse(
      z.object({ orders: z.array(z.record(z.string(), z.unknown())) }),
      await t.api("GET", "/me/buy-orders", { key: t.alice }),
    ).orders.find((o) => o["id"] === made.id);
    expect(mine).toMatchObject({ expression: made.expression, price: 700, qty: 3, bought_item_count: 0 });
    expect(mine).not.toHaveProperty("market_hash_name");

    const patched = await t.api("PATCH", `/buy-orders/${made.id}`, {
      key: t.alice,
      body: { max_price: 800, quantity: 4, min_float: null, max_float: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: made.id, price: 800, qty: 4, expression: made.expression });

    const listing = t.sb.control.createListing({ market_hash_name: name, price: 5_000, float_value: 0.1 });
    const item = listing.item;
    const lookup = await t.api(
      "GET",
      `/buy-orders/item?limit=10&url=${encodeURIComponent(item.inspect_link ?? "")}&market_hash_name=${encodeURIComponent(name)}&sig=${item.gs_sig ?? ""}`,
    );
    expect(lookup.status).toBe(200);
    expect(lookup.json).toContainEqual({ expression: made.expression, qty: 4, price: 800 });

    expect((await t.api("DELETE", `/buy-orders/${made.id}`, { key: t.alice })).status).toBe(200);
    const after = parse(
      z.object({ orders: z.array(z.object({ id: z.string() })) }),
      await t.api("GET", "/me/buy-orders", { key: t.alice }),
    ).orders;
    expect(after.map((o) => o.id)).not.toContain(made.id);
  });

  it("serves an odd listing (string sticker_index, nulls in blue_gem and fade, a sticker without wear) and an unreadable one among the normal listings", async () => {
    const odd = t.sb.control.createOddListing({ price: 1_500 });
    const bad = t.sb.control.createUnreadableListing({ price: 1_600 });
    const page = parse(
      z.object({ data: z.array(z.record(z.string(), z.unknown())) }),
      await t.api("GET", "/listings?sort_by=most_recent&limit=5"),
    ).data;

    const oddJson = page.find((l) => l["id"] === odd.id) as { item: Record<string, unknown> } | undefined;
    expect(typeof oddJson?.item["sticker_index"]).toBe("string");
    expect(oddJson?.item["blue_gem"]).toMatchObject({ playside_gold: null });
    expect(oddJson?.item["fade"]).toMatchObject({ percentage: null });
    const stickers = oddJson?.item["stickers"] as Record<string, unknown>[];
    expect(stickers.length).toBeGreaterThan(0);
    expect(stickers.every((s) => !("wear" in s))).toBe(true);
    expect(page.find((l) => l["id"] === bad.id)?.["price"]).toBe("abc");
    expect(page.length).toBe(5);
  });
});

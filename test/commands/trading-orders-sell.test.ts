// /buyorder and /sell end to end: constraints survive edits, bulk removal reports per listing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bot, BotUser } from "../support/harness.ts";
import type { StoredMessage } from "../support/discord.ts";
import {
  answer,
  buttonId,
  hits,
  isEphemeral,
  textOf,
  totalHits,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

const footerId = (m: StoredMessage, noun: string) => {
  const footer = m.embeds[0]?.footer?.text ?? "";
  const found = new RegExp(`${noun} (\\d+)`).exec(footer)?.[1];
  if (!found) throw new Error(`no ${noun} id in "${footer}": ${textOf(m)}`);
  return found;
};

async function sandboxOrder(orderId: string) {
  const page = await market.as(alice).getMyBuyOrders({ limit: 100 });
  return page.orders.find((o) => o.id === orderId);
}

// A name from the sandbox catalog: /buyorder create refuses names that are no item.
const ITEM = "Falcon Rifle | Glacier Veil (Field Worn)";

describe("/buyorder", () => {
  it("GIVEN an order with a float range WHEN only its price is edited, then some constraints cleared THEN every other constraint stays", async () => {
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: ITEM,
        max_price: "12.50",
        quantity: 3,
        min_float: "0.15",
        max_float: "0.2",
        paint_seeds: "661, 670",
        stickers: "1101",
      }),
    );
    expect(isEphemeral(confirmation)).toBe(true);
    expect(textOf(confirmation)).toContain("$37.50");
    const created = await answer(
      bot.double.button(alice, buttonId(confirmation, "Place order"), confirmation),
    );
    expect(textOf(created)).toContain("Buy order created");
    const orderId = footerId(created, "Buy order");
    const initial = await sandboxOrder(orderId);
    expect(initial?.price).toBe(1250);
    expect(initial?.hybrid_properties).toMatchObject({
      min_float: 0.15,
      max_float: 0.2,
      paint_seeds: [661, 670],
    });

    // A higher price raises what the order can spend, so it is confirmed first.
    const raise = await answer(bot.double.slash(alice, "buyorder edit", { order: orderId, max_price: "15" }));
    expect(textOf(raise)).toContain("$45.00");
    const edited = await answer(bot.double.button(alice, buttonId(raise, "Save changes"), raise));
    expect(textOf(edited)).toContain("Buy order updated");
    expect(textOf(edited)).toContain("float 0.15–0.2");
    const afterEdit = await sandboxOrder(orderId);
    expect(afterEdit?.price).toBe(1500);
    expect(afterEdit?.qty).toBe(3);
    expect(afterEdit?.hybrid_properties).toMatchObject({
      min_float: 0.15,
      max_float: 0.2,
      paint_seeds: [661, 670],
      applied_stickers: [{ sId: 1101 }],
    });

    const cleared = await answer(
      bot.double.slash(alice, "buyorder edit", { order: orderId, clear: "stickers, paint_seeds" }),
    );
    expect(textOf(cleared)).toContain("Buy order updated");
    const afterClear = await sandboxOrder(orderId);
    expect(afterClear?.price).toBe(1500);
    expect(afterClear?.hybrid_properties?.min_float).toBe(0.15);
    expect(afterClear?.hybrid_properties?.max_float).toBe(0.2);
    expect(afterClear?.hybrid_properties?.paint_seeds ?? []).toEqual([]);
    expect(afterClear?.hybrid_properties?.applied_stickers ?? []).toEqual([]);

    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    expect(textOf(listed)).toContain(orderId);

    // A listing of that item inside the range meets the order.
    const match = bot.sandbox.control.createListing({
      market_hash_name: ITEM,
      price: 1400,
      float_value: 0.17,
    });
    const matches = await answer(bot.double.slash(alice, "buyorder matches", { listing: match.id }));
    expect(textOf(matches)).toContain("$15.00");

    const cancelled = await answer(bot.double.slash(alice, "buyorder cancel", { order: orderId }));
    expect(textOf(cancelled)).toContain("cancelled");
    expect(await sandboxOrder(orderId)).toBeUndefined();
  });

  it.each([
    [{ quantity: 0 }, "`quantity`"],
    [{ max_float: "2" }, "must be between 0 and 1"],
    [{ min_float: "0.5", max_float: "0.1" }, "min_float (0.5) is above max_float (0.1)"],
    [{ max_price: "abc" }, "enter a price in dollars"],
    [{ paint_seeds: "661, x" }, "is not a pattern seed"],
    [{ item: "   " }, "`item`: must not be empty"],
  ])(
    "GIVEN %j WHEN alice creates a buy order THEN she is told why and the marketplace is not called",
    async (bad, why) => {
      const before = totalHits(bot);
      const reply = await answer(
        bot.double.slash(alice, "buyorder create", { item: ITEM, max_price: "5", quantity: 1, ...bad }),
      );
      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toContain(why);
      expect(totalHits(bot)).toBe(before);
    },
  );

  it("GIVEN an unknown constraint name in clear WHEN alice edits THEN she is told the names and nothing is sent", async () => {
    const before = totalHits(bot);
    const reply = await answer(
      bot.double.slash(alice, "buyorder edit", { order: "123456789", clear: "colour" }),
    );
    expect(textOf(reply)).toContain("is not a constraint");
    expect(textOf(reply)).toContain("min_float");
    expect(totalHits(bot)).toBe(before);
  });
});

describe("/sell", () => {
  const assets = () => bot.sandbox.control.inventory(alice.demo.platformId);

  async function list(assetId: string, options: Record<string, string | number> = {}): Promise<string> {
    const reply = await answer(
      bot.double.slash(alice, "sell list", { asset: assetId, price: "9.99", ...options }),
    );
    expect(textOf(reply)).toContain("Listed");
    return footerId(reply, "Listing");
  }

  it("GIVEN two of alice's listings WHEN she delists both THEN one bulk request removes them and each is reported", async () => {
    const [a1, a2] = assets();
    if (!a1 || !a2) throw new Error("alice needs two assets");
    const first = await list(a1);
    const second = await list(a2, { description: "mint, no scratches", max_offer_discount: "15" });
    const created = await market.as(alice).getListing(second);
    expect(created.price).toBe(999);
    expect(created.max_offer_discount).toBe(1500);

    const bulkBefore = hits(bot, "PATCH /listings/bulk-delist");
    const reply = await answer(bot.double.slash(alice, "sell delist", { listings: `${first}, ${second}` }));
    expect(textOf(reply)).toContain("Removed 2 of 2 listings");
    expect(textOf(reply)).toContain(`${first}\` removed`);
    expect(textOf(reply)).toContain(`${second}\` removed`);
    expect(hits(bot, "PATCH /listings/bulk-delist")).toBe(bulkBefore + 1);
    expect(hits(bot, "DELETE /listings/{listing_id}")).toBe(0);
    for (const id of [first, second]) expect((await market.as(alice).getListing(id)).state).toBe("delisted");
    expect(assets()).toEqual(expect.arrayContaining([a1, a2]));
  });

  it("GIVEN one of alice's listings and an unknown id WHEN she delists both THEN hers is removed and the unknown one is named", async () => {
    const [asset] = assets();
    if (!asset) throw new Error("alice has no asset");
    const mine = await list(asset);
    const reply = await answer(bot.double.slash(alice, "sell delist", { listings: `${mine} 123456789` }));
    expect(textOf(reply)).toContain("Removed 1 of 2 listings");
    expect(textOf(reply)).toContain(`${mine}\` removed`);
    expect(textOf(reply)).toContain("123456789`: no such listing");
    expect((await market.as(alice).getListing(mine)).state).toBe("delisted");
  });

  it("GIVEN alice's auction with a bid WHEN she reprices it THEN she is told it cannot be and nothing changes", async () => {
    const [asset] = assets();
    if (!asset) throw new Error("alice has no asset");
    const auction = await list(asset, { type: "auction", price: "5.00", duration_days: 3 });
    bot.sandbox.control.placeCompetingBid(auction, 800);
    const patchesBefore = hits(bot, "PATCH /listings/{listing_id}");
    const reply = await answer(bot.double.slash(alice, "sell reprice", { listing: auction, price: "20" }));
    expect(textOf(reply)).toContain("An auction cannot be repriced once bidding has opened");
    expect(hits(bot, "PATCH /listings/{listing_id}")).toBe(patchesBefore);
    expect((await market.as(alice).getListing(auction)).auction_details?.reserve_price).toBe(500);
  });

  it("GIVEN alice's listings WHEN she runs /sell mine THEN they are shown privately", async () => {
    const [asset] = assets();
    if (!asset) throw new Error("alice has no asset");
    const listingId = await list(asset);
    const reply = await answer(bot.double.slash(alice, "sell mine", {}));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain(listingId);
    expect(textOf(reply)).toContain("$9.99");
  });

  it.each([
    [{ price: "abc" }, "enter a price in dollars"],
    [{ asset: "12x" }, "asset ids are numbers"],
    [{ max_offer_discount: "150" }, "must be between 0 and 100"],
    [{ type: "auction", reserve_price: "3.00" }, "one starting price"],
  ])("GIVEN %j WHEN alice lists THEN she is told why and the marketplace is not called", async (bad, why) => {
    const before = totalHits(bot);
    const reply = await answer(
      bot.double.slash(alice, "sell list", { asset: "123456", price: "9.99", ...bad }),
    );
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain(why);
    expect(totalHits(bot)).toBe(before);
  });

  it("GIVEN a malformed id among several WHEN alice delists THEN nothing is removed and the bad id is named", async () => {
    const before = totalHits(bot);
    const reply = await answer(bot.double.slash(alice, "sell delist", { listings: "123456789, 12ab" }));
    expect(textOf(reply)).toContain('"12ab" is not an id');
    expect(totalHits(bot)).toBe(before);
  });
});

// Trading against a marketplace that answers as the live service does (docs/live-service.md), through
// Discord: auctions need a duration, sticker filters in the JSON form, refused purchases (422),
// an ignored seller filter, a sales read that fails, bulk batches that one wrong id would fail.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueItemName } from "../alerts/engine/world.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  hits,
  isEphemeral,
  labels,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

describe("live fidelity: trading through Discord", () => {
  it("GIVEN the live service requires duration_days WHEN alice lists an auction without choosing one THEN it is listed for the default 7 days, and the confirmation says so", async () => {
    const [asset] = bot.sandbox.control.inventory(alice.demo.platformId);
    if (!asset) throw new Error("alice needs an asset");

    const reply = await answer(
      bot.double.slash(alice, "sell list", { asset, type: "auction", price: "5.00" }),
    );

    expect(textOf(reply)).toContain("Listed");
    expect(textOf(reply)).toMatch(/Duration\W+7 days/);
    const id = /Listing (\d+)/.exec(textOf(reply))?.[1] ?? "";
    const listing = await market.as(alice).getListing(id);
    const days =
      (Date.parse(listing.auction_details?.expires_at ?? "") - Date.parse(listing.created_at ?? "")) /
      86_400_000;
    expect(Math.round(days)).toBe(7);
  });

  it("GIVEN alice chooses 3 days WHEN she lists an auction THEN the confirmation and the auction both say 3 days", async () => {
    const [, asset] = bot.sandbox.control.inventory(alice.demo.platformId);
    if (!asset) throw new Error("alice needs a second asset");

    const reply = await answer(
      bot.double.slash(alice, "sell list", { asset, type: "auction", price: "4.00", duration_days: 3 }),
    );

    expect(textOf(reply)).toMatch(/Duration\W+3 days/);
    const id = /Listing (\d+)/.exec(textOf(reply))?.[1] ?? "";
    const listing = await market.as(alice).getListing(id);
    const days =
      (Date.parse(listing.auction_details?.expires_at ?? "") - Date.parse(listing.created_at ?? "")) /
      86_400_000;
    expect(Math.round(days)).toBe(3);
  });

  it("GIVEN the live service honours only the JSON sticker form WHEN alice searches by sticker and slot THEN only listings with it show", async () => {
    const item = uniqueItemName("stickers");
    const withIt = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 2_000,
      stickers: [{ stickerId: 1107, slot: 2 }],
    });
    const without = bot.sandbox.control.createListing({ market_hash_name: item, price: 2_100, stickers: [] });

    const found = await answer(bot.double.slash(alice, "search", { item, stickers: "1107|2" }));

    expect(textOf(found)).toContain(withIt.id);
    expect(textOf(found)).not.toContain(without.id);
  });

  it("GIVEN the live service ignores the seller filter WHEN alice searches with seller THEN only that seller's listings show, and the reply says how they were chosen", async () => {
    const item = uniqueItemName("seller");
    const one = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    const seller = one.seller?.platform_id ?? "";
    const other = bot.sandbox.control.users().find((u) => u.kind === "seller" && u.platformId !== seller);
    const theirs = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 1_100,
      sellerPlatformId: other?.platformId ?? "",
    });

    const found = await answer(bot.double.slash(alice, "search", { item, seller }));

    expect(textOf(found)).toContain(one.id);
    expect(textOf(found)).not.toContain(theirs.id);
    expect(textOf(found)).toContain("the marketplace does not filter by seller");
  });

  it("GIVEN none of a page's listings are the seller's WHEN alice searches with seller THEN she reads that none on this page are theirs and where to see their stall, not that nothing matches", async () => {
    const item = uniqueItemName("not-theirs");
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    const seller = bot.sandbox.control
      .users()
      .find((u) => u.kind === "seller" && u.platformId !== listing.seller?.platform_id)?.platformId;

    const found = await answer(bot.double.slash(alice, "search", { item, seller: seller ?? "" }));

    expect(textOf(found)).not.toContain(listing.id);
    expect(textOf(found)).toContain(`The one listing on this page is not seller \`${seller}\`'s`);
    expect(textOf(found)).toContain(`/stall user:${seller}`);
    expect(textOf(found)).not.toContain("No listings match");
  });

  it("GIVEN alice's stall is refused even to her (private) WHEN she runs /sell mine THEN she reads that it is private and no search stands in for it", async () => {
    bot.sandbox.control.injectFault({
      method: "GET",
      path: "/users/*/stall",
      kind: "status",
      status: 403,
      times: 1,
    });
    const searches = hits(bot, "GET /listings");

    const reply = await answer(bot.double.slash(alice, "sell mine", {}));

    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("Your stall is private");
    expect(hits(bot, "GET /listings")).toBe(searches);
  });

  it("GIVEN the purchase is refused with 422 WHEN alice confirms THEN nothing is bought and she is told the marketplace refused it", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 1_500 });
    const quote = await answer(bot.double.slash(alice, "buy", { listing: listing.id }));
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "status",
      status: 422,
      times: 1,
    });
    const balance = bot.sandbox.control.balance(alice.demo.platformId).balance;

    const refused = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));

    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toMatch(/refused the purchase|nothing was bought/i);
    expect(bot.sandbox.control.balance(alice.demo.platformId).balance).toBe(balance);
    const purchase = await bot.db.prisma.purchase.findFirst({ where: { listingIds: { has: listing.id } } });
    expect(purchase?.status).toBe("failed");
  });

  it("GIVEN the sales read fails WHEN alice asks for a price history THEN the chart still comes and the reply says the sales could not be loaded", async () => {
    const listing = bot.sandbox.control.createListing({ price: 900 });
    bot.sandbox.control.sellToBuyer(listing.id);
    bot.sandbox.control.injectFault({
      method: "GET",
      path: "/history/*/sales",
      kind: "status",
      status: 500,
      times: 10,
    });
    try {
      const reply = await answer(bot.double.slash(alice, "history", { item: listing.item.market_hash_name }));

      expect(reply.attachments.length).toBe(1);
      expect(textOf(reply)).toContain("did not return recent sales");
    } finally {
      bot.sandbox.control.clearFaults();
    }
  });

  it("GIVEN an item without daily prices WHEN its sales read fails too THEN alice reads that the sales could not be loaded, not that it never sold", async () => {
    bot.sandbox.control.injectFault({
      method: "GET",
      path: "/history/*/sales",
      kind: "status",
      status: 500,
      times: 10,
    });
    try {
      const reply = await answer(bot.double.slash(alice, "history", { item: uniqueItemName("unsold") }));

      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toContain("its recent sales could not be loaded right now");
      expect(textOf(reply)).not.toContain("No sales are recorded");
    } finally {
      bot.sandbox.control.clearFaults();
    }
  });

  it("GIVEN one of two waiting sales is cancelled meanwhile WHEN alice presses Accept all THEN only the waiting one is sent, so the batch cannot fail", async () => {
    const [keep, gone] = [
      bot.sandbox.control.createSaleForSeller(alice.demo.platformId),
      bot.sandbox.control.createSaleForSeller(alice.demo.platformId),
    ];
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    const acceptAll = labels(list).find((l) => l.startsWith("Accept all")) ?? "";
    // The buyer cancels one before alice presses: live, sending its id would fail the whole batch.
    const buyerKey = bot.sandbox.control.users().find((u) => u.platformId === gone.buyer_id)?.apiKey;
    const cancel = await fetch(`${bot.sandbox.baseUrl}/trades/bulk/cancel`, {
      method: "POST",
      headers: { authorization: buyerKey ?? "", "content-type": "application/json" },
      body: JSON.stringify({ trade_ids: [gone.id] }),
    });
    expect(cancel.status).toBe(200);
    const refused = () =>
      bot.sandbox.control.stats().routes["POST /trades/bulk/accept"]?.byStatus["400"] ?? 0;
    const refusedBefore = refused();

    const result = await answer(bot.double.button(alice, buttonId(list, acceptAll), list));

    expect(textOf(result)).toContain(keep.id);
    expect(textOf(result)).not.toContain("invalid trade ids");
    expect((await market.as(alice).getTrade(keep.id)).state).toBe("pending");
    expect(refused()).toBe(refusedBefore);
  });

  it("GIVEN the bulk batch is refused anyway WHEN alice presses Accept all THEN each trade is accepted one by one and reported", async () => {
    const sales = [
      bot.sandbox.control.createSaleForSeller(alice.demo.platformId),
      bot.sandbox.control.createSaleForSeller(alice.demo.platformId),
    ];
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    const acceptAll = labels(list).find((l) => l.startsWith("Accept all")) ?? "";
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/trades/bulk/accept",
      kind: "status",
      status: 400,
      times: 1,
    });
    const oneByOne = hits(bot, "POST /trades/{trade_id}/accept");

    const result = await answer(bot.double.button(alice, buttonId(list, acceptAll), list));

    for (const sale of sales) {
      expect(textOf(result)).toContain(sale.id);
      expect((await market.as(alice).getTrade(sale.id)).state).toBe("pending");
    }
    expect(hits(bot, "POST /trades/{trade_id}/accept") - oneByOne).toBe(sales.length);
    expect(textOf(result)).toMatch(/(\d+) of \1 trades accepted/);
  });
});

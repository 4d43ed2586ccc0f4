// Every reported live shape (fixtures/reported.ts) parses through the client and renders through
// what the commands show: the shapes the live service sends never fail a command.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listTransactions } from "../../src/accounts/transactions.ts";
import { ensureUser, updateSettings } from "../../src/db/repos/users.ts";
import { transactionsPageMessage } from "../../src/discord/render/account.ts";
import { buyOrdersPageMessage } from "../../src/discord/render/buyOrders.ts";
import { listingPageMessage } from "../../src/discord/render/search.ts";
import { bidEmbed, offersPageMessage } from "../../src/discord/render/trading.ts";
import { tradesPageMessage } from "../../src/discord/render/trades.ts";
import { createLogger } from "../../src/log.ts";
import type { MarketApi, MarketClient, MarketDroppedEvent } from "../../src/market/client.ts";
import { placeBid } from "../../src/trading/bid.ts";
import { listBuyOrders } from "../../src/trading/buyOrders.ts";
import { priceHistory } from "../../src/trading/history.ts";
import { listOffers } from "../../src/trading/offers.ts";
import { searchListings } from "../../src/trading/search.ts";
import { listTrades } from "../../src/trading/trades.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { REPORTED } from "./fixtures/reported.ts";
import { testClient } from "./support/client.ts";
import { startScriptedServer, type ScriptedServer } from "./support/scriptedServer.ts";

const logger = createLogger({ level: "silent" });
const paging = { previousId: "p", nextId: "n", hasPrevious: false, hasNext: false };
const text = (v: unknown) => JSON.stringify(v);

let server: ScriptedServer;
let client: MarketClient;
let api: MarketApi;
let dropped: MarketDroppedEvent[];
let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  server = await startScriptedServer();
  ({ client, dropped } = testClient(server.baseUrl));
  api = client.forKey("reported-shapes-key");
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe("reported live shapes parse and render", () => {
  it("GIVEN a listings page with an odd item and an unreadable element WHEN /search renders it THEN both readable listings show and one drop is counted", async () => {
    server.on("GET", "/listings", { json: REPORTED.listingsPage.body });

    const page = await searchListings({ market: api, logger }, { limit: 10 });
    const message = listingPageMessage({
      title: "Search results",
      tone: "info",
      listings: page.listings,
      page: 0,
      empty: "none",
      openId: "o",
      paging,
    });

    expect(page.listings.map((l) => l.listingId)).toEqual(["912345000001", "912345000003"]);
    expect(text(message)).toContain("Falcon Rifle");
    expect(dropped).toEqual([{ endpoint: "GET /listings", what: "listing", count: 1 }]);
  });

  it("GIVEN the bare array of older versions WHEN searched THEN it reads as a page", async () => {
    server.on("GET", "/listings", { json: REPORTED.listingsBareArray.body });

    const page = await api.searchListings();

    expect(page.data).toHaveLength(1);
  });

  it("GIVEN the live bid receipt WHEN /bid renders its result THEN leadership comes from the listing", async () => {
    const userId = (await ensureUser(db.prisma, "800000000000000001")).id;
    await updateSettings(db.prisma, userId, { perPurchaseCapCents: null, dailyCapCents: null });
    const auction = {
      ...REPORTED.auction.body,
      auction_details: {
        ...REPORTED.auction.body.auction_details,
        top_bid: { ...REPORTED.auction.body.auction_details.top_bid, price: 1600 },
      },
    };
    server.on("GET", "/listings/912345000002", { json: REPORTED.auction.body }, { json: auction });
    server.on("POST", "/listings/912345000002/bid", { json: REPORTED.bidReceipt.body });

    const result = await placeBid(
      { market: api, logger, prisma: db.prisma },
      { userId, listingId: "912345000002", maxPriceCents: 2500 },
    );

    expect(result).toMatchObject({ youAreTop: true, topBidCents: 1600, maxPriceCents: 2500 });
    expect(text(bidEmbed(result))).toContain("$25.00");
  });

  it("GIVEN ledger entries with string fees and original_tx as number or string WHEN /account transactions renders them THEN both show", async () => {
    server.on("GET", "/me/transactions", { json: REPORTED.transactions.body });

    const page = await listTransactions({ market: api, logger });

    expect(page.transactions).toHaveLength(2);
    expect(page.transactions[1]?.balanceCents).toBe(1250);
    const rendered = text(transactionsPageMessage(page, undefined, paging));
    expect(rendered).toContain("Sale");
    expect(rendered).toContain("+$12.50");
  });

  it("GIVEN my buy orders with a website order WHEN /buyorder list renders them THEN the expression shows and the quantity string is read", async () => {
    server.on("GET", "/me/buy-orders", { json: REPORTED.myBuyOrders.body });

    const page = await listBuyOrders({ market: api, logger }, { page: 0 });

    expect(page.orders[1]).toMatchObject({ orderId: "4400002", quantity: 3, itemName: undefined });
    expect(text(buyOrdersPageMessage(page, paging))).toContain("FloatValue 0.2");
  });

  it("GIVEN the item lookup's website shape WHEN read THEN the expression and price come through", async () => {
    server.on("GET", "/buy-orders/item", { json: REPORTED.buyOrdersForItem.body });

    const orders = await api.getBuyOrdersForItem({ url: "u", market_hash_name: "n", sig: "s" });

    // No id: a price point, not one of the user's orders.
    expect(orders).toEqual([expect.objectContaining({ price: 950, qty: 2 })]);
    expect(orders[0]?.expression).toContain("Falcon Rifle");
    expect(dropped).toEqual([]);
  });

  it("GIVEN sales entries without ids and a fractional graph WHEN /history reads them THEN points and sales come through", async () => {
    server.on("GET", "/history/Falcon%20Rifle%20%7C%20Ember%20Tide%20(Field%20Worn)/graph", {
      json: REPORTED.graph.body,
    });
    server.on("GET", "/history/Falcon%20Rifle%20%7C%20Ember%20Tide%20(Field%20Worn)/sales", {
      json: REPORTED.sales.body,
    });

    const h = await priceHistory(
      { market: api, logger },
      { itemName: "Falcon Rifle | Ember Tide (Field Worn)" },
    );

    expect(h.points.map((p) => p.avgPriceCents)).toEqual([1188, 1210]);
    expect(h.recentSales.map((s) => s.priceCents)).toEqual([1200, 1180]);
  });

  it("GIVEN trades, one with an unreadable contract WHEN /trades list renders them THEN both trades show and the token never does", async () => {
    server.on("GET", "/me/trades", { json: REPORTED.myTrades.body });

    const page = await listTrades({ market: api, logger });
    const message = tradesPageMessage(
      page,
      { platformId: "76561190000000001", roleFilter: "seller" },
      "all",
      {
        paging,
        acceptAllId: "a",
        openId: "o",
        acceptId: (id: string) => `accept:${id}`,
        cancelId: (id: string) => `cancel:${id}`,
      },
    );

    expect(page.trades.map((t) => t.tradeId)).toEqual(["7700001", "7700002"]);
    expect(text(message)).not.toContain("secret-token");
  });

  it("GIVEN the { trades } envelope of bulk accept WHEN read THEN the trades come through", async () => {
    server.on("POST", "/trades/bulk/accept", { json: REPORTED.bulkAccept.body });

    expect(await api.bulkAcceptTrades(["7700001"])).toHaveLength(1);
  });

  it("GIVEN offers, one with an unreadable contract WHEN /offer list renders them THEN both show", async () => {
    server.on("GET", "/me/offers-timeline", { json: REPORTED.offers.body });

    const page = await listOffers({ market: api, logger });

    expect(page.offers).toHaveLength(2);
    expect(text(offersPageMessage(page, paging as never))).toContain("6600002");
  });

  it("GIVEN a purchase refused with 422 and code 15 WHEN buying THEN it is a stale purchase, never retried", async () => {
    server.on("POST", "/listings/buy", { status: 422, json: REPORTED.purchaseRefused.body });

    await expect(
      api.buyListings({ contract_ids: ["912345000001"], total_price: 1250 }),
    ).rejects.toMatchObject({
      kind: "stale_purchase",
      code: 15,
    });
    expect(server.requestsTo("POST", "/listings/buy")).toHaveLength(1);
  });
});

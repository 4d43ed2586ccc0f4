// The reading policy of ADR 011: tolerant where the live service varies, strict on ids and prices.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MarketClient, MarketDroppedEvent } from "../../src/market/client.ts";
import { rejectionOf, testClient } from "./support/client.ts";
import { fixtures, startScriptedServer } from "./support/scriptedServer.ts";
import type { ScriptedServer } from "./support/scriptedServer.ts";

const KEY = "tolerance-test-key";

let server: ScriptedServer;
let client: MarketClient;
let dropped: MarketDroppedEvent[];

beforeEach(async () => {
  server = await startScriptedServer();
  ({ client, dropped } = testClient(server.baseUrl));
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe("one unreadable element never fails a list", () => {
  it("GIVEN a page with a listing priced 'abc' WHEN searching THEN the other listings come back and one drop is counted", async () => {
    server.on("GET", "/listings", {
      json: {
        data: [fixtures.listing("1"), fixtures.listing("2", { price: "abc" }), fixtures.listing("3")],
        cursor: "next",
      },
    });

    const page = await client.forKey(KEY).searchListings();

    expect(page.data.map((l) => l.id)).toEqual(["1", "3"]);
    expect(page.cursor).toBe("next");
    expect(dropped).toEqual([{ endpoint: "GET /listings", what: "listing", count: 1 }]);
  });

  it("GIVEN a listing priced as the numeric string '1250' WHEN searching THEN it is dropped, not guessed (prices are strict)", async () => {
    server.on("GET", "/listings", {
      json: { data: [fixtures.listing("1", { price: "1250" }), fixtures.listing("2")], cursor: "" },
    });

    const page = await client.forKey(KEY).searchListings();

    expect(page.data.map((l) => l.id)).toEqual(["2"]);
    expect(dropped[0]?.count).toBe(1);
  });

  it("GIVEN a trade whose contract cannot be read WHEN listing trades THEN the trade is kept without its contract", async () => {
    server.on("GET", "/me/trades", {
      json: { trades: [fixtures.trade("9001", { contract: { id: "x" } }), fixtures.trade("9002")], count: 2 },
    });

    const page = await client.forKey(KEY).getMyTrades();

    expect(page.trades.map((t) => [t.id, t.contract])).toEqual([
      ["9001", undefined],
      ["9002", undefined],
    ]);
    expect(dropped).toEqual([{ endpoint: "GET /me/trades", what: "trade.contract", count: 1 }]);
  });

  it("GIVEN a page of trades with a non-numeric id WHEN listing trades THEN only that trade is left out", async () => {
    server.on("GET", "/me/trades", { json: { trades: [fixtures.trade("abc"), fixtures.trade("9002")] } });

    const page = await client.forKey(KEY).getMyTrades();

    expect(page.trades.map((t) => t.id)).toEqual(["9002"]);
  });

  it("GIVEN a clean page WHEN searching THEN nothing is reported as dropped", async () => {
    server.on("GET", "/listings", { json: { data: [fixtures.listing("1")], cursor: "" } });

    await client.forKey(KEY).searchListings();

    expect(dropped).toEqual([]);
  });
});

describe("a page of listings read place first (the feed's read)", () => {
  const page = {
    data: [
      fixtures.listing("3", { created_at: "2026-11-28T10:00:03.000Z" }),
      fixtures.listing("2", { created_at: "2026-11-28T10:00:02.000Z", price: "abc" }),
      { id: "not-a-number", created_at: "2026-11-28T10:00:01.500Z", type: "buy_now", price: 1 },
      fixtures.listing("1", { created_at: "2026-11-28T10:00:01.000Z" }),
    ],
    cursor: "next",
  };

  it("GIVEN a page with an unreadable price further down WHEN only the top listing is asked for THEN it is read whole and the other is never read nor reported", async () => {
    server.on("GET", "/listings", { json: page });

    const read = await client.forKey(KEY).searchListingPlaces({ sort_by: "most_recent" });
    const top = read.listings(read.places.slice(0, 1));

    expect(read.places.map((p) => [p.id, p.created_at])).toEqual([
      ["3", "2026-11-28T10:00:03.000Z"],
      ["2", "2026-11-28T10:00:02.000Z"],
      ["1", "2026-11-28T10:00:01.000Z"],
    ]);
    expect(read.cursor).toBe("next");
    expect(top.map((l) => [l.id, l.price, l.item.market_hash_name])).toEqual([
      ["3", 1250, "Blade | Ocean Drift (Field-Tested)"],
    ]);
    // Only the element without a readable id is counted: it has no place on the page.
    expect(dropped).toEqual([{ endpoint: "GET /listings", what: "listing", count: 1 }]);
  });

  it("GIVEN the same page WHEN every place is asked for THEN the unreadable listing is left out and counted, the rest come back in order", async () => {
    server.on("GET", "/listings", { json: page });

    const read = await client.forKey(KEY).searchListingPlaces();
    dropped.length = 0;
    const all = read.listings(read.places);

    expect(all.map((l) => l.id)).toEqual(["3", "1"]);
    expect(dropped).toEqual([{ endpoint: "GET /listings", what: "listing", count: 1 }]);
  });

  it("GIVEN a place from another page WHEN it is asked for THEN nothing is read for it", async () => {
    server.on("GET", "/listings", { json: page }, { json: page });
    const api = client.forKey(KEY);
    const first = await api.searchListingPlaces();
    const second = await api.searchListingPlaces();

    expect(second.listings(first.places)).toEqual([]);
    expect(second.listings(second.places.slice(0, 1)).map((l) => l.id)).toEqual(["3"]);
  });

  it("GIVEN an answer that is not a page WHEN read place first THEN it fails as an invalid answer, as searchListings does", async () => {
    server.on("GET", "/listings", { json: { data: "nope" } }, { json: { data: "nope" } });
    const api = client.forKey(KEY);

    const placesFailure = await rejectionOf(api.searchListingPlaces());
    const wholeFailure = await rejectionOf(api.searchListings());

    expect(placesFailure).toMatchObject({ kind: "invalid_response", endpoint: "GET /listings" });
    expect(wholeFailure).toMatchObject({ kind: "invalid_response", endpoint: "GET /listings" });
  });
});

describe("numbers that arrive as strings", () => {
  it("GIVEN ledger details with string fee_amount, fee, float_fee and a numeric original_tx WHEN reading transactions THEN they parse", async () => {
    server.on("GET", "/me/transactions", {
      json: {
        transactions: [
          fixtures.transaction("4001", {
            type: "contract_sold",
            balance_offset: 1188,
            details: {
              fee_amount: "62.5",
              fee: "0.05",
              float_fee: "0",
              original_tx: 39001,
              contract_id: "1001",
            },
          }),
        ],
        count: "1",
      },
    });

    const page = await client.forKey(KEY).getTransactions({ limit: 1 });

    const tx = page.transactions[0];
    // The offset itself is whole cents: only the detail fields are tolerated as strings.
    expect(tx?.balance_offset).toBe(1188);
    expect(tx?.details?.fee_amount).toBe(62.5);
    expect(tx?.details?.fee).toBe("0.05");
    expect(tx?.details?.float_fee).toBe("0");
    expect(tx?.details?.original_tx).toBe("39001");
    expect(page.count).toBe(1);
  });

  it("GIVEN an item with sticker_index as a string, nulls in blue_gem and fade and a sticker without wear WHEN reading the listing THEN it parses", async () => {
    server.on("GET", "/listings/1001", {
      json: fixtures.listing("1001", {
        item: {
          market_hash_name: "Blade | Ocean Drift (Field-Tested)",
          float_value: "0.25",
          paint_seed: "661",
          sticker_index: "3",
          blue_gem: { playside_blue: 41.2, backside_blue: null },
          fade: { percentage: null, rank: 4, seed: 12, type: null },
          stickers: [{ stickerId: "5012", slot: 0, name: "Crown" }],
        },
      }),
    });

    const listing = await client.forKey(KEY).getListing("1001");

    expect(listing.item.float_value).toBe(0.25);
    expect(listing.item.paint_seed).toBe(661);
    expect(listing.item.sticker_index).toBe(3);
    expect(listing.item.blue_gem).toEqual({ playside_blue: 41.2 });
    expect(listing.item.fade?.percentage).toBeUndefined();
    expect(listing.item.stickers?.[0]?.stickerId).toBe(5012);
    expect(listing.item.stickers?.[0]?.wear).toBeUndefined();
  });

  it("GIVEN a float value outside 0..1 WHEN reading one listing THEN it is refused (rules filter on it)", async () => {
    server.on("GET", "/listings/1001", {
      json: fixtures.listing("1001", { item: { market_hash_name: "X", float_value: "1.5" } }),
    });

    await expect(client.forKey(KEY).getListing("1001")).rejects.toMatchObject({
      kind: "invalid_response",
      zodPath: ["item", "float_value"],
    });
  });
});

describe("live shapes that the spec does not show", () => {
  it("GIVEN the live bid reply without price WHEN bidding THEN the receipt carries the id and ceiling", async () => {
    server.on("POST", "/listings/1001/bid", {
      json: { id: "88001", created_at: "2026-11-25T10:00:00Z", max_price: 2500, contract_id: "1001" },
    });

    const receipt = await client.forKey(KEY).placeBid("1001", 2500);

    expect(receipt).toMatchObject({ id: "88001", max_price: 2500, contract_id: "1001" });
    expect(receipt.price).toBeUndefined();
  });

  it("GIVEN sales entries with only price, sold_at, item and reference WHEN reading sales THEN they parse", async () => {
    server.on("GET", "/history/Blade%20%7C%20Ocean%20Drift%20(Field-Tested)/sales", {
      json: [
        {
          price: 1200,
          sold_at: "2026-11-20T08:00:00Z",
          item: { market_hash_name: "Blade | Ocean Drift (Field-Tested)", float_value: 0.21 },
          reference: { predicted_price: "1250" },
        },
      ],
    });

    const sales = await client.forKey(KEY).getHistorySales("Blade | Ocean Drift (Field-Tested)");

    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ price: 1200, reference: { predicted_price: 1250 } });
    expect(sales[0]?.id).toBeUndefined();
  });

  it("GIVEN a website buy order with an expression and no item name WHEN listing my orders THEN it is kept with its expression", async () => {
    server.on("GET", "/me/buy-orders", {
      json: {
        orders: [
          { id: "77", expression: '(== Item "Blade | Ocean Drift (Field-Tested)")', price: 900, qty: "2" },
          fixtures.buyOrder("78"),
        ],
        count: 2,
      },
    });

    const page = await client.forKey(KEY).getMyBuyOrders();

    expect(page.orders[0]).toMatchObject({ id: "77", qty: 2 });
    expect(page.orders[0]?.market_hash_name).toBeUndefined();
    expect(page.orders[0]?.expression).toContain("Ocean Drift");
    expect(page.orders[1]?.market_hash_name).toBe("Blade | Ocean Drift (Field-Tested)");
  });
});

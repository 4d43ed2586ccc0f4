// What the market client puts on the wire and how it reads answers, against a real local server.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MarketClient } from "../../src/market/client.ts";
import { isMarketError } from "../../src/market/errors.ts";
import { encodeStickerSelectors } from "../../src/market/requests.ts";
import { testClient, rejectionOf } from "./support/client.ts";
import type { TestClient } from "./support/client.ts";
import { fixtures, startScriptedServer } from "./support/scriptedServer.ts";
import type { ScriptedServer } from "./support/scriptedServer.ts";

const KEY = "k3y-AbC123";

let server: ScriptedServer;
let t: TestClient;
let client: MarketClient;

beforeEach(async () => {
  server = await startScriptedServer();
  t = testClient(server.baseUrl);
  client = t.client;
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe("authorization", () => {
  it("GIVEN a key WHEN calling public and private endpoints THEN Authorization is exactly the key", async () => {
    server.on("GET", "/listings/1001", { json: fixtures.listing() });
    server.on("GET", "/me/trades", { json: { trades: [], count: 0 } });
    const api = client.forKey(KEY);

    await api.getListing("1001");
    await api.getMyTrades();

    expect(server.requests.map((r) => r.headers.authorization)).toEqual([KEY, KEY]);
  });

  it("GIVEN no key WHEN calling a public endpoint THEN no Authorization header is sent", async () => {
    server.on("GET", "/listings/1001", { json: fixtures.listing() });

    await client.forKey(undefined).getListing("1001");

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers).not.toHaveProperty("authorization");
  });

  it("GIVEN no key WHEN calling an authenticated endpoint THEN unauthorized without a request", async () => {
    const error = await rejectionOf(client.forKey(undefined).getMyTrades());

    expect(isMarketError(error, "unauthorized")).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe("addresses", () => {
  it("GIVEN a base URL with a path prefix WHEN calling THEN the prefix is kept", async () => {
    server.on("GET", "/listings/1001", { json: fixtures.listing() });
    const other = testClient(`${server.baseUrl}/`).client;
    try {
      await other.forKey(KEY).getListing("1001");
    } finally {
      await other.close();
    }
    expect(server.requests[0]?.rawUrl).toBe("/api/v1/listings/1001");
  });

  it("GIVEN a market hash name with spaces and bars WHEN reading history THEN it is one encoded segment", async () => {
    const name = "Blade | Ocean Drift (Field-Tested)";
    server.on("GET", `/history/${encodeURIComponent(name)}/graph`, {
      json: [{ day: "2024-05-01", count: 3, avg_price: 1234.5 }],
    });

    const points = await client.forKey(KEY).getHistoryGraph(name, { paint_index: 7 });

    expect(points).toEqual([{ day: "2024-05-01", count: 3, avg_price: 1234.5 }]);
    expect(server.requests[0]?.rawUrl).toBe(
      `/api/v1/history/${encodeURIComponent(name)}/graph?paint_index=7`,
    );
  });

  it("GIVEN sticker selectors WHEN searching THEN they are sent in the JSON form the live service honours", async () => {
    server.on("GET", "/listings", { json: { data: [], cursor: "" } });

    await client.forKey(KEY).searchListings({
      stickers: [{ id: 12, slot: 0 }, { id: 34 }],
      sort_by: "lowest_price",
      max_price: 5000,
      category: 2,
    });

    const query = server.requests[0]?.query;
    expect(query?.get("stickers")).toBe('[{"i":12,"s":0},{"i":34}]');
    expect(query?.get("sort_by")).toBe("lowest_price");
    expect(query?.get("max_price")).toBe("5000");
    expect(query?.get("category")).toBe("2");
    expect(encodeStickerSelectors([{ id: 5 }])).toBe('[{"i":5}]');
  });

  it("GIVEN several states WHEN reading trades and the offers timeline THEN trades join them and offers repeat them", async () => {
    server.on("GET", "/me/trades", { json: { trades: [], count: 0 } });
    server.on("GET", "/me/offers-timeline", { json: { offers: [] } });
    const api = client.forKey(KEY);

    await api.getMyTrades({ state: ["queued", "pending"], role: "seller" });
    await api.getOffersTimeline({ states: ["declined", "expired"], page: 1 });

    expect(server.requestsTo("GET", "/me/trades")[0]?.query.get("state")).toBe("queued,pending");
    expect(server.requestsTo("GET", "/me/trades")[0]?.query.get("role")).toBe("seller");
    expect(server.requestsTo("GET", "/me/offers-timeline")[0]?.query.getAll("states")).toEqual([
      "declined",
      "expired",
    ]);
  });
});

describe("request bodies", () => {
  const bodyOf = (method: string, path: string): unknown =>
    JSON.parse(server.requestsTo(method, path)[0]?.body ?? "null");

  it("GIVEN a full desired buy order WHEN updating THEN every constraint is sent flat, null where unset", async () => {
    server.on("PATCH", "/buy-orders/77", { json: fixtures.buyOrder("77") });

    await client.forKey(KEY).updateBuyOrder("77", {
      max_price: 1500,
      quantity: 2,
      constraints: { max_float: 0.07, paint_seeds: [1, 2], applied_stickers: [{ sId: 9 }] },
    });

    expect(bodyOf("PATCH", "/buy-orders/77")).toEqual({
      max_price: 1500,
      quantity: 2,
      min_float: null,
      max_float: 0.07,
      paint_index: null,
      paint_seeds: [1, 2],
      applied_stickers: [{ sId: 9 }],
      applied_keychains: null,
      min_keychain_pattern: null,
      max_keychain_pattern: null,
    });
    expect(server.requests[0]?.headers["content-type"]).toBe("application/json");
  });

  it("GIVEN a new buy order WHEN creating THEN constraints are nested under hybrid_properties", async () => {
    server.on("POST", "/buy-orders", { json: fixtures.buyOrder("78") });

    const order = await client.forKey(KEY).createBuyOrder({
      market_hash_name: "Blade | Ocean Drift (Field-Tested)",
      max_price: 1000,
      quantity: 1,
      hybrid_properties: { min_float: 0.1 },
    });

    expect(order.id).toBe("78");
    expect(bodyOf("POST", "/buy-orders")).toEqual({
      market_hash_name: "Blade | Ocean Drift (Field-Tested)",
      max_price: 1000,
      quantity: 1,
      hybrid_properties: { min_float: 0.1 },
    });
  });

  it("GIVEN selling calls WHEN sent THEN bodies use the field names from the notes", async () => {
    server.on("POST", "/listings", { json: fixtures.listing("1") });
    server.on("PATCH", "/listings/1", { json: fixtures.listing("1", { price: 999 }) });
    server.on("PATCH", "/listings/bulk-modify", { json: { data: [fixtures.listing("1")] } });
    server.on("PATCH", "/listings/bulk-delist", { text: "" });
    server.on("POST", "/listings/bulk-list", { json: { data: [fixtures.listing("2")] } });
    const api = client.forKey(KEY);

    await api.createListing({ asset_id: "555", price: 1250, max_offer_discount: 1500, description: "clean" });
    const updated = await api.updateListing("1", { price: 999 });
    await api.bulkModify([{ contract_id: "1", price: 1000 }]);
    await api.bulkDelist(["1", "2"]);
    const listed = await api.bulkList(
      [{ asset_id: "556", type: "auction", reserve_price: 100, duration_days: 7 }],
      {
        notary_payload: "np",
      },
    );

    expect(updated.price).toBe(999);
    expect(listed.map((l) => l.id)).toEqual(["2"]);
    expect(bodyOf("POST", "/listings")).toEqual({
      asset_id: "555",
      price: 1250,
      max_offer_discount: 1500,
      description: "clean",
    });
    expect(bodyOf("PATCH", "/listings/1")).toEqual({ price: 999 });
    expect(bodyOf("PATCH", "/listings/bulk-modify")).toEqual({
      modifications: [{ contract_id: "1", price: 1000 }],
    });
    expect(bodyOf("PATCH", "/listings/bulk-delist")).toEqual({ contract_ids: ["1", "2"] });
    expect(bodyOf("POST", "/listings/bulk-list")).toEqual({
      items: [{ asset_id: "556", type: "auction", reserve_price: 100, duration_days: 7 }],
      notary_payload: "np",
    });
  });

  it("GIVEN an auction without duration_days WHEN listed alone or in bulk THEN it is refused before any request, naming the field", async () => {
    const api = client.forKey(KEY);
    const auction = { asset_id: "557", type: "auction", reserve_price: 100 } as const;

    const single = await rejectionOf(api.createListing(auction));
    const bulk = await rejectionOf(api.bulkList([{ asset_id: "558", price: 300 }, auction]));

    expect(single).toMatchObject({ kind: "invalid_argument", zodPath: ["duration_days"] });
    expect(bulk).toMatchObject({ kind: "invalid_argument", zodPath: ["items", 1, "duration_days"] });
    expect(server.requests).toHaveLength(0);
  });

  it("GIVEN buying, bidding, offers and trade calls WHEN sent THEN bodies carry ids and cents", async () => {
    server.on("POST", "/listings/buy", { json: { data: [fixtures.trade("9100", { contract_id: "1001" })] } });
    server.on("POST", "/listings/1001/bid", { json: fixtures.bid() });
    server.on("POST", "/offers", { json: fixtures.offer() });
    server.on("POST", "/offers/31/counter-offer", { json: fixtures.offer("32") });
    server.on("POST", "/trades/bulk/accept", {
      json: { data: [fixtures.trade("9001", { state: "pending" })] },
    });
    server.on("POST", "/trades/bulk/cancel", {
      json: { data: [fixtures.trade("9002", { state: "cancelled" })] },
    });
    server.on("POST", "/buy-orders/similar-orders", { json: { data: [fixtures.aggregate()] } });
    const api = client.forKey(KEY);

    const bought = await api.buyListings({ contract_ids: ["1001", "1002"], total_price: 2500 });
    await api.placeBid("1001", 700);
    await api.createOffer({ contract_id: "1001", price: 1100 });
    const countered = await api.counterOffer("31", 1150);
    const accepted = await api.bulkAcceptTrades(["9001"]);
    const cancelled = await api.bulkCancelTrades(["9002"]);
    const similar = await api.getSimilarBuyOrders({ market_hash_name: "X" }, { limit: 5 });

    expect(bought.map((tr) => tr.id)).toEqual(["9100"]);
    expect(countered.id).toBe("32");
    expect(accepted.map((tr) => tr.state)).toEqual(["pending"]);
    expect(cancelled.map((tr) => tr.state)).toEqual(["cancelled"]);
    expect(similar).toHaveLength(1);
    expect(bodyOf("POST", "/listings/buy")).toEqual({ contract_ids: ["1001", "1002"], total_price: 2500 });
    expect(bodyOf("POST", "/listings/1001/bid")).toEqual({ max_price: 700 });
    expect(bodyOf("POST", "/offers")).toEqual({
      contract_id: "1001",
      price: 1100,
      cancel_previous_offer: false,
    });
    expect(bodyOf("POST", "/offers/31/counter-offer")).toEqual({ price: 1150 });
    expect(bodyOf("POST", "/trades/bulk/accept")).toEqual({ trade_ids: ["9001"] });
    expect(bodyOf("POST", "/trades/bulk/cancel")).toEqual({ trade_ids: ["9002"] });
    expect(bodyOf("POST", "/buy-orders/similar-orders")).toEqual({
      market_hash_name: "X",
      hybrid_properties: {},
    });
    expect(server.requestsTo("POST", "/buy-orders/similar-orders")[0]?.query.get("limit")).toBe("5");
  });

  it("GIVEN a purchase answer we cannot read WHEN buying THEN it resolves with no trades instead of failing", async () => {
    server.on("POST", "/listings/buy", { text: "OK" });

    const trades = await client.forKey(KEY).buyListings({ contract_ids: ["1001"], total_price: 1250 });

    expect(trades).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("GIVEN calls without a body WHEN sent THEN no body and no content type go out", async () => {
    server.on("POST", "/trades/9001/accept", { text: "" });
    server.on("POST", "/listings/1001/watchlist", { text: "not json at all" });
    server.on("DELETE", "/listings/1001/watchlist", { json: { message: "removed" } });
    server.on("DELETE", "/listings/1001", { json: { message: "ok" } });
    server.on("DELETE", "/buy-orders/77", { status: 204 });
    const api = client.forKey(KEY);

    await api.acceptTrade("9001");
    await api.addToWatchlist("1001");
    await api.removeFromWatchlist("1001");
    await api.deleteListing("1001");
    await api.deleteBuyOrder("77");

    expect(server.requests).toHaveLength(5);
    for (const r of server.requests) {
      expect(r.body).toBe("");
      expect(r.headers["content-type"]).toBeUndefined();
    }
  });
});

describe("answers", () => {
  it("GIVEN the envelope or a bare array WHEN searching listings THEN both read as a page", async () => {
    server.on(
      "GET",
      "/listings",
      { json: { data: [fixtures.listing("1"), fixtures.listing("2")], cursor: "c2", extra: true } },
      { json: [fixtures.listing("3")] },
    );
    const api = client.forKey(KEY);

    const first = await api.searchListings();
    const second = await api.searchListings({ cursor: "c2" });

    expect(first.data.map((l) => l.id)).toEqual(["1", "2"]);
    expect(first.cursor).toBe("c2");
    expect(second.data.map((l) => l.id)).toEqual(["3"]);
    expect(second.cursor).toBeUndefined();
  });

  it("GIVEN GET /me in either shape WHEN read THEN the user and balance come back", async () => {
    server.on(
      "GET",
      "/me",
      { json: { user: { platform_id: "76500000000000001", username: "ana" }, balance: 4200 } },
      { json: { platform_id: "76500000000000002", username: "bo" } },
      { json: { user: { platform_id: "76500000000000003", balance: 99 } } },
    );
    const api = client.forKey(KEY);

    const first = await api.getMe();
    const second = await api.getMe();

    expect(first).toEqual({ user: { platform_id: "76500000000000001", username: "ana" }, balance: 4200 });
    expect(second.user.username).toBe("bo");
    expect(second.balance).toBeUndefined();
    expect((await api.getMe()).balance).toBe(99);
  });

  it("GIVEN an ETag WHEN matching buy orders are read again THEN If-None-Match is sent and a 304 is served from cache", async () => {
    const aggregates = [fixtures.aggregate({ price: 950 })];
    server.on("GET", "/listings/1001/buy-orders", { json: aggregates, headers: { etag: '"v1"' } }, (req) =>
      req.headers["if-none-match"] === '"v1"' ? { status: 304 } : { status: 500 },
    );
    const api = client.forKey(KEY);

    const first = await api.getListingBuyOrders("1001", { limit: 5 });
    const second = await api.getListingBuyOrders("1001", { limit: 5 });

    const seen = server.requestsTo("GET", "/listings/1001/buy-orders");
    expect(seen).toHaveLength(2);
    expect(seen[0]?.headers["if-none-match"]).toBeUndefined();
    expect(seen[1]?.headers["if-none-match"]).toBe('"v1"');
    expect(second).toEqual(first);
    expect(second[0]?.price).toBe(950);
    expect(t.events.map((e) => e.status)).toEqual([200, 304]);
  });

  it("GIVEN a cached ETag for one limit WHEN another limit is read THEN no If-None-Match is sent", async () => {
    server.on("GET", "/listings/1001/buy-orders", {
      json: [fixtures.aggregate()],
      headers: { etag: '"v1"' },
    });
    const api = client.forKey(KEY);

    await api.getListingBuyOrders("1001", { limit: 5 });
    await api.getListingBuyOrders("1001", { limit: 10 });

    expect(server.requests[1]?.headers["if-none-match"]).toBeUndefined();
  });

  it("GIVEN calls WHEN they complete THEN metrics see the endpoint template, status and wait", async () => {
    server.on("GET", "/listings/1001", { json: fixtures.listing() });
    server.on("GET", "/listings/1002", { status: 404, json: { code: 404, message: "not found" } });
    const api = client.forKey(KEY);

    await api.getListing("1001");
    await rejectionOf(api.getListing("1002"));

    expect(t.events).toEqual([
      expect.objectContaining({
        endpoint: "GET /listings/{listing_id}",
        status: 200,
        rateLimitWaitMs: 0,
        attempt: 1,
      }),
      expect.objectContaining({ endpoint: "GET /listings/{listing_id}", status: 404, attempt: 1 }),
    ]);
    expect(t.events.every((e) => e.durationMs >= 0)).toBe(true);
  });
});

describe("listing read observer", () => {
  it("GIVEN an observer WHEN listings are read one by one THEN it sees each one read AND not searches or failed reads", async () => {
    const seen: string[] = [];
    const observed = testClient(server.baseUrl, {
      onListingRead: (l) => seen.push(`${l.id}:${l.state}`),
    }).client;
    server.on("GET", "/listings/1001", {
      json: fixtures.listing("1001", { state: "sold", sold_at: "2026-11-20T12:00:04.000Z" }),
    });
    server.on("GET", "/listings/1002", { status: 404, json: { code: 404, message: "not found" } });
    server.on("GET", "/listings", { json: { data: [fixtures.listing("1003")], cursor: "" } });
    const api = observed.forKey(KEY);

    await api.getListing("1001");
    await rejectionOf(api.getListing("1002"));
    await api.searchListings({ sort_by: "most_recent" });
    await observed.close();

    expect(seen).toEqual(["1001:sold"]);
  });

  it("GIVEN an observer that throws WHEN a listing is read THEN the read still succeeds", async () => {
    const observed = testClient(server.baseUrl, {
      onListingRead: () => {
        throw new Error("observer bug");
      },
    }).client;
    server.on("GET", "/listings/1001", { json: fixtures.listing("1001") });

    const listing = await observed.forKey(KEY).getListing("1001");
    await observed.close();

    expect(listing.id).toBe("1001");
  });
});

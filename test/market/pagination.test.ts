// Walking cursor and page endpoints to the end, against a real local server.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MarketApi, MarketClient } from "../../src/market/client.ts";
import { cursorPages, numberedPages } from "../../src/market/pagination.ts";
import { testClient } from "./support/client.ts";
import { fixtures, startScriptedServer } from "./support/scriptedServer.ts";
import type { RecordedRequest, Reply, ScriptedServer } from "./support/scriptedServer.ts";

let server: ScriptedServer;
let client: MarketClient;
let api: MarketApi;

beforeEach(async () => {
  server = await startScriptedServer();
  client = testClient(server.baseUrl).client;
  api = client.forKey("pager-key");
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Serves `pages` of listings by cursor ("" for the first); `cursors[i]` is what page i hands out. */
function cursorServer(pages: string[][], cursors: (string | undefined)[]) {
  return (req: RecordedRequest): Reply => {
    const index = Number(req.query.get("cursor") ?? "0");
    const ids = pages[index] ?? [];
    return { json: { data: ids.map((id) => fixtures.listing(id)), cursor: cursors[index] } };
  };
}

describe("cursor endpoints", () => {
  it("GIVEN three pages WHEN iterating listings THEN every listing comes once and the cursor is passed on", async () => {
    server.on("GET", "/listings", cursorServer([["1", "2"], ["3", "4"], ["5"]], ["1", "2", ""]));

    const ids = (await collect(api.iterateListings({ sort_by: "most_recent" }))).map((l) => l.id);

    expect(ids).toEqual(["1", "2", "3", "4", "5"]);
    expect(server.requests.map((r) => r.query.get("cursor"))).toEqual([null, "1", "2"]);
    expect(server.requests.every((r) => r.query.get("sort_by") === "most_recent")).toBe(true);
  });

  it("GIVEN a cursor that comes back again WHEN iterating the watchlist THEN iteration stops", async () => {
    server.on("GET", "/me/watchlist", cursorServer([["1"], ["2"], ["3"]], ["1", "1", "2"]));

    const ids = (await collect(api.iterateWatchlist())).map((l) => l.id);

    expect(ids).toEqual(["1", "2"]);
    expect(server.requests).toHaveLength(2);
  });

  it("GIVEN an absent cursor WHEN iterating a stall THEN iteration stops after that page", async () => {
    server.on("GET", "/users/765/stall", (req) => ({
      json: {
        data: [fixtures.listing(req.query.get("cursor") === null ? "1" : "2")],
        ...(req.query.get("cursor") === null ? { cursor: "next" } : {}),
        total_count: 2,
        total_price: 2500,
      },
    }));

    const ids = (await collect(api.iterateStall("765", { limit: 1 }))).map((l) => l.id);

    expect(ids).toEqual(["1", "2"]);
    expect(server.requests.map((r) => r.query.get("limit"))).toEqual(["1", "1"]);
  });

  it("GIVEN an empty page with a cursor WHEN iterating THEN iteration stops", async () => {
    server.on("GET", "/listings", cursorServer([["1"], []], ["1", "2"]));

    expect((await collect(api.iterateListings())).map((l) => l.id)).toEqual(["1"]);
    expect(server.requests).toHaveLength(2);
  });

  it("GIVEN endless pages WHEN maxPages is set THEN only that many are fetched", async () => {
    let n = 0;
    const pages = cursorPages(
      async () => {
        n += 1;
        return { data: [n], cursor: `c${n}` };
      },
      { maxPages: 3 },
    );

    expect(await collect(pages)).toEqual([[1], [2], [3]]);
    expect(n).toBe(3);
  });
});

describe("page endpoints", () => {
  it("GIVEN a total count WHEN iterating trades THEN pages stop once the count is reached", async () => {
    server.on("GET", "/me/trades", (req) => {
      const pageIndex = Number(req.query.get("page"));
      const ids = pageIndex === 0 ? ["1", "2"] : pageIndex === 1 ? ["3", "4"] : ["5", "6"];
      return { json: { trades: ids.map((id) => fixtures.trade(id)), count: 4 } };
    });

    const ids = (await collect(api.iterateMyTrades({ limit: 2, role: "seller" }))).map((t) => t.id);

    expect(ids).toEqual(["1", "2", "3", "4"]);
    expect(server.requests.map((r) => r.query.get("page"))).toEqual(["0", "1"]);
  });

  it("GIVEN a short page WHEN iterating transactions THEN iteration stops there, sending the default limit", async () => {
    server.on(
      "GET",
      "/me/transactions",
      { json: { transactions: Array.from({ length: 50 }, (_, i) => fixtures.transaction(String(i))) } },
      { json: { transactions: [fixtures.transaction("50")] } },
    );

    const all = await collect(api.iterateTransactions({ type: "deposit" }));

    expect(all).toHaveLength(51);
    expect(
      server.requests.map((r) => [r.query.get("page"), r.query.get("limit"), r.query.get("type")]),
    ).toEqual([
      ["0", "50", "deposit"],
      ["1", "50", "deposit"],
    ]);
  });

  it("GIVEN full pages WHEN iterating the offers timeline and buy orders THEN an empty page ends them", async () => {
    server.on(
      "GET",
      "/me/offers-timeline",
      { json: { offers: [fixtures.offer("1")] } },
      { json: { offers: [] } },
    );
    server.on(
      "GET",
      "/me/buy-orders",
      { json: { orders: [fixtures.buyOrder("1")], count: 9 } },
      { json: { orders: [], count: 9 } },
    );

    const offers = await collect(api.iterateOffersTimeline({ limit: 1 }));
    const orders = await collect(api.iterateMyBuyOrders({ limit: 1 }));

    expect(offers.map((o) => o.id)).toEqual(["1"]);
    expect(orders.map((o) => o.id)).toEqual(["1"]);
    expect(server.requestsTo("GET", "/me/offers-timeline")).toHaveLength(2);
    expect(server.requestsTo("GET", "/me/buy-orders")).toHaveLength(2);
  });

  it("GIVEN endless full pages WHEN maxPages is set THEN only that many are fetched", async () => {
    const asked: number[] = [];
    const pages = numberedPages(
      async (pageIndex) => {
        asked.push(pageIndex);
        return { items: [pageIndex, pageIndex] };
      },
      2,
      { maxPages: 2 },
    );

    expect(await collect(pages)).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(asked).toEqual([0, 1]);
  });
});

// Every failure of a market call arrives as a MarketError of the right kind, without secrets.
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MarketClient } from "../../src/market/client.ts";
import { MarketError } from "../../src/market/errors.ts";
import type { MarketErrorKind } from "../../src/market/errors.ts";
import { rejectionOf, testClient } from "./support/client.ts";
import { fixtures, startScriptedServer } from "./support/scriptedServer.ts";
import type { ScriptedServer } from "./support/scriptedServer.ts";

const KEY = "secret-key-7f3a9c";

let server: ScriptedServer;
let client: MarketClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = testClient(server.baseUrl).client;
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function marketError(promise: Promise<unknown>): Promise<MarketError> {
  const error = await rejectionOf(promise);
  if (!(error instanceof MarketError)) throw new Error(`expected a MarketError, got ${String(error)}`);
  return error;
}

describe("HTTP statuses", () => {
  it.each<[number, MarketErrorKind]>([
    [401, "unauthorized"],
    [403, "forbidden"],
    [404, "not_found"],
    [400, "bad_request"],
    [409, "bad_request"],
  ])("GIVEN the service answers %i WHEN reading a trade THEN the error kind is %s", async (status, kind) => {
    server.on("GET", "/trades/9001", { status, json: { code: 17, message: "nope" } });

    const error = await marketError(client.forKey(KEY).getTrade("9001"));

    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.code).toBe(17);
    expect(error.serviceMessage).toBe("nope");
    expect(error.endpoint).toBe("GET /trades/{trade_id}");
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it("GIVEN a private stall WHEN read THEN forbidden", async () => {
    server.on("GET", "/users/76500000000000001/stall", {
      status: 403,
      json: { code: 0, message: "stall is private" },
    });

    const error = await marketError(client.forKey(KEY).getStall("76500000000000001"));

    expect(error.kind).toBe("forbidden");
  });

  it("GIVEN a seller with offers disabled WHEN making an offer THEN offers_disabled", async () => {
    server.on("POST", "/offers", { status: 400, json: { code: 4, message: "offers disabled" } });

    const error = await marketError(client.forKey(KEY).createOffer({ contract_id: "1001", price: 900 }));

    expect(error.kind).toBe("offers_disabled");
    expect(error.code).toBe(4);
  });

  it("GIVEN code 4 on another endpoint WHEN bidding THEN it is a plain bad_request", async () => {
    server.on("POST", "/listings/1001/bid", { status: 400, json: { code: 4, message: "sold" } });

    const error = await marketError(client.forKey(KEY).placeBid("1001", 500));

    expect(error.kind).toBe("bad_request");
    expect(error.serviceMessage).toBe("sold");
  });

  it("GIVEN a stale total WHEN buying THEN stale_purchase", async () => {
    server.on("POST", "/listings/buy", { status: 400, json: { code: 4, message: "price changed" } });

    const error = await marketError(
      client.forKey(KEY).buyListings({ contract_ids: ["1001"], total_price: 1000 }),
    );

    expect(error.kind).toBe("stale_purchase");
    expect(error.mayHaveSucceeded).toBe(false);
  });

  it.each([
    [6, "listing is no longer available"],
    [15, "total_price does not match"],
  ])(
    "GIVEN a purchase answered 422 with code %i WHEN buying THEN stale_purchase with the code, sent once, nothing may have landed",
    async (code, message) => {
      server.on("POST", "/listings/buy", { status: 422, json: { code, message } });

      const error = await marketError(
        client.forKey(KEY).buyListings({ contract_ids: ["1001"], total_price: 1000 }),
      );

      expect(error).toMatchObject({ kind: "stale_purchase", status: 422, code, serviceMessage: message });
      expect(error.mayHaveSucceeded).toBe(false);
      expect(server.requestsTo("POST", "/listings/buy")).toHaveLength(1);
    },
  );

  it("GIVEN a 422 on another route WHEN bidding THEN a plain bad_request, not a refused purchase", async () => {
    server.on("POST", "/listings/1001/bid", { status: 422, json: { code: 6, message: "stale" } });

    const error = await marketError(client.forKey(KEY).placeBid("1001", 500));

    expect(error.kind).toBe("bad_request");
  });

  it("GIVEN a 400 with a service message WHEN listing THEN bad_request carries the message", async () => {
    server.on("POST", "/listings", {
      status: 400,
      json: { code: 134, message: "complete payout onboarding first" },
    });

    const error = await marketError(client.forKey(KEY).createListing({ asset_id: "1", price: 300 }));

    expect(error.kind).toBe("bad_request");
    expect(error.code).toBe(134);
    expect(error.serviceMessage).toBe("complete payout onboarding first");
  });

  it("GIVEN an error body that is not JSON WHEN read THEN the kind still follows the status", async () => {
    server.on("GET", "/listings/1001", { status: 404, text: "<html>gone</html>" });

    const error = await marketError(client.forKey(KEY).getListing("1001"));

    expect(error.kind).toBe("not_found");
    expect(error.serviceMessage).toBeUndefined();
  });

  it("GIVEN a 500 on a write WHEN creating a listing THEN upstream, sent once, and it may have succeeded", async () => {
    server.on("POST", "/listings", { status: 502, text: "bad gateway" });

    const error = await marketError(client.forKey(KEY).createListing({ asset_id: "1", price: 300 }));

    expect(error.kind).toBe("upstream");
    expect(error.status).toBe(502);
    expect(error.mayHaveSucceeded).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe("answers that break the contract", () => {
  it("GIVEN malformed JSON WHEN reading a listing THEN invalid_response at the root", async () => {
    server.on("GET", "/listings/1001", { text: '{"id": "1001", ' });

    const error = await marketError(client.forKey(KEY).getListing("1001"));

    expect(error.kind).toBe("invalid_response");
    expect(error.zodPath).toEqual([]);
  });

  it("GIVEN a page whose envelope is broken WHEN searching THEN invalid_response names the path", async () => {
    server.on("GET", "/listings", { json: { data: "not a list", cursor: "" } });

    const error = await marketError(client.forKey(KEY).searchListings());

    expect(error.kind).toBe("invalid_response");
    expect(error.zodPath).toEqual(["data"]);
    expect(error.message).toContain("data");
  });

  it("GIVEN a non-numeric id in an answer WHEN reading a trade THEN invalid_response names the id", async () => {
    server.on("GET", "/trades/9001", { json: fixtures.trade("abc") });

    const error = await marketError(client.forKey(KEY).getTrade("9001"));

    expect(error.zodPath).toEqual(["id"]);
  });

  it("GIVEN a 2xx write whose answer does not parse WHEN bidding THEN it may have succeeded", async () => {
    server.on("POST", "/listings/1001/bid", { json: { unexpected: true } });

    const error = await marketError(client.forKey(KEY).placeBid("1001", 500));

    expect(error.kind).toBe("invalid_response");
    expect(error.mayHaveSucceeded).toBe(true);
  });

  it("GIVEN an empty body where data is expected WHEN reading THEN invalid_response", async () => {
    server.on("GET", "/listings/1001/bids", { text: "" });

    const error = await marketError(client.forKey(KEY).getListingBids("1001"));

    expect(error.kind).toBe("invalid_response");
  });

  it("GIVEN a 304 nobody asked for WHEN reading THEN invalid_response", async () => {
    server.on("GET", "/listings/1001", { status: 304 });

    const error = await marketError(client.forKey(KEY).getListing("1001"));

    expect(error.kind).toBe("invalid_response");
    expect(error.status).toBe(304);
  });
});

describe("local validation", () => {
  it.each(["12a", "", "../me", "1/2", " 1", "-1", "1.0"])(
    "GIVEN the id %j WHEN reading a listing THEN invalid_argument and nothing is sent",
    async (id) => {
      const error = await marketError(client.forKey(KEY).getListing(id));

      expect(error.kind).toBe("invalid_argument");
      expect(error.zodPath).toEqual(["listing_id"]);
      expect(server.requests).toHaveLength(0);
    },
  );

  it("GIVEN bad ids in bodies and paths WHEN writing THEN invalid_argument and nothing is sent", async () => {
    const api = client.forKey(KEY);
    const errors = await Promise.all([
      marketError(api.buyListings({ contract_ids: ["1", "x"], total_price: 100 })),
      marketError(api.bulkCancelTrades([])),
      marketError(api.updateBuyOrder("7 7", { max_price: 1, quantity: 1, constraints: {} })),
      marketError(api.getStall("me")),
      marketError(api.createOffer({ contract_id: "1", price: 12.5 })),
      marketError(api.placeBid("1", -1)),
      marketError(api.searchListings({ limit: 51 })),
      marketError(api.updateListing("1", {})),
      marketError(api.createListing({ asset_id: "1" })),
      marketError(api.getHistorySales("  ")),
    ]);

    expect(errors.map((e) => e.kind)).toEqual(Array(errors.length).fill("invalid_argument"));
    expect(errors.map((e) => e.zodPath)).toEqual([
      ["contract_ids", 1],
      ["trade_ids"],
      ["order_id"],
      ["platform_id"],
      ["price"],
      ["max_price"],
      ["limit"],
      [],
      ["price"],
      ["market_hash_name"],
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it("GIVEN a key with a line break WHEN calling THEN unauthorized locally without echoing the key", async () => {
    const error = await marketError(client.forKey("abc\r\nX-Evil: 1").getListing("1001"));

    expect(error.kind).toBe("unauthorized");
    expect(error.message).not.toContain("X-Evil");
    expect(server.requests).toHaveLength(0);
  });
});

describe("secrets", () => {
  it("GIVEN failures of every sort WHEN inspected or serialized THEN the key never appears", async () => {
    server.on("GET", "/trades/1", { status: 401, json: { code: 1, message: "bad key" } });
    server.on("GET", "/trades/2", { destroy: true });
    server.on("GET", "/trades/3", { text: "{" });
    const api = client.forKey(KEY);

    const errors = await Promise.all([
      marketError(api.getTrade("1")),
      marketError(api.getTrade("2")),
      marketError(api.getTrade("3")),
    ]);

    expect(errors.map((e) => e.kind)).toEqual(["unauthorized", "network", "invalid_response"]);
    for (const error of errors) {
      const dump = `${inspect(error, { depth: 10, showHidden: true })} ${JSON.stringify(error)} ${String(error.cause)}`;
      expect(dump).not.toContain(KEY);
      expect(dump.toLowerCase()).not.toContain("authorization");
    }
  });
});

describe("connection failures", () => {
  it("GIVEN nothing listens WHEN buying THEN network and the purchase surely did not happen", async () => {
    const closedPort = await startScriptedServer();
    const baseUrl = closedPort.baseUrl;
    await closedPort.close();
    const orphan = testClient(baseUrl).client;
    try {
      const error = await marketError(
        orphan.forKey(KEY).buyListings({ contract_ids: ["1"], total_price: 100 }),
      );
      expect(error.kind).toBe("network");
      expect(error.mayHaveSucceeded).toBe(false);
    } finally {
      await orphan.close();
    }
  });
});

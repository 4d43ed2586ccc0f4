// The contract watch at run time: drift in live answers becomes metrics, one log line per new drift,
// a degraded /healthz while it lasts, and money actions that refuse instead of guessing amounts.
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { userNoticeFor } from "../../src/discord/errorMessages.ts";
import { contractCheck } from "../../src/http/health.ts";
import { startHttpServer, type HttpServer } from "../../src/http/server.ts";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { MarketError } from "../../src/market/errors.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { EXAMPLE_ITEM, startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { health, scrape, valueOf } from "../ops/support.ts";
import { rejectionOf } from "./support/client.ts";

let sandbox: Sandbox;
let metrics: Metrics;
let client: MarketClient;
let http: HttpServer;
let key: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  key = sandbox.users[0]?.apiKey ?? "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line !== "") logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ level: "info" }, sink as unknown as Parameters<typeof createLogger>[1]);
  metrics = createMetrics({ logger, defaultMetrics: false });
  client = createMarketClient({ baseUrl: sandbox.baseUrl, logger, metrics, retry: { attempts: 1 } });
  http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    metrics,
    checks: { market: contractCheck(client.contractDrift) },
  });
});

afterEach(async () => {
  // Every test ends on a marketplace that behaves again, read once so the drift is over.
  sandbox.control.clearDrift();
  await client.forKey(key).searchListings({ limit: 50 });
  await client.forKey(key).getMyTrades();
});

afterAll(async () => {
  await http?.close();
  await client?.close();
  await sandbox?.close();
});

const driftLogs = (field: string) =>
  logLines.filter(
    (l) => l["msg"]?.toString().startsWith("marketplace contract drift:") && l["field"] === field,
  );

describe("drift seen in live answers", () => {
  it("GIVEN an item field renamed WHEN listings are read twice THEN the gauge is 1, the counter and the log line count it once, and /healthz says degraded with the field path", async () => {
    sandbox.control.setDrift({ renameFields: { "item.market_hash_name": "name" } });

    await client.forKey(key).searchListings({ limit: 50 });
    await client.forKey(key).searchListings({ limit: 50 });

    const labels = { endpoint: "GET /listings", field: "data[].item.market_hash_name", kind: "missing" };
    const samples = await scrape(http.url);
    expect(valueOf(samples, "market_contract_drift", labels)).toBe(1);
    expect(valueOf(samples, "market_contract_drift_events_total", labels)).toBe(1);
    const logged = driftLogs("data[].item.market_hash_name");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ endpoint: "GET /listings", kind: "missing", level: 40 });
    expect(String(logged[0]?.["seen"])).toContain("name");
    expect(
      valueOf(samples, "market_contract_drift", { ...labels, field: "data[].item.name", kind: "unknown" }),
    ).toBe(1);

    const { status, body } = await health(http.url);
    expect(status).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.checks.market?.detail).toBe(
      "degraded: contract drift on GET /listings data[].item.market_hash_name (missing)",
    );
  });

  it("GIVEN a drift WHEN the service behaves again and is read THEN the gauge drops to 0 and /healthz is ok", async () => {
    sandbox.control.setDrift({ renameFields: { "item.market_hash_name": "name" } });
    await client.forKey(key).searchListings({ limit: 50 });
    sandbox.control.clearDrift();

    await client.forKey(key).searchListings({ limit: 50 });

    const labels = { endpoint: "GET /listings", field: "data[].item.market_hash_name", kind: "missing" };
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBe(0);
    const { body } = await health(http.url);
    expect(body.status).toBe("ok");
    expect(body.checks.market).toEqual({ ok: true });
  });

  it("GIVEN floats renamed WHEN a search narrowed to one item is read THEN nothing is called missing (such a page may hold no float); WHEN a broad page is read THEN it is", async () => {
    sandbox.control.setDrift({ renameFields: { "item.float_value": "float" } });
    const labels = { endpoint: "GET /listings", field: "data[].item.float_value", kind: "missing" };

    await client.forKey(key).searchListings({ limit: 50, market_hash_name: EXAMPLE_ITEM });
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBeUndefined();

    await client.forKey(key).searchListings({ limit: 50 });
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBe(1);
  });

  it("GIVEN one unreadable listing among good ones WHEN listings are read THEN it is an unreadable drift in the metrics, yet /healthz stays ok and no money action is held", async () => {
    sandbox.control.createUnreadableListing();

    await client.forKey(key).searchListings({ limit: 50, sort_by: "most_recent" });

    const labels = { endpoint: "GET /listings", field: "listing: price", kind: "unreadable" };
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBe(1);
    expect((await health(http.url)).body.status).toBe("ok");
    expect(client.contractDrift.moneyHold("buy")).toBeUndefined();
  });

  it("GIVEN a route gone WHEN it is called THEN the call fails as not found and the drift is a status drift on that endpoint", async () => {
    sandbox.control.setDrift({ dropRoutes: ["GET /me/trades"] });

    const error = await rejectionOf(client.forKey(key).getMyTrades());

    expect(error).toBeInstanceOf(MarketError);
    expect((error as MarketError).kind).toBe("not_found");
    const labels = { endpoint: "GET /me/trades", field: "(status)", kind: "status" };
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBe(1);
    expect((await health(http.url)).body.checks.market?.detail).toContain("GET /me/trades (status) (status)");
  });

  it("GIVEN the reset header sent in milliseconds WHEN an answer is read THEN the header is a type drift on that endpoint", async () => {
    sandbox.control.setDrift({ resetUnit: "epoch-milliseconds" });

    await client.forKey(key).getMyTrades();

    const labels = { endpoint: "GET /me/trades", field: "header:x-ratelimit-reset", kind: "type" };
    expect(valueOf(await scrape(http.url), "market_contract_drift", labels)).toBe(1);
  });
});

describe("money actions while an amount may have changed meaning", () => {
  it("GIVEN prices read as dollar strings WHEN buying, bidding, ordering or offering THEN each refuses with a clear message and nothing reaches the marketplace", async () => {
    const page = await client.forKey(key).searchListings({ limit: 5 });
    const listing = page.data[0];
    expect(listing).toBeDefined();
    sandbox.control.setDrift({ retypeFields: { price: "dollars" } });
    await client.forKey(key).searchListings({ limit: 50 });
    sandbox.control.resetStats();

    const api = client.forKey(key);
    const refusals = [
      await rejectionOf(
        api.buyListings({ contract_ids: [listing?.id ?? "1"], total_price: listing?.price ?? 100 }),
      ),
      await rejectionOf(api.placeBid(listing?.id ?? "1", 500)),
      await rejectionOf(
        api.createBuyOrder({
          market_hash_name: listing?.item.market_hash_name ?? "x",
          max_price: 100,
          quantity: 1,
        }),
      ),
      await rejectionOf(api.createOffer({ contract_id: listing?.id ?? "1", price: 100 })),
    ];

    for (const error of refusals) {
      expect(error).toBeInstanceOf(MarketError);
      expect((error as MarketError).kind).toBe("contract_drift");
      expect((error as MarketError).mayHaveSucceeded).toBe(false);
    }
    expect(sandbox.control.stats().total).toBe(0);
    expect(userNoticeFor(refusals[0])?.text).toMatch(
      /^Paused for safety: the marketplace changed how it reports prices/,
    );
    expect(client.contractDrift.moneyHold("buy")?.field).toBe("data[].price");
  });

  it("GIVEN a money hold WHEN the prices read as integer cents again THEN the hold is released", async () => {
    sandbox.control.setDrift({ retypeFields: { price: "dollars" } });
    await client.forKey(key).searchListings({ limit: 50 });
    expect(client.contractDrift.moneyHold("buy")).toBeDefined();
    sandbox.control.clearDrift();

    await client.forKey(key).searchListings({ limit: 50 });

    expect(client.contractDrift.moneyHold("buy")).toBeUndefined();
    expect(client.contractDrift.moneyHold("offer")).toBeUndefined();
  });
});

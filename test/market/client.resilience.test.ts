// Rate-limit pacing, retries and timeouts of the market client, observed from a real server.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backoffDelayMs } from "../../src/market/backoff.ts";
import { MarketError } from "../../src/market/errors.ts";
import { rejectionOf, testClient } from "./support/client.ts";
import type { TestClient } from "./support/client.ts";
import { fixtures, startScriptedServer } from "./support/scriptedServer.ts";
import type { RecordedRequest, Reply, ScriptedServer } from "./support/scriptedServer.ts";

const KEY = "key-resilience-1";

let server: ScriptedServer;
const clients: TestClient[] = [];

function newClient(
  ...args: Parameters<typeof testClient> extends [string, ...infer Rest] ? Rest : never
): TestClient {
  const t = testClient(server.baseUrl, ...args);
  clients.push(t);
  return t;
}

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((t) => t.client.close()));
  await server.close();
});

async function marketError(promise: Promise<unknown>): Promise<MarketError> {
  const error = await rejectionOf(promise);
  if (!(error instanceof MarketError)) throw new Error(`expected a MarketError, got ${String(error)}`);
  return error;
}

/**
 * A fixed-window limiter like the service's: `limit` requests per window, windows ending on whole
 * seconds `windowSeconds` ahead. Over-budget requests get 429 and are counted in `rejected`.
 */
function windowLimiter(limit: number, windowSeconds: number, reply: () => Reply) {
  const state = { resetMs: 0, used: 0, rejected: 0, windows: [] as number[] };
  const responder = (req: RecordedRequest): Reply => {
    if (req.at >= state.resetMs) {
      state.resetMs = (Math.ceil(req.at / 1000) + windowSeconds) * 1000;
      state.used = 0;
      state.windows.push(state.resetMs);
    }
    state.used += 1;
    const headers = {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(Math.max(0, limit - state.used)),
      "x-ratelimit-reset": String(state.resetMs / 1000),
    };
    if (state.used > limit) {
      state.rejected += 1;
      return {
        status: 429,
        headers: { ...headers, "retry-after": String(Math.ceil((state.resetMs - Date.now()) / 1000)) },
      };
    }
    const base = reply();
    return { ...base, headers: { ...headers, ...base.headers } };
  };
  return { state, responder };
}

/** Polls a condition with a deadline (no fixed sleeps). */
async function pollUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const page = () => ({ json: { data: [fixtures.listing()], cursor: "" } });

describe("rate-limit budget", () => {
  it("GIVEN remaining 0 and a reset about a second away WHEN calling again THEN the client waits and never gets a 429", async () => {
    const limiter = windowLimiter(1, 1, page);
    server.on("GET", "/listings", limiter.responder);
    const { client, events } = newClient();
    const api = client.forKey(KEY);

    await api.searchListings();
    const firstReset = limiter.state.resetMs;
    await api.searchListings();

    expect(limiter.state.rejected).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.at).toBeGreaterThanOrEqual(firstReset);
    expect(events.map((e) => e.status)).toEqual([200, 200]);
    expect(events[1]?.rateLimitWaitMs).toBeGreaterThan(0);
  });

  it("GIVEN a budget of one left WHEN four callers fire together THEN they spread over windows without a 429", async () => {
    const limiter = windowLimiter(2, 1, page);
    server.on("GET", "/listings", limiter.responder);
    const { client } = newClient();
    const api = client.forKey(KEY);
    await api.searchListings(); // leaves remaining 1 in this window

    await Promise.all([
      api.searchListings(),
      api.searchListings(),
      api.searchListings(),
      api.searchListings(),
    ]);

    expect(limiter.state.rejected).toBe(0);
    const [first, second] = limiter.state.windows;
    const inWindow = (from: number, to: number) =>
      server.requests.filter((r) => r.at >= from && r.at < to).length;
    expect(inWindow(0, first!)).toBe(2);
    expect(inWindow(first!, second!)).toBe(2);
    expect(inWindow(second!, Infinity)).toBe(1);
  });

  it("GIVEN a reset further away than the wait limit WHEN calling THEN rate_limited at once without a request", async () => {
    server.on("GET", "/listings", () => ({
      ...page(),
      headers: {
        "x-ratelimit-limit": "10",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 30),
      },
    }));
    const { client } = newClient({ maxRateLimitWaitMs: 1000 });
    const api = client.forKey(KEY);
    await api.searchListings();

    const started = Date.now();
    const error = await marketError(api.searchListings());

    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterMs).toBeGreaterThan(28_000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it("GIVEN budgets per key and endpoint WHEN asked THEN rateLimitState reports each separately", async () => {
    const reset = Math.ceil(Date.now() / 1000) + 60;
    server.on("GET", "/listings", {
      ...page(),
      headers: {
        "x-ratelimit-limit": "200",
        "x-ratelimit-remaining": "150",
        "x-ratelimit-reset": String(reset),
      },
    });
    const { client } = newClient();

    expect(client.rateLimitState(KEY, "GET /listings")).toBeUndefined();
    await client.forKey(KEY).searchListings();

    expect(client.rateLimitState(KEY, "GET /listings")).toEqual({
      limit: 200,
      remaining: 150,
      resetAt: reset * 1000,
    });
    expect(client.rateLimitState("another-key", "GET /listings")).toBeUndefined();
    expect(client.rateLimitState(KEY, "GET /listings/{listing_id}")).toBeUndefined();
  });

  it("GIVEN a 429 with Retry-After WHEN reading THEN the retry comes no earlier than asked", async () => {
    server.on(
      "GET",
      "/listings/1001",
      { status: 429, headers: { "retry-after": "1" } },
      { json: fixtures.listing() },
    );
    const { client, events } = newClient();

    const listing = await client.forKey(KEY).getListing("1001");

    expect(listing.id).toBe("1001");
    const [first, second] = server.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
    expect(events.map((e) => e.status)).toEqual([429, 200]);
    expect(events[1]?.rateLimitWaitMs).toBeGreaterThanOrEqual(900);
  });

  it("GIVEN a long budget window WHEN a 429 asks for one second THEN the retry follows Retry-After", async () => {
    const windowEnd = String(Math.ceil(Date.now() / 1000) + 60);
    const budget = {
      "x-ratelimit-limit": "100",
      "x-ratelimit-remaining": "50",
      "x-ratelimit-reset": windowEnd,
    };
    server.on(
      "GET",
      "/listings/1001",
      { json: fixtures.listing(), headers: budget },
      { status: 429, headers: { "retry-after": "1" } },
      { json: fixtures.listing(), headers: budget },
    );
    const { client, events } = newClient({ maxRateLimitWaitMs: 5_000 });
    const api = client.forKey(KEY);
    await api.getListing("1001");

    await api.getListing("1001");

    const [, limited, retried] = server.requests;
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(1000);
    expect(retried!.at - limited!.at).toBeLessThan(5000);
    expect(events.map((e) => e.status)).toEqual([200, 429, 200]);
  });

  it("GIVEN a 429 WHEN several callers wait out Retry-After THEN one probe goes first, the rest after its answer", async () => {
    server.on(
      "GET",
      "/listings/1001",
      {
        status: 429,
        headers: { "retry-after": "1", "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0" },
      },
      { json: fixtures.listing(), delayMs: 300 },
      { json: fixtures.listing() },
    );
    const { client, events } = newClient();
    const api = client.forKey(KEY);
    const first = api.getListing("1001"); // collects the 429, then waits a second
    await pollUntil(() => events.length === 1); // the client has read the 429

    await Promise.all([first, api.getListing("1001"), api.getListing("1001")]);

    const [, probe, ...rest] = server.requests;
    expect(rest).toHaveLength(2);
    for (const r of rest) expect(r.at - probe!.at).toBeGreaterThanOrEqual(300);
  });

  it("GIVEN a 429 WHEN bidding THEN the write is sent again, since it was not processed", async () => {
    server.on(
      "POST",
      "/listings/1001/bid",
      { status: 429, headers: { "retry-after": "0" } },
      { json: fixtures.bid() },
    );
    const { client } = newClient();

    const bid = await client.forKey(KEY).placeBid("1001", 700);

    expect(bid.price).toBe(700);
    expect(server.requestsTo("POST", "/listings/1001/bid")).toHaveLength(2);
  });

  it("GIVEN 429 after 429 WHEN the attempts run out THEN rate_limited with the last Retry-After", async () => {
    server.on("POST", "/offers", {
      status: 429,
      headers: { "retry-after": "0" },
      json: { code: 0, message: "slow down" },
    });
    const { client } = newClient();

    const error = await marketError(client.forKey(KEY).createOffer({ contract_id: "1001", price: 100 }));

    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(0);
    expect(error.mayHaveSucceeded).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it("GIVEN a 429 asking for longer than the wait limit WHEN reading THEN rate_limited after one request", async () => {
    server.on("GET", "/listings/1001", { status: 429, headers: { "retry-after": "120" } });
    const { client } = newClient({ maxRateLimitWaitMs: 1000 });

    const error = await marketError(client.forKey(KEY).getListing("1001"));

    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterMs).toBeGreaterThan(100_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe("retries", () => {
  it("GIVEN 5xx answers WHEN reading THEN the read is retried until it succeeds", async () => {
    server.on("GET", "/trades/9001", { status: 503 }, { status: 500 }, { json: fixtures.trade() });
    const { client, events } = newClient();

    const trade = await client.forKey(KEY).getTrade("9001");

    expect(trade.id).toBe("9001");
    expect(events.map((e) => [e.status, e.attempt])).toEqual([
      [503, 1],
      [500, 2],
      [200, 3],
    ]);
  });

  it("GIVEN a persistent 5xx WHEN reading THEN upstream after the bounded attempts", async () => {
    server.on("GET", "/trades/9001", { status: 500, json: { code: 0, message: "boom" } });
    const { client } = newClient();

    const error = await marketError(client.forKey(KEY).getTrade("9001"));

    expect(error.kind).toBe("upstream");
    expect(error.mayHaveSucceeded).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it("GIVEN a retry budget of no time WHEN a read fails THEN it is not retried", async () => {
    server.on("GET", "/trades/9001", { status: 500 });
    const { client } = newClient({ retry: { baseDelayMs: 5, maxDelayMs: 20, maxTotalMs: 0 } });

    await marketError(client.forKey(KEY).getTrade("9001"));

    expect(server.requests).toHaveLength(1);
  });

  it("GIVEN a dropped connection WHEN reading THEN the read is retried", async () => {
    server.on("GET", "/listings/1001/similar", { destroy: true }, { json: [fixtures.listing("2")] });
    const { client, events } = newClient();

    const similar = await client.forKey(KEY).getSimilarListings("1001");

    expect(similar.map((l) => l.id)).toEqual(["2"]);
    expect(events.map((e) => e.status)).toEqual(["network", 200]);
  });

  it("GIVEN a dropped connection WHEN buying THEN network, sent once, and it may have succeeded", async () => {
    server.on("POST", "/listings/buy", { destroy: true });
    const { client } = newClient();

    const error = await marketError(
      client.forKey(KEY).buyListings({ contract_ids: ["1001"], total_price: 1250 }),
    );

    expect(error.kind).toBe("network");
    expect(error.mayHaveSucceeded).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("GIVEN a 500 WHEN accepting a trade THEN it is sent exactly once", async () => {
    server.on("POST", "/trades/9001/accept", { status: 500 });
    const { client } = newClient();

    const error = await marketError(client.forKey(KEY).acceptTrade("9001"));

    expect(error.kind).toBe("upstream");
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts", () => {
  it("GIVEN a hanging service WHEN buying THEN timeout, sent once, and it may have succeeded", async () => {
    server.on("POST", "/listings/buy", { hang: true });
    const { client, events } = newClient({ timeoutMs: 200 });

    const error = await marketError(
      client.forKey(KEY).buyListings({ contract_ids: ["1001"], total_price: 1250 }),
    );

    expect(error.kind).toBe("timeout");
    expect(error.mayHaveSucceeded).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(events.map((e) => e.status)).toEqual(["timeout"]);
  });

  it("GIVEN a hanging service WHEN reading THEN each attempt times out and the error is timeout", async () => {
    server.on("GET", "/me/watchlist", { hang: true });
    const { client } = newClient({ timeoutMs: 150 });

    const error = await marketError(client.forKey(KEY).getWatchlist());

    expect(error.kind).toBe("timeout");
    expect(error.mayHaveSucceeded).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it("GIVEN one hanging answer WHEN reading THEN the retry succeeds", async () => {
    server.on("GET", "/me/watchlist", { hang: true }, { json: { data: [fixtures.listing()], cursor: "" } });
    const { client } = newClient({ timeoutMs: 150 });

    const page = await client.forKey(KEY).getWatchlist();

    expect(page.data).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });
});

describe("backoff", () => {
  const opts = { baseDelayMs: 100, maxDelayMs: 1000 };

  it("GIVEN successive retries WHEN the delay is drawn THEN its ceiling doubles up to the maximum", () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelayMs(n, opts, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it("GIVEN full jitter WHEN the random draw is low THEN the delay can be zero", () => {
    expect(backoffDelayMs(3, opts, () => 0)).toBe(0);
    expect(backoffDelayMs(3, opts, () => 0.5)).toBe(400);
  });
});

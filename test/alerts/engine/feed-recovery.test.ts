// Fault demos: the feed notices a marketplace recovering within seconds (a 5xx outage does not
// grow its pause the way a rate limit does), a failed cycle is one log line, and the panel's
// "latency" fault answers slowly while "hang" never answers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFeedPoller, feedStateStore } from "../../../src/feed/feedPoller.ts";
import { createLogger } from "../../../src/log.ts";
import { createMarketClient, DEFAULT_TIMEOUT_MS, type MarketClient } from "../../../src/market/client.ts";
import { isMarketError } from "../../../src/market/errors.ts";
import { FAULT_KINDS } from "../../../src/playground/server.ts";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { textOf } from "../../support/discord.ts";
import { freshDatabase } from "../../support/db.ts";
import { alertEngineOf, startBot, type Bot } from "../../support/harness.ts";
import { uniqueItemName, waitUntil } from "./world.ts";

const silent = createLogger({ level: "silent" });

describe("the feed through a 5xx outage", () => {
  let bot: Bot;

  beforeAll(async () => {
    // The playground's pace: a listing made in the panel alerts within a second or two.
    bot = await startBot({ env: { POLL_INTERVAL_MS: "1000" } });
  });

  afterAll(async () => {
    await bot?.stop();
  });

  it("GIVEN the feed failed several cycles in a row on 5xx WHEN the fault is cleared THEN the next matching listing is alerted within a few seconds, and each failed cycle logged one line", async () => {
    const { alice } = bot.users;
    const item = uniqueItemName("outage");
    const saved = await bot.double.slash(alice, "watch add", { name: "outage", item }).finalMessage();
    expect(textOf(saved)).toContain("outage");
    const engine = alertEngineOf(bot);

    bot.sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "status", status: 503 });
    try {
      // Before the fix, four failures meant pauses of up to 17 s, and they kept doubling.
      await waitUntil(() => engine.stats().feed.consecutiveFailures >= 4, 30_000, "four failed feed cycles");
      expect(engine.stats().feed.nextDelayMs).toBeLessThanOrEqual(2_000);
    } finally {
      bot.sandbox.control.clearFaults();
    }
    const cleared = Date.now();
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    const dm = await bot.double.waitForDm(alice.id, (m) => textOf(m).includes(listing.id), 8_000);
    expect(dm).toBeDefined();
    expect(Date.now() - cleared).toBeLessThan(5_000);

    const failed = bot.logs.filter((l) => l.msg.startsWith("feed cycle failed"));
    expect(failed.length).toBeGreaterThanOrEqual(4);
    for (const line of failed) {
      expect(line.msg).toBe("feed cycle failed: upstream");
      expect(line).not.toHaveProperty("err");
      expect(line).toMatchObject({ kind: "upstream", endpoint: "GET /listings", status: 503 });
    }
    // The client's retries inside a cycle are not warnings of their own.
    expect(bot.logs.filter((l) => l.level >= 40 && l.msg.includes("market read failed"))).toEqual([]);
  });
});

describe("the feed's pause after a failure", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function feed(): Promise<{ sandbox: Sandbox; poller: ReturnType<typeof createFeedPoller> }> {
    const sandbox = await startSandbox({ rateLimit: false });
    open.push(sandbox);
    const db = await freshDatabase();
    open.push(db);
    const market = createMarketClient({ baseUrl: sandbox.baseUrl, logger: silent, retry: { attempts: 1 } });
    open.push(market);
    const poller = createFeedPoller({
      market,
      apiKey: sandbox.operatorKey,
      logger: silent,
      state: feedStateStore(db.prisma, "feed"),
      handle: async () => {},
      onGap: async () => {},
      intervalMs: 1_000,
      // The middle of each jittered backoff range, so the pauses compared are not luck.
      random: () => 0.5,
    });
    return { sandbox, poller };
  }

  it("GIVEN ten 5xx failures in a row WHEN the next pause is chosen THEN it stays at the probe pace (2 s)", async () => {
    const { sandbox, poller } = await feed();
    sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "status", status: 503 });
    for (let i = 0; i < 10; i++) expect((await poller.runOnce()).outcome).toBe("failed");
    const pauses = Array.from({ length: 20 }, () => poller.nextDelayMs());
    expect(Math.max(...pauses)).toBeLessThanOrEqual(2_000);
  });

  it("GIVEN the operator key refused five times WHEN the next pause is chosen THEN the feed backs off, since a refused key does not mend by itself", async () => {
    const { sandbox, poller } = await feed();
    sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "status", status: 401 });
    for (let i = 0; i < 5; i++) expect((await poller.runOnce()).outcome).toBe("failed");
    // 1 s + half of min(60 s, 1 s × 2^4).
    expect(poller.nextDelayMs()).toBe(9_000);
  });

  it("GIVEN a 429 asking for 40 s WHEN the next pause is chosen THEN the feed waits at least that long", async () => {
    const { sandbox, poller } = await feed();
    sandbox.control.injectFault({
      method: "GET",
      path: "/listings",
      kind: "rate_limit",
      retryAfterSeconds: 40,
    });
    expect((await poller.runOnce()).outcome).toBe("failed");
    expect(poller.nextDelayMs()).toBeGreaterThanOrEqual(40_000);
  });
});

describe("the panel's latency and hang faults", () => {
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function client(timeoutMs?: number): Promise<{ sandbox: Sandbox; market: MarketClient }> {
    const sandbox = await startSandbox({ rateLimit: false });
    open.push(sandbox);
    const market = createMarketClient({
      baseUrl: sandbox.baseUrl,
      logger: silent,
      retry: { attempts: 1 },
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    open.push(market);
    return { sandbox, market };
  }

  it("GIVEN the latency fault WHEN the bot reads with its default timeout THEN the answer comes, late", async () => {
    const latency = FAULT_KINDS.latency;
    expect(latency.kind).toBe("latency");
    expect(latency.ms ?? Infinity).toBeLessThan(DEFAULT_TIMEOUT_MS / 2);
    const { sandbox, market } = await client();
    sandbox.control.injectFault({ path: "/listings", ...latency });
    const started = Date.now();
    const page = await market.forKey(sandbox.operatorKey).searchListings({ limit: 1 });
    expect(page.data.length).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual((latency.ms ?? 0) - 50);
  });

  it("GIVEN the hang fault WHEN the bot reads THEN no answer ever comes and the read ends as a timeout", async () => {
    expect(FAULT_KINDS.hang.kind).toBe("hang");
    const { sandbox, market } = await client(500);
    sandbox.control.injectFault({ path: "/listings", ...FAULT_KINDS.hang });
    const failure = await market
      .forKey(sandbox.operatorKey)
      .searchListings({ limit: 1 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isMarketError(failure, "timeout")).toBe(true);
  });
});

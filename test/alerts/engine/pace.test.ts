// The feed's pace follows the marketplace's rate-limit headers: faster with budget to spare, slower
// when it runs low, and waiting for the reset rather than collecting a 429.
import { afterEach, describe, expect, it } from "vitest";
import { createFeedPoller, feedStateStore } from "../../../src/feed/feedPoller.ts";
import { createLogger } from "../../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../../src/market/client.ts";
import { startSandbox, type RateLimitOptions, type Sandbox } from "../../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

const logger = createLogger({ level: "silent" });
const INTERVAL = 2_000;
const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function feedWith(
  rateLimit: RateLimitOptions,
): Promise<{ sandbox: Sandbox; feed: ReturnType<typeof createFeedPoller> }> {
  const sandbox = await startSandbox({ rateLimit });
  open.push(sandbox);
  const db: TestDatabase = await freshDatabase();
  open.push(db);
  const market: MarketClient = createMarketClient({ baseUrl: sandbox.baseUrl, logger });
  open.push(market);
  const feed = createFeedPoller({
    market,
    apiKey: sandbox.operatorKey,
    logger,
    state: feedStateStore(db.prisma, "feed"),
    handle: async () => {},
    onGap: async () => {},
    intervalMs: INTERVAL,
  });
  return { sandbox, feed };
}

describe("feed pace", () => {
  it("GIVEN a generous budget WHEN a cycle ends THEN the next one comes sooner than the nominal interval", async () => {
    const { feed } = await feedWith({ limit: 1_000, windowMs: 60_000 });
    expect((await feed.runOnce()).outcome).toBe("first_run");
    expect(feed.nextDelayMs()).toBeLessThan(INTERVAL);
    expect(feed.nextDelayMs()).toBeGreaterThanOrEqual(INTERVAL / 4);
  });

  it("GIVEN a tight budget WHEN cycles spend it THEN the pause grows past the nominal interval and reaches the reset", async () => {
    const { feed } = await feedWith({ limit: 6, windowMs: 60_000 });
    await feed.runOnce();
    const early = feed.nextDelayMs();
    expect(early).toBeGreaterThan(INTERVAL);
    await feed.runOnce();
    await feed.runOnce();
    await feed.runOnce();
    const late = feed.nextDelayMs();
    expect(late).toBeGreaterThan(early);
    await feed.runOnce(); // one request left: kept in reserve
    expect(feed.nextDelayMs()).toBeGreaterThan(50_000); // wait for the window to reset
  });

  it("GIVEN an exhausted budget WHEN cycles run back to back anyway THEN they wait for the reset and never get a 429", async () => {
    const { sandbox, feed } = await feedWith({ limit: 2, windowMs: 1_000 });
    for (let i = 0; i < 5; i++) expect((await feed.runOnce()).outcome).not.toBe("failed");

    const route = sandbox.control.stats().routes["GET /listings"];
    expect(route?.total).toBe(5);
    expect(route?.byStatus["429"] ?? 0).toBe(0);
  });
});

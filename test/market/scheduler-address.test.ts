// The address budget against a real server: the sandbox keeps one for all keys together (as the
// live service does, with no header announcing it); the market client's scheduler either knows it
// (configured) or learns it from the first 429s that hit two keys, and then stays inside it.
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { createScheduler, type Scheduler } from "../../src/market/scheduler.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sandbox: Sandbox | undefined;
let client: MarketClient | undefined;

afterEach(async () => {
  await client?.close();
  await sandbox?.close();
});

const refused = (sb: Sandbox) => sb.control.stats().routes["GET /listings"]?.byStatus["429"] ?? 0;

async function world(scheduler: Scheduler, limit: number, windowMs: number) {
  sandbox = await startSandbox({ rateLimit: false, addressRateLimit: { limit, windowMs } });
  client = createMarketClient({
    baseUrl: sandbox.baseUrl,
    logger: createLogger({ level: "silent" }),
    scheduler,
    retry: { attempts: 6, baseDelayMs: 50, maxDelayMs: 500, maxTotalMs: 20_000 },
  });
  const [a, b] = sandbox.users;
  return {
    sb: sandbox,
    keys: [
      client.forKey(a?.apiKey, { priority: "background" }),
      client.forKey(b?.apiKey, { priority: "background" }),
    ],
    command: client.forKey(a?.apiKey),
  };
}

describe("the address budget against the sandbox", () => {
  it("GIVEN a configured budget of 12 per 2 s WHEN two keys read 20 times together THEN every read succeeds with no 429", async () => {
    const scheduler = createScheduler({ budget: { limit: 12, windowMs: 2000 } });
    const { sb, keys, command } = await world(scheduler, 12, 2000);
    const reads = Array.from({ length: 18 }, (_, i) =>
      (keys[i % 2] as (typeof keys)[0]).searchListings({ limit: 1 }),
    );
    reads.push(command.searchListings({ limit: 1 }), command.searchListings({ limit: 1 }));
    const pages = await Promise.all(reads);
    expect(pages).toHaveLength(20);
    expect(refused(sb)).toBe(0);
    expect(scheduler.stats().sent.command).toBe(2);
  });

  it("GIVEN no budget configured WHEN two keys run into the address's limit THEN the scheduler learns it from their 429s and the reads still all succeed", async () => {
    const scheduler = createScheduler({ learnedWindowMs: 2000 });
    const { sb, keys } = await world(scheduler, 10, 2000);
    const pages = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (keys[i % 2] as (typeof keys)[0]).searchListings({ limit: 1 })),
    );
    expect(pages).toHaveLength(24);
    const stats = scheduler.stats();
    expect(stats.source).toBe("learned");
    expect(stats.budget?.limit).toBeLessThanOrEqual(10);
    // Only the refusals that taught it: once learned, nothing more was refused.
    const taught = refused(sb);
    expect(taught).toBeGreaterThanOrEqual(2);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => (keys[i % 2] as (typeof keys)[0]).searchListings({ limit: 1 })),
    );
    expect(refused(sb)).toBe(taught);
  });
});

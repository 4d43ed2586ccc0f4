// Fair use of the operator key: a per-user allowance, and a reserve of the budget for the feed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedReads } from "../../src/accounts/sharedReads.ts";
import { UserFacingError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sandbox: Sandbox;
let market: MarketClient;
let key: string;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: { limit: 10, windowMs: 60_000 } });
  market = createMarketClient({ baseUrl: sandbox.baseUrl, logger: createLogger({ level: "silent" }) });
  key = sandbox.users[0]?.apiKey ?? "";
});

afterAll(async () => {
  await market.close();
  await sandbox.close();
});

async function refusal(fn: () => Promise<unknown>): Promise<UserFacingError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof UserFacingError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("shared reads", () => {
  it("GIVEN an allowance of 3 WHEN one user reads a 4th time at once THEN it is refused with the wait, others are not, and time gives it back", async () => {
    let t = 1_000_000;
    const reads = createSharedReads({
      market,
      key,
      burst: 3,
      refillMs: 5_000,
      reserveShare: 0,
      now: () => t,
    });
    const listing = sandbox.control.createListing({ price: 1_000 });
    const eve = reads.forUser("111");

    for (let i = 0; i < 3; i += 1) await eve.getListing(listing.id);
    const refused = await refusal(() => eve.getListing(listing.id));

    expect(refused.code).toBe("rate_limited");
    expect(refused.userMessage).toContain("try again in 5 s");
    expect(refused.userMessage).toContain("/account link");
    await expect(reads.forUser("222").getListing(listing.id)).resolves.toMatchObject({ id: listing.id });
    t += 5_000;
    await expect(eve.getListing(listing.id)).resolves.toMatchObject({ id: listing.id });
  });

  it("GIVEN the feed used half of the key's search budget WHEN a user searches THEN the read is refused and the feed still reads", async () => {
    const reads = createSharedReads({ market, key, burst: 100, reserveShare: 0.5 });
    const feed = market.forKey(key);
    // The feed's own polls, on the same key and endpoint (10 a minute in this sandbox).
    for (let i = 0; i < 6; i += 1) await feed.searchListings({ limit: 5, sort_by: "most_recent" });

    const refused = await refusal(() => reads.forUser("333").searchListings({ limit: 5 }));

    expect(refused.code).toBe("rate_limited");
    expect(refused.userMessage).toContain("kept for everyone's alerts");
    await expect(feed.searchListings({ limit: 5, sort_by: "most_recent" })).resolves.toHaveProperty("data");
  });
});

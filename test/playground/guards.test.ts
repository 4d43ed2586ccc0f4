// The playground's Rivals card: the sandbox panel makes a rival buy order and a rival listing
// (what /buyorder guard and /sell guard answer), its script is served, and the page lists the
// guard and auto-accept commands.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createMarketClient } from "../../src/market/client.ts";
import { pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

let pg: TestPlayground;
let boot: { defaultChannelId: string };

beforeAll(async () => {
  pg = await startTestPlayground();
  boot = (await pageApi<{ defaultChannelId: string }>(pg.url, "/api/bootstrap")).body;
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  expect(pg?.errorLogs() ?? []).toEqual([]);
});

const ITEM = "Falcon Rifle | Ember Tide (Field Worn)";

describe("the Rivals card", () => {
  it("GIVEN the sandbox panel WHEN it makes a rival buy order THEN the marketplace shows it among the item's orders for that float range", async () => {
    const made = await pageApi<{ order: { id: string; price: number } }>(
      pg.url,
      "/api/sandbox/rival-orders",
      {
        body: { marketHashName: ITEM, maxPrice: 4_321, minFloat: 0.19, maxFloat: 0.21 },
      },
    );
    expect(made.status).toBe(200);
    expect(made.body.order.price).toBe(4_321);
    const client = createMarketClient({
      baseUrl: pg.sandbox.baseUrl,
      logger: createLogger({ level: "silent" }),
    });
    try {
      const alice = pg.sandbox.users.find((u) => u.name === "alice");
      const similar = await client.forKey(alice?.apiKey).getSimilarBuyOrders({
        market_hash_name: ITEM,
        hybrid_properties: { min_float: 0.2, max_float: 0.2 },
      });
      expect(similar.map((o) => o.price)).toContain(4_321);
    } finally {
      await client.close();
    }
  });

  it("GIVEN the sandbox panel WHEN it makes a rival listing with a float THEN the listing has that item, price and float", async () => {
    const made = await pageApi<{
      listing: { price: number; item: { market_hash_name: string; float_value: number } };
    }>(pg.url, "/api/sandbox/listings", { body: { market_hash_name: ITEM, price: 1_234, float_value: 0.2 } });
    expect(made.status).toBe(200);
    expect(made.body.listing).toMatchObject({
      price: 1_234,
      item: { market_hash_name: ITEM, float_value: 0.2 },
    });
  });

  it("GIVEN a bad rival order WHEN the panel sends it THEN it is refused and nothing is made", async () => {
    // Watched at the sandbox's own control, not by counting its requests: the playground's bot
    // keeps polling the sandbox meanwhile.
    const make = vi.spyOn(pg.sandbox.control, "createRivalBuyOrder");
    try {
      const bad = await pageApi(pg.url, "/api/sandbox/rival-orders", {
        body: { marketHashName: "", maxPrice: 1 },
      });
      expect(bad.status).toBe(400);
      expect(make).not.toHaveBeenCalled();
    } finally {
      make.mockRestore();
    }
  });

  it("GIVEN the page WHEN it loads the Rivals script and the commands THEN both are there", async () => {
    const script = await fetch(new URL("/panel/rivals.js", pg.url));
    expect(script.status).toBe(200);
    expect(await script.text()).toContain("create-rival-order");
    const { body } = await pageApi<{ commands: { name: string; options?: { name: string }[] }[] }>(
      pg.url,
      `/api/commands?user=alice&channelId=${boot.defaultChannelId}`,
    );
    const subs = (name: string) =>
      body.commands.find((c) => c.name === name)?.options?.map((o) => o.name) ?? [];
    expect(subs("buyorder")).toContain("guard");
    expect(subs("sell")).toContain("guard");
    expect(subs("trades")).toContain("autoaccept");
    // One place to see it all and stop it: /automation is offered in the page's composer.
    expect(body.commands.map((c) => c.name)).toContain("automation");
  });
});

// The sandbox answers as recorded live answers do (docs/live-service.md): auction steps, snowflake
// ids, the buy-order create reply's zero created_at, and per-route rate-limit budgets by default.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { snowflakeTime } from "../../src/market/ids.ts";
import { BuyOrder, Listing } from "../../src/market/schemas.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { call, parse, useSandbox } from "./helpers.ts";

const HOUR = 3_600_000;

describe("auction steps", () => {
  const t = useSandbox();

  it("GIVEN auctions standing at each price a live step was recorded at WHEN read THEN min_next_bid is that price plus the recorded step", async () => {
    // [standing price, step seen live], cents: +5c at $0.15, +$1 at $54, +$2.50 at $245, +$5 at
    // $318-478, +$10 at $796-962, +$25 at $1,455.
    const recorded: [number, number][] = [
      [15, 5],
      [5_400, 100],
      [24_500, 250],
      [31_800, 500],
      [47_800, 500],
      [79_600, 1_000],
      [96_200, 1_000],
      [145_500, 2_500],
    ];
    const bidder = t.sb.control.createUser({ name: "stepper", balance: 10_000_000 });

    const seen: [number, number][] = [];
    for (const [price] of recorded) {
      const l = t.sb.control.createListing({ type: "auction", price, auction_duration_ms: HOUR });
      const placed = await t.api("POST", `/listings/${l.id}/bid`, {
        key: bidder.apiKey,
        body: { max_price: price },
      });
      expect(placed.status).toBe(200);
      const now = parse(Listing, await t.api("GET", `/listings/${l.id}`));
      seen.push([now.price, (now.auction_details?.min_next_bid ?? 0) - now.price]);
    }

    expect(seen).toEqual(recorded);
  });
});

describe("ids and buy-order times", () => {
  const t = useSandbox();

  it("GIVEN a listing made through the API WHEN read THEN its id's own time is its created_at to the millisecond", async () => {
    const assetId = t.sb.control.inventory(t.aliceId)[0] ?? "";

    const made = parse(
      Listing,
      await t.api("POST", "/listings", { key: t.alice, body: { asset_id: assetId, price: 777 } }),
    );

    expect(snowflakeTime(made.id)?.toISOString()).toBe(made.created_at);
  });

  it("GIVEN a buy order placed through the API WHEN its reply and the order list are read THEN created_at is the zero time and the id tells when it was made", async () => {
    const before = t.sb.control.now();
    const reply = await t.api("POST", "/buy-orders", {
      key: t.bob,
      body: { market_hash_name: "Falcon Rifle | Ember Tide (Pristine)", max_price: 150, quantity: 1 },
    });
    const after = t.sb.control.now();

    const order = parse(BuyOrder, reply);
    expect(order.created_at).toBe("0001-01-01T00:00:00Z");
    const listed = parse(
      z.object({ orders: z.array(BuyOrder) }),
      await t.api("GET", "/me/buy-orders", { key: t.bob }),
    ).orders.find((o) => o.id === order.id);
    expect(listed?.created_at).toBe("0001-01-01T00:00:00Z");
    const made = snowflakeTime(order.id)?.getTime() ?? 0;
    expect(made).toBeGreaterThanOrEqual(before);
    expect(made).toBeLessThanOrEqual(after);
  });
});

describe("rate limits by default: the live budgets", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  const get = (path: string, key = sandbox.operatorKey) => call(sandbox.baseUrl, "GET", path, { key });
  const budget = (headers: Record<string, string>) => ({
    limit: Number(headers["x-ratelimit-limit"]),
    resetInS: Number(headers["x-ratelimit-reset"]) - Date.now() / 1000,
  });

  it("GIVEN the default sandbox WHEN the feed's route and one listing are read THEN each reports its own budget as recorded live, the reset in epoch seconds", async () => {
    const page = await get("/listings?limit=1");
    const one = budget(page.headers);
    const id = (page.json as { data: { id: string }[] }).data[0]?.id ?? "";
    const listing = budget((await get(`/listings/${id}`)).headers);
    const me = budget((await get("/me", sandbox.users[0]?.apiKey)).headers);

    expect(one.limit).toBe(200);
    expect(one.resetInS).toBeGreaterThan(3_590);
    expect(one.resetInS).toBeLessThanOrEqual(3_601);
    expect(listing.limit).toBe(50_000);
    expect(listing.resetInS).toBeGreaterThan(15 * 3_600 - 10);
    expect(listing.resetInS).toBeLessThanOrEqual(15 * 3_600 + 1);
    expect(me.limit).toBe(1_000);
    expect(me.resetInS).toBeLessThanOrEqual(3_601);
  });

  it("GIVEN the default sandbox WHEN one address sends more than its budget with several keys THEN it is refused with 429 and Retry-After, though no key ran out", async () => {
    const keys = [sandbox.operatorKey, ...sandbox.users.map((u) => u.apiKey)];
    let sent = 0;
    let refused: Awaited<ReturnType<typeof get>> | undefined;
    // Four keys, 400 each at most: every key stays within its own 1,000 an hour.
    while (refused === undefined && sent < 1_600) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, i) => get("/me/offers-timeline", keys[(sent + i) % keys.length])),
      );
      sent += batch.length;
      refused = batch.find((a) => a.status === 429);
    }

    expect(refused?.status).toBe(429);
    expect(refused?.json).toMatchObject({ message: "too many requests from this address" });
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(0);
    // Not before the address budget (1,500 in 5 minutes; a few reads of the test above count too).
    expect(sent).toBeGreaterThan(1_450);
  });

  it("GIVEN the roomy profile WHEN the feed's route is read THEN 1,000 a minute, as tests and the playground use", async () => {
    const roomy = await startSandbox({ rateLimit: "roomy" });
    try {
      const page = await call(roomy.baseUrl, "GET", "/listings?limit=1", { key: roomy.operatorKey });
      const seen = budget(page.headers);
      expect(seen.limit).toBe(1_000);
      expect(seen.resetInS).toBeLessThanOrEqual(61);
    } finally {
      await roomy.close();
    }
  });
});

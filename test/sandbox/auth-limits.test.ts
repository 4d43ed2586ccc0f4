// Authentication, rate limiting and the control surface over HTTP.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Listing } from "../../src/market/schemas.ts";
import { call, ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

describe("authentication", () => {
  const t = useSandbox();

  it("answers 401 with a JSON {code, message} body without a key, with a wrong key and with a Bearer prefix", async () => {
    for (const key of [undefined, "not-a-real-key-0000000000000", `Bearer ${t.alice}`]) {
      const a = await t.api("GET", "/me/trades", key === undefined ? { anonymous: true } : { key });
      expect(a.status).toBe(401);
      expect(a.headers["content-type"]).toMatch(/application\/json/);
      parse(ErrorBodyStrict, a);
    }
    expect((await t.api("GET", "/me/trades", { key: t.alice })).status).toBe(200);
  });

  it("refuses an authenticated POST without a key before looking at its body", async () => {
    const a = await t.api("POST", "/listings/buy", {
      anonymous: true,
      body: { contract_ids: ["1"], total_price: 1 },
    });
    expect(a.status).toBe(401);
  });

  it("refuses keyless reads with 403 as the live service does (the spec calls them public), serves them with any valid key, and keeps the price graph open", async () => {
    const keyless = await t.api("GET", "/listings?limit=1", { anonymous: true });
    expect(keyless.status).toBe(403);
    expect(parse(ErrorBodyStrict, keyless).message).toContain("API key is required");
    for (const path of ["/listings/1", "/listings/1/bids", "/listings/1/similar", "/users/1/stall"]) {
      expect((await t.api("GET", path, { anonymous: true })).status, path).toBe(403);
    }
    expect((await t.api("GET", "/listings?limit=1", { key: t.bob })).status).toBe(200);
    expect((await t.api("GET", "/listings?limit=1", { key: t.sb.operatorKey })).status).toBe(200);
    const name = encodeURIComponent(t.sb.control.createListing({ price: 500 }).item.market_hash_name);
    expect((await t.api("GET", `/history/${name}/graph`, { anonymous: true })).status).toBe(200);
  });

  it("answers 401 once a key is revoked through the control surface", async () => {
    const user = t.sb.control.createUser({ name: "dave", balance: 100 });
    expect((await t.api("GET", "/me", { key: user.apiKey })).status).toBe(200);
    const revoke = await t.control("POST", "/keys/revoke", { apiKey: user.apiKey });
    expect(revoke.status).toBe(200);
    const a = await t.api("GET", "/me", { key: user.apiKey });
    expect(a.status).toBe(401);
    parse(ErrorBodyStrict, a);
  });

  it("GET /me names the caller and shows the balance in cents", async () => {
    const me = parse(
      z.object({
        user: z.object({ platform_id: z.string(), username: z.string(), balance: z.number().int() }),
      }),
      await t.api("GET", "/me", { key: t.alice }),
    );
    expect(me.user).toMatchObject({ platform_id: t.aliceId, username: "alice", balance: 500_000 });
  });

  it("answers an unknown route with a 404 JSON body and a wrong method with 405", async () => {
    const a = await t.api("GET", "/nothing-here");
    expect(a.status).toBe(404);
    parse(ErrorBodyStrict, a);
    expect((await t.api("PUT", "/listings")).status).toBe(405);
  });

  it("refuses a body that is not JSON with 400", async () => {
    const { request } = await import("undici");
    const res = await request(`${t.sb.baseUrl}/buy-orders`, {
      method: "POST",
      headers: { authorization: t.alice, "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.statusCode).toBe(400);
    expect(ErrorBodyStrict.parse(await res.body.json()).message).toMatch(/JSON/);
  });
});

describe("rate limits", () => {
  // Rate-limit windows follow the wall clock (not advanceClock); drive it through `clock`.
  let wallOffsetMs = 0;
  const t = useSandbox({ rateLimit: { limit: 3, windowMs: 60_000 }, clock: () => Date.now() + wallOffsetMs });

  it("sends X-RateLimit-* headers on every answer and 429 with Retry-After when the budget is spent", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.api("GET", "/listings?limit=1"));
    for (const a of answers) {
      expect(a.headers["x-ratelimit-limit"]).toBe("3");
      expect(Number(a.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    expect(answers.map((a) => a.headers["x-ratelimit-remaining"])).toEqual(["2", "1", "0", "0"]);
    const limited = answers[3];
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(limited?.headers["retry-after"])).toBeLessThanOrEqual(60);
    parse(ErrorBodyStrict, limited ?? (await t.api("GET", "/")));
  });

  it("keeps separate budgets per endpoint and per key, also on errors", async () => {
    const other = await t.api("GET", "/listings/1/bids");
    expect(other.status).toBe(404);
    expect(other.headers["x-ratelimit-remaining"]).toBe("2");
    const withKey = await t.api("GET", "/listings?limit=1", { key: t.alice });
    expect(withKey.status).toBe(200);
    expect(withKey.headers["x-ratelimit-remaining"]).toBe("2");
  });

  it("opens a new window once the wall clock passes the reset time, not the sandbox clock", async () => {
    const spent = await t.api("GET", "/listings?limit=1");
    expect(spent.status).toBe(429);
    t.sb.control.advanceClock(3_600_000);
    expect((await t.api("GET", "/listings?limit=1")).status).toBe(429);
    wallOffsetMs += 61_000;
    const again = await t.api("GET", "/listings?limit=1");
    expect(again.status).toBe(200);
    expect(again.headers["x-ratelimit-remaining"]).toBe("2");
  });
});

describe("rate limits disabled", () => {
  const t = useSandbox({ rateLimit: false });

  it("never answers 429 but still sends the headers", async () => {
    for (let i = 0; i < 1005; i++) {
      const a = await t.api("GET", "/listings/1/bids");
      if (a.status === 429) throw new Error("limited although disabled");
      if (i === 1004) expect(a.headers["x-ratelimit-limit"]).toEqual(expect.any(String));
    }
    expect(t.sb.control.stats().routes["GET /listings/{listing_id}/bids"]?.byStatus["404"]).toBe(1005);
  });
});

describe("control surface over HTTP", () => {
  const t = useSandbox();

  it("lists users, their inventory, and creates listings, bursts, bids and sales", async () => {
    const users = parse(
      z.object({
        users: z.array(z.object({ name: z.string(), platformId: z.string(), apiKey: z.string() })),
      }),
      await t.control("GET", "/users"),
    ).users;
    expect(users.map((u) => u.name)).toEqual(expect.arrayContaining(["alice", "bob", "carol"]));
    const inv = parse(
      z.object({ asset_ids: z.array(z.string()).min(1) }),
      await t.control("GET", `/users/${t.aliceId}/inventory`),
    );
    expect(inv.asset_ids).toEqual(t.sb.control.inventory(t.aliceId));

    const one = parse(Listing, await t.control("POST", "/listings", { price: 999, type: "auction" }));
    expect(one.type).toBe("auction");
    const burst = parse(
      z.object({ data: z.array(Listing) }),
      await t.control("POST", "/listings", { count: 3 }),
    );
    expect(burst.data).toHaveLength(3);
    const bid = await t.control("POST", "/bids", { listingId: one.id, maxPrice: 2000 });
    expect(bid.status).toBe(200);
    const sale = await t.control("POST", "/sales", { sellerPlatformId: t.bobId });
    expect(parse(z.object({ state: z.string(), seller_id: z.string() }), sale)).toEqual(
      expect.objectContaining({ state: "queued", seller_id: t.bobId }),
    );
    const bad = await t.control("POST", "/bids", { listingId: one.id, maxPrice: 1 });
    expect(bad.status).toBe(400);
    parse(ErrorBodyStrict, bad);
  });

  it("advances the clock and reports stats by route template", async () => {
    const before = parse(z.object({ now: z.number() }), await t.control("GET", "/clock")).now;
    const after = parse(
      z.object({ now: z.number() }),
      await t.control("POST", "/clock", { advanceMs: 3_600_000 }),
    ).now;
    expect(after - before).toBeGreaterThanOrEqual(3_600_000);
    await t.api("GET", "/listings/9007199254740993");
    const stats = parse(
      z.object({ total: z.number(), routes: z.record(z.string(), z.object({ total: z.number() })) }),
      await t.control("GET", "/stats"),
    );
    expect(stats.routes["GET /listings/{listing_id}"]?.total).toBeGreaterThanOrEqual(1);
  });

  it("sets a balance and creates a user whose key works at once", async () => {
    const created = parse(
      z.object({ apiKey: z.string().min(24), platformId: z.string() }),
      await t.control("POST", "/users", { name: "erin", balance: 2500 }),
    );
    const me = await call(t.sb.baseUrl, "GET", "/me", { key: created.apiKey });
    expect(me.status).toBe(200);
    await t.control("POST", `/users/${created.platformId}/balance`, { balance: 100 });
    expect(t.sb.control.balance(created.platformId).balance).toBe(100);
  });
});

describe("answered-request listener", () => {
  const t = useSandbox({ rateLimit: false });

  it("GIVEN a listener on answered requests WHEN requests are answered THEN it hears each one's route template and status as it is answered, AND nothing once stopped", async () => {
    const heard: [string, number][] = [];
    const stop = t.sb.control.onAnswer((route, status) => heard.push([route, status]));
    await t.api("GET", "/listings?limit=1");
    await t.api("GET", "/listings/1/bids");
    stop();
    await t.api("GET", "/listings?limit=1");
    expect(heard).toEqual([
      ["GET /listings", 200],
      ["GET /listings/{listing_id}/bids", 404],
    ]);
  });
});

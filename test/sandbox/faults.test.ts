// Fault injection: status, latency, hang, malformed and rate_limit kinds, matching and use counts.
import { describe, expect, it } from "vitest";
import { request } from "undici";
import { z } from "zod";
import { Listing } from "../../src/market/schemas.ts";
import { ErrorBodyStrict, Page, parse, useSandbox } from "./helpers.ts";

describe("fault injection", () => {
  const t = useSandbox();

  it("answers an injected status for the matching path only, for the given number of times", async () => {
    t.sb.control.injectFault({ path: "/listings", kind: "status", status: 503, times: 2 });
    const a = await t.api("GET", "/listings?limit=1");
    expect(a.status).toBe(503);
    parse(ErrorBodyStrict, a);
    expect((await t.api("GET", "/listings/9007199254740993")).status).not.toBe(503);
    expect((await t.api("GET", "/listings?limit=1")).status).toBe(503);
    expect((await t.api("GET", "/listings?limit=1")).status).toBe(200);
  });

  it("matches globs and methods: a POST fault leaves GETs alone", async () => {
    t.sb.control.injectFault({ method: "POST", path: "/listings/*/bid", kind: "status", status: 502 });
    const auction = t.sb.control.createListing({ type: "auction", price: 100 });
    expect((await t.api("GET", `/listings/${auction.id}/bids`)).status).toBe(200);
    const res = await t.api("POST", `/listings/${auction.id}/bid`, {
      key: t.alice,
      body: { max_price: 100 },
    });
    expect(res.status).toBe(502);
    t.sb.control.clearFaults();
    expect(
      (await t.api("POST", `/listings/${auction.id}/bid`, { key: t.alice, body: { max_price: 100 } })).status,
    ).toBe(200);
  });

  it("matches regex strings", async () => {
    t.sb.control.injectFault({ path: "^/me/.*", kind: "status", status: 500, times: 1 });
    expect((await t.api("GET", "/me/watchlist", { key: t.alice })).status).toBe(500);
    expect((await t.api("GET", "/me/watchlist", { key: t.alice })).status).toBe(200);
  });

  it("delays answers by the injected latency", async () => {
    t.sb.control.injectFault({ path: "/listings", kind: "latency", ms: 300, times: 1 });
    const started = performance.now();
    const a = await t.api("GET", "/listings?limit=1");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(parse(Page(Listing), a).data).toHaveLength(1);
  });

  it("hangs until the client gives up, then serves normally", async () => {
    t.sb.control.injectFault({ path: "/listings", kind: "hang", times: 1 });
    const aborted = request(`${t.sb.baseUrl}/listings`, { signal: AbortSignal.timeout(200) });
    await expect(aborted).rejects.toThrow();
    expect((await t.api("GET", "/listings?limit=1")).status).toBe(200);
  });

  it("answers a malformed JSON body with status 200", async () => {
    t.sb.control.injectFault({ path: "/listings", kind: "malformed", times: 1 });
    const a = await t.api("GET", "/listings");
    expect(a.status).toBe(200);
    expect(a.headers["content-type"]).toMatch(/application\/json/);
    expect(() => JSON.parse(a.text) as unknown).toThrow();
  });

  it("answers an injected 429 with Retry-After and exhausted rate-limit headers", async () => {
    t.sb.control.injectFault({ path: "/listings", kind: "rate_limit", retryAfterSeconds: 7, times: 1 });
    const a = await t.api("GET", "/listings");
    expect(a.status).toBe(429);
    expect(a.headers["retry-after"]).toBe("7");
    expect(a.headers["x-ratelimit-remaining"]).toBe("0");
    parse(ErrorBodyStrict, a);
  });

  it("takes faults over HTTP and refuses an invalid one", async () => {
    const added = await t.control("POST", "/faults", { path: "/me", kind: "status", status: 500, times: 1 });
    expect(parse(z.object({ id: z.number() }), added).id).toBeGreaterThan(0);
    expect((await t.api("GET", "/me", { key: t.alice })).status).toBe(500);
    expect((await t.control("POST", "/faults", { path: "/me", kind: "explode" })).status).toBe(400);
    await t.control("POST", "/faults", { path: "/me", kind: "status", status: 500 });
    expect((await t.control("DELETE", "/faults")).status).toBe(200);
    expect((await t.api("GET", "/me", { key: t.alice })).status).toBe(200);
  });

  it("closes promptly even with a request hanging", async () => {
    const { startSandbox } = await import("../../src/sandbox/index.ts");
    const sb = await startSandbox();
    sb.control.injectFault({ path: "/listings", kind: "hang" });
    const hanging = request(`${sb.baseUrl}/listings`).catch((e: unknown) => e);
    const deadline = Date.now() + 2000;
    while (sb.control.stats().total === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    const started = performance.now();
    await sb.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await hanging).toBeInstanceOf(Error);
  });
});

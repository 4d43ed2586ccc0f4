// The doctor's read-only tour of the marketplace: every endpoint the bot reads, called once with
// the operator's key (and the account routes again with a second user's key), each answer compared
// with what the bot reads. Writes are impossible here: the routes come from READ_ROUTES only.
import type { z } from "zod";
import { inspectBody, objectsAt } from "../market/contract/inspect.ts";
import type { DriftFinding } from "../market/contract/inspect.ts";
import { EXPECTED_RESET_UNIT, headerValue, inferResetUnit } from "../market/contract/resetUnit.ts";
import type { ResetUnit } from "../market/contract/resetUnit.ts";
import { contractOf } from "../market/contract/rules.ts";
import { ROUTES, buildPath, endpointOf } from "../market/routes.ts";
import type { Endpoint, PathParams, RouteName } from "../market/routes.ts";
import * as s from "../market/schemas.ts";
import { send } from "./http.ts";
import { ledgerUnitFinding } from "./ledgerUnit.ts";

/** The only routes the doctor may call: reads, and the one POST that only reads. */
export const READ_ROUTES = [
  "getMe",
  "searchListings",
  "getListing",
  "getListingBids",
  "getSimilarListings",
  "getHistoryGraph",
  "getHistorySales",
  "getStall",
  "getListingBuyOrders",
  "getSimilarBuyOrders",
  "getMyBuyOrders",
  "getOffersTimeline",
  "getMyTrades",
  "getTrade",
  "getTransactions",
  "getWatchlist",
] as const satisfies readonly RouteName[];
export type ReadRoute = (typeof READ_ROUTES)[number];

/** Routes outside the spec the bot uses best-effort: their absence is noted, not drift. */
const BEST_EFFORT: ReadonlySet<ReadRoute> = new Set(["getMe"]);

/** How the bot decodes each answer: unreadable elements are drift too. */
const SCHEMAS: Record<ReadRoute, z.ZodType> = {
  getMe: s.Me,
  searchListings: s.ListingPage,
  getListing: s.Listing,
  getListingBids: s.Bids,
  getSimilarListings: s.Listings,
  getHistoryGraph: s.HistoryPoints,
  getHistorySales: s.SaleEntries,
  getStall: s.StallPage,
  getListingBuyOrders: s.BuyOrderAggregates,
  getSimilarBuyOrders: s.BuyOrderAggregatesEnvelope,
  getMyBuyOrders: s.MyBuyOrdersPage,
  getOffersTimeline: s.OffersTimelinePage,
  getMyTrades: s.TradesPage,
  getTrade: s.Trade,
  getTransactions: s.TransactionsPage,
  getWatchlist: s.ListingPage,
};

export interface RateLimitSeen {
  readonly limit: string | undefined;
  readonly remaining: string | undefined;
  readonly reset: string | undefined;
  readonly resetUnit: ResetUnit | undefined;
  readonly retryAfter: string | undefined;
}

export interface ProbeResult {
  readonly route: ReadRoute;
  readonly endpoint: Endpoint;
  /** Which key read it: the operator's, or the second user's. */
  readonly key: "main" | "second";
  /** HTTP status, or why nothing came back ("timeout", "network"), or "skipped". */
  readonly status: number | "timeout" | "network" | "skipped";
  readonly latencyMs: number | undefined;
  readonly rateLimit: RateLimitSeen | undefined;
  readonly findings: readonly DriftFinding[];
  /** Why a probe was skipped, or what its answer says beyond the findings. */
  readonly note?: string;
}

export interface ProbeOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly secondApiKey?: string | undefined;
  readonly item?: string | undefined;
  readonly timeoutMs: number;
}

interface Answer {
  readonly result: ProbeResult;
  readonly body: unknown;
}

/** Probes every read route in order; later probes take their ids and names from earlier answers. */
export async function runProbes(opts: ProbeOptions): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  const base = new URL(opts.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");

  async function probe<R extends ReadRoute>(
    route: R,
    params: PathParams<R>,
    key: "main" | "second",
    extra: {
      query?: Record<string, string>;
      body?: unknown;
      broad?: boolean;
      /** Checks of the answer beyond its contract, when it came back 2xx and as JSON. */
      check?: (body: unknown) => DriftFinding | undefined;
    } = {},
  ): Promise<Answer> {
    const def = ROUTES[route];
    const endpoint = endpointOf(route);
    const url = new URL(`${base.origin}${prefix}${buildPath(route, params)}`);
    for (const [name, value] of Object.entries(extra.query ?? {})) url.searchParams.set(name, value);
    const sent = await send(url, {
      method: def.method,
      key: key === "main" ? opts.apiKey : (opts.secondApiKey ?? ""),
      body: extra.body,
      timeoutMs: opts.timeoutMs,
    });
    if ("failed" in sent) {
      const result: ProbeResult = {
        route,
        endpoint,
        key,
        status: sent.failed,
        latencyMs: sent.latencyMs,
        rateLimit: undefined,
        findings: [],
        note:
          sent.failed === "timeout"
            ? `no answer within ${opts.timeoutMs} ms`
            : "could not reach the marketplace",
      };
      results.push(result);
      return { result, body: undefined };
    }
    const { status, headers, text, latencyMs } = sent;
    const rateLimit = readRateLimit(headers);
    const findings: DriftFinding[] = [];
    if (rateLimit.resetUnit !== undefined && rateLimit.resetUnit !== EXPECTED_RESET_UNIT) {
      findings.push({
        kind: "type",
        field: "header:x-ratelimit-reset",
        expected: EXPECTED_RESET_UNIT,
        seen: rateLimit.resetUnit,
      });
    }
    let body: unknown;
    let note: string | undefined;
    if (status >= 200 && status < 300) {
      try {
        body = JSON.parse(text);
      } catch {
        findings.push({
          kind: "type",
          field: "(root)",
          expected: "a JSON body",
          seen: text === "" ? "empty" : "not JSON",
        });
      }
      if (body !== undefined) findings.push(...inspect(route, body, extra.broad ?? false));
      const checked = body === undefined ? undefined : extra.check?.(body);
      if (checked !== undefined && !findings.some((f) => f.field === checked.field && f.kind !== "unknown"))
        findings.push(checked);
    } else if (BEST_EFFORT.has(route) && status !== 401 && status !== 429 && status < 500) {
      // Not in the spec: the bot only greets the user with it, so its absence is no drift.
      note = `not offered here (status ${status}); the bot reads it best-effort`;
    } else if (status === 403 && def.path.includes("{")) {
      // One resource this key may not see (a private stall): about that resource, not the route.
      note = "this one is not visible to this key (403); the route answered";
    } else {
      findings.push({ kind: "status", field: "(status)", expected: "2xx", seen: `status ${status}` });
      note = errorNote(status);
    }
    if (sent.waitedMs > 0) {
      const waited = `waited ${Math.round(sent.waitedMs / 1000)} s for the rate limit`;
      note = note === undefined ? waited : `${note}; ${waited}`;
    }
    const result: ProbeResult = {
      route,
      endpoint,
      key,
      status,
      latencyMs,
      rateLimit,
      findings,
      ...(note === undefined ? {} : { note }),
    };
    results.push(result);
    return { result, body };
  }

  function skip(route: ReadRoute, key: "main" | "second", why: string): void {
    results.push({
      route,
      endpoint: endpointOf(route),
      key,
      status: "skipped",
      latencyMs: undefined,
      rateLimit: undefined,
      findings: [],
      note: why,
    });
  }

  const me = await probe("getMe", {}, "main");
  // Two broad samples of the market (no item filter): fields that are only usually there must show.
  const page = await probe("searchListings", {}, "main", {
    query: { limit: "50", sort_by: "most_recent" },
    broad: true,
  });
  const auctions = await probe("searchListings", {}, "main", {
    query: { limit: "50", type: "auction", sort_by: "expires_soon" },
    broad: true,
  });
  const listings = [
    ...objectsAt(listify(page.body), "data[]"),
    ...objectsAt(listify(auctions.body), "data[]"),
  ];
  // Ids of listings the bot can read, when there are any: one odd listing must not be the sample.
  const pick = (from: Record<string, unknown>[]) =>
    from.find((l) => isId(l["id"]) && s.Listing.safeParse(l).success) ?? from.find((l) => isId(l["id"]));
  const listing = pick(listings);
  const auction = pick(objectsAt(listify(auctions.body), "data[]"));
  const item =
    opts.item ?? listings.map((l) => text(objectsAt(l, "item")[0]?.["market_hash_name"])).find(Boolean);
  // A stall the key may read: a seller who shows theirs, else the caller's own.
  const sellers = listings.map((l) => objectsAt(l, "seller")[0]).filter((u) => u !== undefined);
  const sellerId =
    sellers
      .filter((u) => u["stall_public"] === true)
      .map((u) => u["platform_id"])
      .find(isId) ??
    [objectsAt(me.body, "user")[0]?.["platform_id"], objectsAt(me.body, "")[0]?.["platform_id"]].find(isId) ??
    sellers.map((u) => u["platform_id"]).find(isId);

  const noListing = "no listing id to read with: GET /listings gave none";
  if (listing !== undefined) await probe("getListing", { listing_id: String(listing["id"]) }, "main");
  else skip("getListing", "main", noListing);
  const bidsOn = auction ?? listing;
  if (bidsOn !== undefined) await probe("getListingBids", { listing_id: String(bidsOn["id"]) }, "main");
  else skip("getListingBids", "main", noListing);
  if (listing !== undefined) await probe("getSimilarListings", { listing_id: String(listing["id"]) }, "main");
  else skip("getSimilarListings", "main", noListing);

  const noItem = 'no item name to read with: the listings gave none (pass --item "<name>")';
  if (item !== undefined) {
    await probe("getHistoryGraph", { market_hash_name: item }, "main");
    await probe("getHistorySales", { market_hash_name: item }, "main");
  } else {
    skip("getHistoryGraph", "main", noItem);
    skip("getHistorySales", "main", noItem);
  }
  if (sellerId !== undefined)
    await probe("getStall", { platform_id: String(sellerId) }, "main", { query: { limit: "50" } });
  else skip("getStall", "main", "no seller id to read with");
  if (listing !== undefined)
    await probe("getListingBuyOrders", { listing_id: String(listing["id"]) }, "main");
  else skip("getListingBuyOrders", "main", noListing);
  if (item !== undefined) {
    await probe("getSimilarBuyOrders", {}, "main", {
      body: { market_hash_name: item, hybrid_properties: {} },
    });
  } else skip("getSimilarBuyOrders", "main", noItem);

  await probe("getMyBuyOrders", {}, "main");
  await probe("getOffersTimeline", {}, "main");
  const trades = await probe("getMyTrades", {}, "main");
  const trade = objectsAt(trades.body, "trades[]").find((t) => isId(t["id"]));
  if (trade !== undefined) await probe("getTrade", { trade_id: String(trade["id"]) }, "main");
  else skip("getTrade", "main", "this account has no trade to read");
  await probe("getTransactions", {}, "main", { check: (ledger) => ledgerUnitFinding(me.body, ledger) });
  await probe("getWatchlist", {}, "main");

  if (opts.secondApiKey !== undefined) {
    const secondMe = await probe("getMe", {}, "second");
    for (const route of ["getMyBuyOrders", "getOffersTimeline", "getMyTrades"] as const) {
      await probe(route, {}, "second");
    }
    await probe("getTransactions", {}, "second", {
      check: (ledger) => ledgerUnitFinding(secondMe.body, ledger),
    });
    await probe("getWatchlist", {}, "second");
  }
  return results;
}

function inspect(route: ReadRoute, body: unknown, broad: boolean): DriftFinding[] {
  const findings: DriftFinding[] = [];
  const contract = contractOf(route);
  if (contract !== undefined) findings.push(...inspectBody(contract, body, { broad }).findings);
  const { value: parsed, dropped } = s.collectDropped(() => SCHEMAS[route].safeParse(body));
  if (!parsed.success && !findings.some((f) => f.kind !== "unknown")) {
    const path = parsed.error.issues[0]?.path.map(String).join(".") ?? "";
    findings.push({
      kind: "unreadable",
      field: path === "" ? "(root)" : path,
      expected: "an answer the bot can read",
    });
  }
  const paths = new Set(dropped.map((d) => `${d.what}: ${d.path}`));
  for (const field of paths) findings.push({ kind: "unreadable", field, expected: "a readable element" });
  return findings;
}

function readRateLimit(headers: Record<string, string | string[] | undefined>): RateLimitSeen {
  const reset = headerValue(headers["x-ratelimit-reset"]);
  return {
    limit: headerValue(headers["x-ratelimit-limit"]),
    remaining: headerValue(headers["x-ratelimit-remaining"]),
    reset,
    resetUnit: inferResetUnit(reset),
    retryAfter: headerValue(headers["retry-after"]),
  };
}

function errorNote(status: number): string {
  if (status === 401) return "the key was refused (revoked or mistyped)";
  if (status === 403) return "access refused for this key";
  if (status === 404) return "route not found: gone or moved";
  if (status === 429) return "rate limited: run the doctor again after the reset";
  if (status >= 500) return "the service failed";
  return "refused";
}

/** GET /listings may answer a bare array (older versions): seen as a page. */
function listify(body: unknown): unknown {
  return Array.isArray(body) ? { data: body } : body;
}

function isId(value: unknown): value is string {
  return typeof value === "string" && /^\d+$/.test(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

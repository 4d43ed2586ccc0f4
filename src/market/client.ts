// The marketplace HTTP client: one keep-alive pool, one typed method per endpoint, rate-limit
// pacing, bounded retries for reads, and typed errors (mapped in errorMapping.ts). The only code
// that builds marketplace URLs.
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import type { z } from "zod";
import { backoffDelayMs } from "./backoff.ts";
import { checked, decodeStrict, errorCode, httpError, sanitizeCause } from "./errorMapping.ts";
import type { RawResponse } from "./errorMapping.ts";
import { MarketError } from "./errors.ts";
import { LruCache } from "./lruCache.ts";
import * as paging from "./pagination.ts";
import type { Priority } from "./scheduler.ts";
import { RateLimiter, keyFingerprint, readRateLimitHeaders } from "./rateLimit.ts";
import * as req from "./requests.ts";
import type { BuyOrderConstraints } from "./requests.ts";
import { ROUTES, buildPath, endpointOf } from "./routes.ts";
import type { Endpoint, HttpMethod, PathParams, RouteName } from "./routes.ts";
import * as s from "./schemas.ts";
import type { BuyOrderAggregate, Listing } from "./schemas.ts";

export type {
  MarketCallEvent,
  MarketDroppedEvent,
  MarketMetrics,
  RetryOptions,
  MarketClientOptions,
  MarketClient,
  MarketApi,
} from "./api.ts";
import type { MarketCallEvent, MarketClientOptions, MarketClient, MarketApi } from "./api.ts";

type QueryValue = string | number | boolean | readonly string[] | undefined;
type Query = Readonly<Record<string, QueryValue>>;

/** Why an attempt produced no HTTP answer. */
class SendFailure extends Error {
  constructor(
    readonly kind: "timeout" | "network",
    /** False only when we know the request never left (refused connection, DNS failure). */
    readonly maybeSent: boolean,
    readonly safeCause: Error,
  ) {
    super(kind);
  }
}

/** Connection failures that happen before a single byte of the request was written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** How long one attempt waits for an answer unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

const DEFAULTS = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  connections: 8,
  userAgent: "market-alerts-bot/0.1",
  maxRateLimitWaitMs: 30_000,
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxTotalMs: 30_000,
  etagCacheSize: 500,
} as const;

/** Header values may carry only visible ASCII; anything else would make undici throw mid-call. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export function createMarketClient(options: MarketClientOptions): MarketClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const userAgent = options.userAgent ?? DEFAULTS.userAgent;
  const retry = {
    attempts: Math.max(1, options.retry?.attempts ?? DEFAULTS.attempts),
    baseDelayMs: options.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
    maxDelayMs: options.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
    maxTotalMs: options.retry?.maxTotalMs ?? DEFAULTS.maxTotalMs,
  };
  const log = options.logger.child({ module: "market" });
  const pool = new Pool(base.origin, {
    connections: options.connections ?? DEFAULTS.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    // Backstops only: the per-attempt abort below fires first and is what callers see.
    headersTimeout: timeoutMs + 1_000,
    bodyTimeout: timeoutMs + 1_000,
    maxResponseSize: 16 * 1024 * 1024,
  });
  const limiter = new RateLimiter({ maxWaitMs: options.maxRateLimitWaitMs ?? DEFAULTS.maxRateLimitWaitMs });
  const buyOrdersCache = new LruCache<string, { etag: string; value: BuyOrderAggregate[] }>(
    options.etagCacheSize ?? DEFAULTS.etagCacheSize,
  );
  let closed = false;

  function tellListingRead(listing: Listing): void {
    try {
      options.onListingRead?.(listing);
    } catch (err) {
      log.warn({ err, listingId: listing.id }, "listing read observer threw");
    }
  }

  function report(event: MarketCallEvent): void {
    if (options.metrics === undefined) return;
    try {
      options.metrics.onCall(event);
    } catch (error) {
      // A broken metrics sink must not turn a good answer into a failure.
      log.warn({ err: error, endpoint: event.endpoint }, "market metrics hook threw");
    }
  }

  /** One log line per answer that had unreadable elements, and a count per kind of element. */
  function reportDropped(endpoint: Endpoint, dropped: readonly s.DroppedElement[]): void {
    const byWhat = new Map<string, number>();
    for (const d of dropped) byWhat.set(d.what, (byWhat.get(d.what) ?? 0) + 1);
    log.warn(
      {
        endpoint,
        dropped: Object.fromEntries(byWhat),
        // Where the first few broke the schema: field paths only, never values.
        at: dropped.slice(0, 3).map((d) => `${d.what}[${d.index}].${d.path}`),
      },
      "unreadable elements left out of a marketplace answer",
    );
    if (options.metrics?.onDropped === undefined) return;
    try {
      for (const [what, count] of byWhat) options.metrics.onDropped({ endpoint, what, count });
    } catch (error) {
      log.warn({ err: error, endpoint }, "market metrics hook threw");
    }
  }

  function decode<S extends z.ZodType>(route: RouteName, res: RawResponse, schema: S): z.output<S> {
    const { value, dropped } = s.collectDropped(() => decodeStrict(route, res, schema));
    if (dropped.length > 0) reportDropped(endpointOf(route), dropped);
    return value;
  }

  async function sendOnce(
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    key: string | undefined,
  ): Promise<RawResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await pool.request({
        method,
        path,
        headers,
        body: body ?? null,
        signal: controller.signal,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      const safe = sanitizeCause(error, key);
      if (controller.signal.aborted) throw new SendFailure("timeout", true, safe);
      throw new SendFailure("network", !NOT_SENT_CODES.has(errorCode(error) ?? ""), safe);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends one logical call with pacing and retries. Returns 2xx answers (and 304 when asked
   * for); every other outcome becomes a MarketError.
   */
  async function run(
    key: string | undefined,
    fingerprint: string,
    priority: Priority,
    route: RouteName,
    path: string,
    opts: { query?: Query; body?: unknown; ifNoneMatch?: string } = {},
  ): Promise<RawResponse> {
    const def = ROUTES[route];
    const endpoint = endpointOf(route);
    if (closed) throw new MarketError({ kind: "network", endpoint, detail: "client closed" });
    if (def.auth && key === undefined) {
      throw new MarketError({ kind: "unauthorized", endpoint, detail: "no API key linked" });
    }
    if (key !== undefined && !HEADER_SAFE.test(key)) {
      throw new MarketError({
        kind: "unauthorized",
        endpoint,
        detail: "API key has characters a header cannot carry",
      });
    }
    const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
    if (key !== undefined) headers["authorization"] = key;
    if (opts.ifNoneMatch !== undefined) headers["if-none-match"] = opts.ifNoneMatch;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const fullPath = `${prefix}${path}${toQueryString(opts.query)}`;
    const started = performance.now();

    for (let attempt = 1; ; attempt += 1) {
      const permit = await limiter.acquire(fingerprint, endpoint);
      // The key's budget is reserved; now the address's, in priority order.
      if (options.scheduler) {
        try {
          await options.scheduler.admit(priority);
        } catch (error) {
          permit.release();
          throw error;
        }
      }
      const t0 = performance.now();
      let res: RawResponse;
      try {
        res = await sendOnce(def.method, fullPath, headers, body, key);
      } catch (error) {
        permit.release();
        if (!(error instanceof SendFailure)) throw error;
        const durationMs = performance.now() - t0;
        report({ endpoint, status: error.kind, durationMs, rateLimitWaitMs: permit.waitedMs, attempt });
        const delay = def.idempotent ? retryDelay(attempt, started) : undefined;
        if (delay !== undefined) {
          // Debug: the caller logs the outcome once (a failed feed cycle is one line).
          log.debug(
            { endpoint, attempt, delayMs: delay, reason: error.kind },
            "market read failed, retrying",
          );
          await sleep(delay);
          continue;
        }
        throw new MarketError({
          kind: error.kind,
          endpoint,
          mayHaveSucceeded: !def.idempotent && error.maybeSent,
          detail: error.kind === "timeout" ? `no answer within ${timeoutMs} ms` : undefined,
          cause: error.safeCause,
        });
      }
      const durationMs = performance.now() - t0;
      const observed = readRateLimitHeaders(res.headers, res.status, Date.now());
      permit.release(observed);
      if (res.status === 429) {
        // Headers saying the key had nothing left: its own limit, not the address's.
        options.scheduler?.refused(fingerprint, observed.retryAfterMs, {
          keyExhausted: observed.remaining === 0,
        });
      }
      report({ endpoint, status: res.status, durationMs, rateLimitWaitMs: permit.waitedMs, attempt });
      log.debug({ endpoint, status: res.status, durationMs: Math.round(durationMs), attempt }, "market call");

      if ((res.status >= 200 && res.status < 300) || (res.status === 304 && opts.ifNoneMatch !== undefined)) {
        return res;
      }
      if (res.status === 429 && attempt < retry.attempts) {
        // Not processed, so even writes may go again; the limiter now holds the wait.
        log.warn({ endpoint, attempt }, "market call rate limited, waiting for the reset");
        continue;
      }
      if (res.status >= 500 && def.idempotent) {
        const delay = retryDelay(attempt, started);
        if (delay !== undefined) {
          log.debug(
            { endpoint, attempt, delayMs: delay, status: res.status },
            "market read failed, retrying",
          );
          await sleep(delay);
          continue;
        }
      }
      throw httpError(route, res, def.idempotent);
    }
  }

  function retryDelay(attempt: number, started: number): number | undefined {
    if (attempt >= retry.attempts) return undefined;
    const delay = backoffDelayMs(attempt - 1, retry);
    return performance.now() - started + delay > retry.maxTotalMs ? undefined : delay;
  }

  function forKey(rawKey: string | undefined, bound: { priority?: Priority } = {}): MarketApi {
    const key = rawKey === undefined || rawKey === "" ? undefined : rawKey;
    const fingerprint = keyFingerprint(key);
    const priority = bound.priority ?? "command";

    async function call<R extends RouteName>(
      route: R,
      params: PathParams<R>,
      opts: { query?: Query; body?: unknown; ifNoneMatch?: string } = {},
    ): Promise<RawResponse> {
      return run(key, fingerprint, priority, route, buildPath(route, params), opts);
    }

    async function json<R extends RouteName, S extends z.ZodType>(
      route: R,
      params: PathParams<R>,
      schema: S,
      opts: { query?: Query; body?: unknown } = {},
    ): Promise<z.output<S>> {
      return decode(route, await call(route, params, opts), schema);
    }

    async function empty<R extends RouteName>(
      route: R,
      params: PathParams<R>,
      opts: { query?: Query; body?: unknown } = {},
    ): Promise<void> {
      // Success bodies here are empty, a message object, or anything else: none of it is used.
      await call(route, params, opts);
    }

    const api: MarketApi = {
      searchListings: async (q = {}) => {
        const query = checked("searchListings", req.SearchListingsQuery, q);
        const { stickers, ...rest } = query;
        return json("searchListings", {}, s.ListingPage, {
          query: {
            ...rest,
            stickers: stickers === undefined ? undefined : req.encodeStickerSelectors(stickers),
          },
        });
      },
      getListing: async (id) => {
        const listing = await json("getListing", { listing_id: id }, s.Listing);
        tellListingRead(listing);
        return listing;
      },
      getListingBids: async (id) => json("getListingBids", { listing_id: id }, s.Bids),
      getSimilarListings: async (id) => json("getSimilarListings", { listing_id: id }, s.Listings),
      getHistoryGraph: async (name, q = {}) =>
        json("getHistoryGraph", { market_hash_name: name }, s.HistoryPoints, {
          query: checked("getHistoryGraph", req.HistoryQuery, q),
        }),
      getHistorySales: async (name, q = {}) =>
        json("getHistorySales", { market_hash_name: name }, s.SaleEntries, {
          query: checked("getHistorySales", req.HistoryQuery, q),
        }),
      getStall: async (platformId, q = {}) =>
        json("getStall", { platform_id: platformId }, s.StallPage, {
          query: checked("getStall", req.StallQuery, q),
        }),

      createListing: async (body) =>
        json("createListing", {}, s.Listing, { body: checked("createListing", req.NewListing, body) }),
      updateListing: async (id, patch) =>
        json("updateListing", { listing_id: id }, s.Listing, {
          body: checked("updateListing", req.ListingPatch, patch),
        }),
      deleteListing: async (id) => empty("deleteListing", { listing_id: id }),
      bulkList: async (items, opts = {}) => {
        const body = checked("bulkList", req.BulkListBody, { items, ...opts });
        return (await json("bulkList", {}, s.ListingsEnvelope, { body })).data;
      },
      bulkModify: async (modifications) => {
        const body = checked("bulkModify", req.BulkModifyBody, { modifications });
        return (await json("bulkModify", {}, s.ListingsEnvelope, { body })).data;
      },
      bulkDelist: async (ids) =>
        empty("bulkDelist", {}, { body: checked("bulkDelist", req.BulkDelistBody, { contract_ids: ids }) }),

      buyListings: async (body) => {
        const res = await call("buyListings", {}, { body: checked("buyListings", req.BuyBody, body) });
        // The spec does not show this body. The purchase happened, so an unreadable answer must not
        // turn into an error that invites a second buy: report no trades and let callers re-read.
        const trades = s.TradesEnvelope.safeParse(parseJsonOrUndefined(res.text));
        if (trades.success) return trades.data.data;
        log.warn(
          { endpoint: endpointOf("buyListings") },
          "purchase answer not understood; returning no trades",
        );
        return [];
      },
      placeBid: async (id, maxPrice) =>
        json("placeBid", { listing_id: id }, s.BidReceipt, {
          body: checked("placeBid", req.BidBody, { max_price: maxPrice }),
        }),
      getListingBuyOrders: async (id, q = {}) => {
        const query = checked("getListingBuyOrders", req.ListingBuyOrdersQuery, q);
        const cacheKey = `${id}|${query.limit ?? ""}`;
        const cached = buyOrdersCache.get(cacheKey);
        const res = await call(
          "getListingBuyOrders",
          { listing_id: id },
          cached === undefined ? { query } : { query, ifNoneMatch: cached.etag },
        );
        if (res.status === 304 && cached !== undefined) return cached.value;
        const value = decode("getListingBuyOrders", res, s.BuyOrderAggregates);
        const etag = headerText(res.headers["etag"]);
        if (etag === undefined) buyOrdersCache.delete(cacheKey);
        else buyOrdersCache.set(cacheKey, { etag, value });
        return value;
      },
      getBuyOrdersForItem: async (q) =>
        json("getBuyOrdersForItem", {}, s.ItemBuyOrders, {
          query: checked("getBuyOrdersForItem", req.BuyOrdersForItemQuery, q),
        }),
      createBuyOrder: async (body) =>
        json("createBuyOrder", {}, s.BuyOrder, { body: checked("createBuyOrder", req.NewBuyOrder, body) }),
      updateBuyOrder: async (id, desired) => {
        const { max_price, quantity, constraints } = checked("updateBuyOrder", req.BuyOrderState, desired);
        return json("updateBuyOrder", { order_id: id }, s.BuyOrder, {
          body: { max_price, quantity, ...flatConstraints(constraints) },
        });
      },
      deleteBuyOrder: async (id) => empty("deleteBuyOrder", { order_id: id }),
      getSimilarBuyOrders: async (body, q = {}) => {
        const checkedBody = checked("getSimilarBuyOrders", req.SimilarBuyOrdersBody, body);
        const res = await json("getSimilarBuyOrders", {}, s.BuyOrderAggregatesEnvelope, {
          query: checked("getSimilarBuyOrders", req.LimitQuery, q),
          // The spec wants the object even when empty.
          body: { ...checkedBody, hybrid_properties: definedOnly(checkedBody.hybrid_properties ?? {}) },
        });
        return res.data;
      },
      getMyBuyOrders: async (q = {}) =>
        json("getMyBuyOrders", {}, s.MyBuyOrdersPage, {
          query: checked("getMyBuyOrders", req.MyBuyOrdersQuery, q),
        }),

      createOffer: async (body) => {
        const offer = checked("createOffer", req.NewOffer, body);
        return json("createOffer", {}, s.Offer, {
          body: { ...offer, cancel_previous_offer: offer.cancel_previous_offer ?? false },
        });
      },
      counterOffer: async (id, price) =>
        json("counterOffer", { offer_id: id }, s.Offer, {
          body: checked("counterOffer", req.PriceBody, { price }),
        }),
      getOffersTimeline: async (q = {}) =>
        json("getOffersTimeline", {}, s.OffersTimelinePage, {
          query: checked("getOffersTimeline", req.OffersTimelineQuery, q),
        }),

      getMyTrades: async (q = {}) => {
        const { state, ...rest } = checked("getMyTrades", req.MyTradesQuery, q);
        return json("getMyTrades", {}, s.TradesPage, {
          query: { ...rest, state: Array.isArray(state) ? state.join(",") : state },
        });
      },
      getTrade: async (id) => json("getTrade", { trade_id: id }, s.Trade),
      acceptTrade: async (id) => empty("acceptTrade", { trade_id: id }),
      bulkAcceptTrades: async (ids) => {
        const body = checked("bulkAcceptTrades", req.TradeIdsBody, { trade_ids: ids });
        return (await json("bulkAcceptTrades", {}, s.TradesEnvelope, { body })).data;
      },
      bulkCancelTrades: async (ids) => {
        const body = checked("bulkCancelTrades", req.TradeIdsBody, { trade_ids: ids });
        return (await json("bulkCancelTrades", {}, s.TradesEnvelope, { body })).data;
      },

      getTransactions: async (q = {}) =>
        json("getTransactions", {}, s.TransactionsPage, {
          query: checked("getTransactions", req.TransactionsQuery, q),
        }),
      getWatchlist: async (q = {}) =>
        json("getWatchlist", {}, s.ListingPage, { query: checked("getWatchlist", req.WatchlistQuery, q) }),
      addToWatchlist: async (id) => empty("addToWatchlist", { listing_id: id }),
      removeFromWatchlist: async (id) => empty("removeFromWatchlist", { listing_id: id }),
      getMe: async () => json("getMe", {}, s.Me),

      iterateListings: (q = {}, opts = {}) => paging.iterateListings(api, q, opts),
      iterateStall: (platformId, q = {}, opts = {}) => paging.iterateStall(api, platformId, q, opts),
      iterateWatchlist: (q = {}, opts = {}) => paging.iterateWatchlist(api, q, opts),
      iterateMyTrades: (q = {}, opts = {}) => paging.iterateMyTrades(api, q, opts),
      iterateTransactions: (q = {}, opts = {}) => paging.iterateTransactions(api, q, opts),
      iterateOffersTimeline: (q = {}, opts = {}) => paging.iterateOffersTimeline(api, q, opts),
      iterateMyBuyOrders: (q = {}, opts = {}) => paging.iterateMyBuyOrders(api, q, opts),
    };
    return api;
  }

  return {
    forKey,
    rateLimitState: (key, endpoint) => limiter.state(keyFingerprint(key === "" ? undefined : key), endpoint),
    close: async () => {
      closed = true;
      await pool.close();
    },
  };
}

/** The PATCH body of a buy order carries every constraint flat, null where unset (absolute update). */
function flatConstraints(c: BuyOrderConstraints): Record<(typeof req.CONSTRAINT_FIELDS)[number], unknown> {
  return Object.fromEntries(req.CONSTRAINT_FIELDS.map((field) => [field, c[field] ?? null])) as Record<
    (typeof req.CONSTRAINT_FIELDS)[number],
    unknown
  >;
}

/** Drops null/undefined constraints: on create, an absent constraint means "any". */
function definedOnly(c: BuyOrderConstraints): Partial<BuyOrderConstraints> {
  return Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null && v !== undefined));
}

function toQueryString(query: Query | undefined): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

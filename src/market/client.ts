// The marketplace client: one typed method per endpoint, each checking its input, building the
// path and query, and decoding the answer. The only code that builds marketplace URLs; sending,
// pacing and retries live in transport.ts, error mapping in errorMapping.ts.
import type { z } from "zod";
import { headerValue } from "./contract/resetUnit.ts";
import { ITEM_FILTERS } from "./contract/rules.ts";
import { createContractWatch } from "./contract/watch.ts";
import { checked, decodeStrict, jsonBodyOf } from "./errorMapping.ts";
import type { RawResponse } from "./errorMapping.ts";
import { LruCache } from "./lruCache.ts";
import * as paging from "./pagination.ts";
import type { Priority } from "./scheduler.ts";
import { keyFingerprint } from "./rateLimit.ts";
import * as req from "./requests.ts";
import type { BuyOrderConstraints } from "./requests.ts";
import { buildPath, endpointOf } from "./routes.ts";
import type { Endpoint, PathParams, RouteName } from "./routes.ts";
import * as s from "./schemas.ts";
import type { BuyOrderAggregate, Listing } from "./schemas.ts";
import { createTransport } from "./transport.ts";
import type { CallOptions, Query } from "./transport.ts";

export type { ContractDrift, DriftEvent } from "./contract/drift.ts";
export type {
  MarketCallEvent,
  MarketDroppedEvent,
  MarketMetrics,
  RetryOptions,
  MarketClientOptions,
  MarketClient,
  MarketApi,
} from "./api.ts";
import type { MarketClientOptions, MarketClient, MarketApi } from "./api.ts";

export { DEFAULT_TIMEOUT_MS } from "./transport.ts";

const DEFAULTS = {
  etagCacheSize: 500,
} as const;

export function createMarketClient(options: MarketClientOptions): MarketClient {
  const log = options.logger.child({ module: "market" });
  const watch = createContractWatch(options.logger, options.metrics);
  const transport = createTransport({ ...options, metrics: watch.metrics }, log);
  const buyOrdersCache = new LruCache<string, { etag: string; value: BuyOrderAggregate[] }>(
    options.etagCacheSize ?? DEFAULTS.etagCacheSize,
  );

  function tellListingRead(listing: Listing): void {
    try {
      options.onListingRead?.(listing);
    } catch (err) {
      log.warn({ err, listingId: listing.id }, "listing read observer threw");
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

  function decode<S extends z.ZodType>(
    route: RouteName,
    res: RawResponse,
    schema: S,
    sample: { broad?: boolean } = {},
  ): z.output<S> {
    // Parsed once: the contract watch and the schema read the same value.
    const body = jsonBodyOf(res);
    watch.answer(route, res, body, sample);
    const { value, dropped } = s.collectDropped(() => decodeStrict(route, res, schema, body));
    tellDropped(route, dropped);
    return value;
  }

  /**
   * What one read left out: logged and counted when anything was, and told to the contract watch
   * (an empty list ends an unreadable drift).
   */
  function tellDropped(route: RouteName, dropped: readonly s.DroppedElement[]): void {
    if (dropped.length > 0) reportDropped(endpointOf(route), dropped);
    watch.dropped(route, dropped);
  }

  /**
   * decode() for GET /listings read place first (ListingPlaces, ADR 042): the contract watch and
   * the envelope see the whole answer at once; each listing is read whole only when asked for,
   * and what does not read is reported then, as decode() reports a tolerant list's drops.
   */
  function decodePlaces(res: RawResponse, sample: { broad: boolean }): s.ListingPlaces {
    const route = "searchListings";
    const body = jsonBodyOf(res);
    watch.answer(route, res, body, sample);
    const page = decodeStrict(route, res, s.ListingPageEnvelope, body);
    const elements = new Map<s.ListingPlace, { item: unknown; index: number }>();
    const unplaced: s.DroppedElement[] = [];
    page.data.forEach((item, index) => {
      const place = s.ListingPlace.safeParse(item);
      if (place.success) elements.set(place.data, { item, index });
      else unplaced.push(s.droppedElement("listing", index, place.error));
    });
    // Told only when something was left out: an empty report would end an unreadable drift on the
    // strength of listings not read yet.
    if (unplaced.length > 0) tellDropped(route, unplaced);
    return {
      places: [...elements.keys()],
      cursor: page.cursor,
      listings(at) {
        const asked = at.flatMap((place) => elements.get(place) ?? []);
        if (asked.length === 0) return [];
        const { value, dropped } = s.collectDropped(() => s.readTolerantly(s.Listing, "listing", asked));
        tellDropped(route, dropped);
        return value;
      },
    };
  }

  function forKey(rawKey: string | undefined, bound: { priority?: Priority } = {}): MarketApi {
    const key = rawKey === undefined || rawKey === "" ? undefined : rawKey;
    const fingerprint = keyFingerprint(key);
    const priority = bound.priority ?? "command";

    async function call<R extends RouteName>(
      route: R,
      params: PathParams<R>,
      opts: CallOptions = {},
    ): Promise<RawResponse> {
      return transport.run(key, fingerprint, priority, route, buildPath(route, params), opts);
    }

    async function json<R extends RouteName, S extends z.ZodType>(
      route: R,
      params: PathParams<R>,
      schema: S,
      opts: { query?: Query; body?: unknown; broad?: boolean } = {},
    ): Promise<z.output<S>> {
      const { broad, ...sent } = opts;
      return decode(route, await call(route, params, sent), schema, broad === undefined ? {} : { broad });
    }

    async function empty<R extends RouteName>(
      route: R,
      params: PathParams<R>,
      opts: { query?: Query; body?: unknown } = {},
    ): Promise<void> {
      // Success bodies here are empty, a message object, or anything else: none of it is used.
      await call(route, params, opts);
    }

    /** GET /listings' query, checked, and whether it samples the whole market (the contract watch's). */
    function listingsQuery(q: req.SearchListingsQuery): { query: Query; broad: boolean } {
      const query = checked("searchListings", req.SearchListingsQuery, q);
      const { stickers, ...rest } = query;
      return {
        broad: ITEM_FILTERS.every((name) => query[name] === undefined),
        query: {
          ...rest,
          stickers: stickers === undefined ? undefined : req.encodeStickerSelectors(stickers),
        },
      };
    }

    const api: MarketApi = {
      searchListings: async (q = {}) => json("searchListings", {}, s.ListingPage, listingsQuery(q)),
      searchListingPlaces: async (q = {}) => {
        const { query, broad } = listingsQuery(q);
        return decodePlaces(await call("searchListings", {}, { query }), { broad });
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
        watch.holdMoney("buy", "buyListings");
        const res = await call("buyListings", {}, { body: checked("buyListings", req.BuyBody, body) });
        // The spec does not show this body. Live it is `{ message: "all listings purchased" }`: a
        // success with no trades (callers find theirs in GET /me/trades). The purchase happened
        // either way, so an unreadable answer must not turn into an error that invites a second
        // buy: report no trades and let callers re-read.
        const answer = s.PurchaseAnswer.safeParse(parseJsonOrUndefined(res.text));
        if (answer.success) return answer.data;
        log.warn(
          { endpoint: endpointOf("buyListings") },
          "purchase answer not understood; returning no trades",
        );
        return [];
      },
      placeBid: async (id, maxPrice) => {
        watch.holdMoney("bid", "placeBid");
        return json("placeBid", { listing_id: id }, s.BidReceipt, {
          body: checked("placeBid", req.BidBody, { max_price: maxPrice }),
        });
      },
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
      createBuyOrder: async (body) => {
        watch.holdMoney("buyOrder", "createBuyOrder");
        return json("createBuyOrder", {}, s.BuyOrder, {
          body: checked("createBuyOrder", req.NewBuyOrder, body),
        });
      },
      updateBuyOrder: async (id, desired) => {
        watch.holdMoney("buyOrder", "updateBuyOrder");
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
        watch.holdMoney("offer", "createOffer");
        const offer = checked("createOffer", req.NewOffer, body);
        return json("createOffer", {}, s.Offer, {
          body: { ...offer, cancel_previous_offer: offer.cancel_previous_offer ?? false },
        });
      },
      counterOffer: async (id, price) => {
        watch.holdMoney("offer", "counterOffer");
        return json("counterOffer", { offer_id: id }, s.Offer, {
          body: checked("counterOffer", req.PriceBody, { price }),
        });
      },
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
    rateLimitState: (key, endpoint) =>
      transport.rateLimitState(keyFingerprint(key === "" ? undefined : key), endpoint),
    contractDrift: watch.drift,
    close: () => transport.close(),
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

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return headerValue(value);
}

// What the marketplace client offers: the typed API of every endpoint, its options, and the
// events it reports. Implemented by src/market/client.ts; pagination.ts and callers depend on
// these types only.
import type { Logger } from "../log.ts";
import type { ContractDrift, DriftEvent } from "./contract/drift.ts";
import type { RateLimitState } from "./rateLimit.ts";
import type {
  BuyBody,
  BuyOrderState,
  BuyOrdersForItemQuery,
  HistoryQuery,
  LimitQuery,
  ListingBuyOrdersQuery,
  ListingModification,
  ListingPatch,
  MyBuyOrdersQuery,
  MyTradesQuery,
  NewBuyOrder,
  NewListing,
  NewOffer,
  OffersTimelineQuery,
  SearchListingsQuery,
  SimilarBuyOrdersBody,
  StallQuery,
  TransactionsQuery,
  WatchlistQuery,
} from "./requests.ts";
import type { Endpoint } from "./routes.ts";
import type { Priority, Scheduler } from "./scheduler.ts";
import type {
  Bid,
  HistoryPoint,
  ItemBuyOrder,
  BidReceipt,
  BuyOrder,
  BuyOrderAggregate,
  Listing,
  ListingPage,
  ListingPlaces,
  Me,
  MyBuyOrdersPage,
  Offer,
  OffersTimelinePage,
  SaleEntry,
  StallPage,
  Trade,
  TradesPage,
  Transaction,
  TransactionsPage,
} from "./schemas.ts";

export interface PageOptions {
  /** Stop after this many pages even if the service offers more (a guard against loops and cost). */
  maxPages?: number;
}

export interface MarketCallEvent {
  /** Template such as "GET /listings/{listing_id}": bounded cardinality for metrics. */
  endpoint: Endpoint;
  status: number | "timeout" | "network";
  durationMs: number;
  /** Time this attempt waited for the rate-limit budget before it was sent. */
  rateLimitWaitMs: number;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
}

/** Elements of one answer that could not be read and were left out (the rest was used). */
export interface MarketDroppedEvent {
  endpoint: Endpoint;
  /** What was dropped, e.g. "listing", "trade.contract". */
  what: string;
  count: number;
}

export interface MarketMetrics {
  onCall(event: MarketCallEvent): void;
  onDropped?(event: MarketDroppedEvent): void;
  /** A contract drift started (active) or ended, per endpoint, field and kind. */
  onDrift?(event: DriftEvent): void;
}

export interface RetryOptions {
  /** Tries in all, including the first. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** No retry starts once this much time has passed since the call began. */
  maxTotalMs?: number;
}

export interface MarketClientOptions {
  /** Ends with /api/v1; its path prefix is kept for every request. */
  baseUrl: string;
  logger: Logger;
  /** Per attempt, headers and body included. */
  timeoutMs?: number;
  connections?: number;
  userAgent?: string;
  metrics?: MarketMetrics;
  /** Longer waits for a rate-limit reset fail at once with rate_limited and retryAfterMs. */
  maxRateLimitWaitMs?: number;
  retry?: RetryOptions;
  /** Entries of the ETag cache of GET /listings/{id}/buy-orders. */
  etagCacheSize?: number;
  /**
   * Told of every listing read one by one (GET /listings/{id}), whoever read it: how the bot
   * learns that alerted listings sold without polling them. Must not block; errors are logged.
   */
  onListingRead?: (listing: Listing) => void;
  /**
   * The address's budget, shared by every key and priority (src/market/scheduler.ts); without
   * one, requests are paced per key only.
   */
  scheduler?: Scheduler;
}

export interface MarketClient {
  /**
   * Binds one user's API key (or none) for the calls made through the returned API, at a
   * priority for the address's budget: `command` (default: a user is waiting), `money`,
   * `deadline`, `feed`, `background` or `backfill`.
   */
  forKey(key: string | undefined, opts?: { priority?: Priority }): MarketApi;
  /** The budget last reported for this key and endpoint; undefined until an answer carried one. */
  rateLimitState(key: string | undefined, endpoint: Endpoint): RateLimitState | undefined;
  /** Drift of the live answers from what the bot reads, while it lasts (src/market/contract/). */
  readonly contractDrift: ContractDrift;
  close(): Promise<void>;
}

export interface MarketApi {
  // 4.1 market data
  searchListings(q?: SearchListingsQuery): Promise<ListingPage>;
  /**
   * searchListings for a reader that needs only some of the page whole (the feed: the listings
   * newer than its mark): every element's place is read, a listing only when asked for (ADR 042).
   */
  searchListingPlaces(q?: SearchListingsQuery): Promise<ListingPlaces>;
  getListing(id: string): Promise<Listing>;
  getListingBids(id: string): Promise<Bid[]>;
  getSimilarListings(id: string): Promise<Listing[]>;
  getHistoryGraph(marketHashName: string, q?: HistoryQuery): Promise<HistoryPoint[]>;
  getHistorySales(marketHashName: string, q?: HistoryQuery): Promise<SaleEntry[]>;
  getStall(platformId: string, q?: StallQuery): Promise<StallPage>;
  // 4.2 selling
  createListing(body: NewListing): Promise<Listing>;
  updateListing(id: string, patch: ListingPatch): Promise<Listing>;
  deleteListing(id: string): Promise<void>;
  bulkList(items: readonly NewListing[], opts?: { notary_payload?: string }): Promise<Listing[]>;
  bulkModify(modifications: readonly ListingModification[]): Promise<Listing[]>;
  bulkDelist(ids: readonly string[]): Promise<void>;
  // 4.3 buying
  /**
   * Never retried except after a 429. On timeout or a lost connection the error says
   * mayHaveSucceeded: re-read the listings before telling the user anything. Resolves with the
   * trades the purchase opened when the answer lists them (the spec does not show it), else [].
   */
  buyListings(body: BuyBody): Promise<Trade[]>;
  /** Resolves with the bid's receipt: live it has no price or state; read the listing for those. */
  placeBid(id: string, maxPrice: number): Promise<BidReceipt>;
  getListingBuyOrders(id: string, q?: ListingBuyOrdersQuery): Promise<BuyOrderAggregate[]>;
  getBuyOrdersForItem(q: BuyOrdersForItemQuery): Promise<ItemBuyOrder[]>;
  createBuyOrder(body: NewBuyOrder): Promise<BuyOrder>;
  /** Absolute update: `desired.constraints` is the complete set; anything missing is cleared. */
  updateBuyOrder(id: string, desired: BuyOrderState): Promise<BuyOrder>;
  deleteBuyOrder(id: string): Promise<void>;
  getSimilarBuyOrders(body: SimilarBuyOrdersBody, q?: LimitQuery): Promise<BuyOrderAggregate[]>;
  getMyBuyOrders(q?: MyBuyOrdersQuery): Promise<MyBuyOrdersPage>;
  // 4.4 offers
  createOffer(body: NewOffer): Promise<Offer>;
  counterOffer(id: string, price: number): Promise<Offer>;
  getOffersTimeline(q?: OffersTimelineQuery): Promise<OffersTimelinePage>;
  // 4.5 trades
  getMyTrades(q?: MyTradesQuery): Promise<TradesPage>;
  getTrade(id: string): Promise<Trade>;
  acceptTrade(id: string): Promise<void>;
  bulkAcceptTrades(ids: readonly string[]): Promise<Trade[]>;
  bulkCancelTrades(ids: readonly string[]): Promise<Trade[]>;
  // 4.6 account
  getTransactions(q?: TransactionsQuery): Promise<TransactionsPage>;
  getWatchlist(q?: WatchlistQuery): Promise<ListingPage>;
  addToWatchlist(id: string): Promise<void>;
  removeFromWatchlist(id: string): Promise<void>;
  /** Not in the spec; use best-effort (e.g. to show who a key belongs to). */
  getMe(): Promise<Me>;
  // Pagination to the end (or maxPages), item by item.
  iterateListings(q?: Omit<SearchListingsQuery, "cursor">, opts?: PageOptions): AsyncGenerator<Listing>;
  iterateStall(
    platformId: string,
    q?: Omit<StallQuery, "cursor">,
    opts?: PageOptions,
  ): AsyncGenerator<Listing>;
  iterateWatchlist(q?: Omit<WatchlistQuery, "cursor">, opts?: PageOptions): AsyncGenerator<Listing>;
  iterateMyTrades(q?: Omit<MyTradesQuery, "page">, opts?: PageOptions): AsyncGenerator<Trade>;
  iterateTransactions(q?: Omit<TransactionsQuery, "page">, opts?: PageOptions): AsyncGenerator<Transaction>;
  iterateOffersTimeline(q?: Omit<OffersTimelineQuery, "page">, opts?: PageOptions): AsyncGenerator<Offer>;
  iterateMyBuyOrders(q?: Omit<MyBuyOrdersQuery, "page">, opts?: PageOptions): AsyncGenerator<BuyOrder>;
}

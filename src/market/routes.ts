// The route table: the one place where marketplace path templates are written down.
import { MarketError } from "./errors.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

interface RouteDef {
  readonly method: HttpMethod;
  readonly path: string;
  /** Needs an API key: without one the client fails locally instead of collecting a 401. */
  readonly auth: boolean;
  /**
   * Safe to repeat after a timeout or 5xx. True for GETs and for the one POST that only reads
   * (similar buy orders); every real write is sent at most once unless the service said 429.
   */
  readonly idempotent: boolean;
  /** Path parameters that are free text (URL-encoded) instead of numeric ids. */
  readonly textParams?: readonly string[];
}

const get = (path: string, auth: boolean, textParams?: readonly string[]) =>
  ({ method: "GET", path, auth, idempotent: true, ...(textParams ? { textParams } : {}) }) as const;
const write = (method: Exclude<HttpMethod, "GET">, path: string) =>
  ({ method, path, auth: true, idempotent: false }) as const;

export const ROUTES = {
  // 4.1 market data
  searchListings: get("/listings", false),
  getListing: get("/listings/{listing_id}", false),
  getListingBids: get("/listings/{listing_id}/bids", false),
  getSimilarListings: get("/listings/{listing_id}/similar", false),
  getHistoryGraph: get("/history/{market_hash_name}/graph", false, ["market_hash_name"]),
  getHistorySales: get("/history/{market_hash_name}/sales", false, ["market_hash_name"]),
  getStall: get("/users/{platform_id}/stall", false),
  // 4.2 selling
  createListing: write("POST", "/listings"),
  updateListing: write("PATCH", "/listings/{listing_id}"),
  deleteListing: write("DELETE", "/listings/{listing_id}"),
  bulkList: write("POST", "/listings/bulk-list"),
  bulkModify: write("PATCH", "/listings/bulk-modify"),
  bulkDelist: write("PATCH", "/listings/bulk-delist"),
  // 4.3 buying
  buyListings: write("POST", "/listings/buy"),
  placeBid: write("POST", "/listings/{listing_id}/bid"),
  getListingBuyOrders: get("/listings/{listing_id}/buy-orders", false),
  getBuyOrdersForItem: get("/buy-orders/item", false),
  createBuyOrder: write("POST", "/buy-orders"),
  updateBuyOrder: write("PATCH", "/buy-orders/{order_id}"),
  deleteBuyOrder: write("DELETE", "/buy-orders/{order_id}"),
  getSimilarBuyOrders: { method: "POST", path: "/buy-orders/similar-orders", auth: true, idempotent: true },
  getMyBuyOrders: get("/me/buy-orders", true),
  // 4.4 offers
  createOffer: write("POST", "/offers"),
  counterOffer: write("POST", "/offers/{offer_id}/counter-offer"),
  getOffersTimeline: get("/me/offers-timeline", true),
  // 4.5 trades
  getMyTrades: get("/me/trades", true),
  getTrade: get("/trades/{trade_id}", true),
  acceptTrade: write("POST", "/trades/{trade_id}/accept"),
  bulkAcceptTrades: write("POST", "/trades/bulk/accept"),
  bulkCancelTrades: write("POST", "/trades/bulk/cancel"),
  // 4.6 account
  getTransactions: get("/me/transactions", true),
  getWatchlist: get("/me/watchlist", true),
  addToWatchlist: write("POST", "/listings/{listing_id}/watchlist"),
  removeFromWatchlist: write("DELETE", "/listings/{listing_id}/watchlist"),
  // Not in the spec: the live service and the sandbox answer it (who am I, balance).
  getMe: get("/me", true),
} as const satisfies Record<string, RouteDef>;

export type RouteName = keyof typeof ROUTES;
type Route<R extends RouteName> = (typeof ROUTES)[R];

/** "GET /listings/{listing_id}": the label used for metrics, rate-limit buckets and errors. */
export type Endpoint = { [R in RouteName]: `${Route<R>["method"]} ${Route<R>["path"]}` }[RouteName];

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;
export type PathParams<R extends RouteName> = { readonly [K in ParamNames<Route<R>["path"]>]: string };

export function endpointOf(route: RouteName): Endpoint {
  const def = ROUTES[route];
  return `${def.method} ${def.path}` as Endpoint;
}

const NUMERIC_ID = /^\d+$/;

/**
 * Fills a template's parameters, validating each before any request is made: ids must match
 * ^\d+$ (anything else could walk the path), free-text names are URL-encoded.
 */
export function buildPath<R extends RouteName>(route: R, params: PathParams<R>): string {
  const def: RouteDef = ROUTES[route];
  const values = params as Readonly<Record<string, string>>;
  return def.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = values[name];
    const isText = def.textParams?.includes(name) ?? false;
    if (typeof value !== "string" || (isText ? value.trim() === "" : !NUMERIC_ID.test(value))) {
      throw new MarketError({
        kind: "invalid_argument",
        endpoint: endpointOf(route),
        zodPath: [name],
        detail: isText ? `${name} must be a non-empty string` : `${name} must match ^\\d+$`,
      });
    }
    return encodeURIComponent(value);
  });
}

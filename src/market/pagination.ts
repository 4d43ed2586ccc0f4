// Walks paginated endpoints to the end: opaque cursors (listings, stall, watchlist) and zero-based
// pages (trades, transactions, offers timeline, buy orders), each with a max-pages guard.
import type { MarketApi, PageOptions } from "./api.ts";
import type {
  MyBuyOrdersQuery,
  MyTradesQuery,
  OffersTimelineQuery,
  SearchListingsQuery,
  StallQuery,
  TransactionsQuery,
  WatchlistQuery,
} from "./requests.ts";
import type { BuyOrder, Listing, Offer, Trade, Transaction } from "./schemas.ts";

/** Page sizes the spec gives as defaults; sent explicitly so "a short page" has a known meaning. */
export const DEFAULT_PAGE_LIMITS = {
  trades: 50,
  transactions: 50,
  offersTimeline: 40,
  buyOrders: 50,
} as const;

/**
 * Pages of a cursor endpoint. Stops when a page is empty, the cursor is absent or empty, or a
 * cursor comes back that we already sent (a service bug would otherwise loop forever).
 */
export async function* cursorPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ data: T[]; cursor?: string | undefined }>,
  opts: PageOptions = {},
): AsyncGenerator<T[]> {
  const sent = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; opts.maxPages === undefined || page < opts.maxPages; page += 1) {
    const result = await fetchPage(cursor);
    if (result.data.length === 0) return;
    yield result.data;
    const next = result.cursor;
    if (next === undefined || next === "" || sent.has(next)) return;
    sent.add(next);
    cursor = next;
  }
}

/**
 * Pages of a zero-based page endpoint. Stops on an empty page, or once `count` items (when the
 * service reports a total) have been seen; without a count, on a page shorter than `limit`. With
 * a count a short page is not the end: the service may cap pages below the limit we ask for.
 */
export async function* numberedPages<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; count?: number | undefined }>,
  limit: number,
  opts: PageOptions = {},
): AsyncGenerator<T[]> {
  let seen = 0;
  for (let page = 0; opts.maxPages === undefined || page < opts.maxPages; page += 1) {
    const { items, count } = await fetchPage(page);
    if (items.length === 0) return;
    yield items;
    seen += items.length;
    if (count !== undefined ? seen >= count : items.length < limit) return;
  }
}

async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

export function iterateListings(
  api: Pick<MarketApi, "searchListings">,
  q: Omit<SearchListingsQuery, "cursor"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Listing> {
  return flatten(
    cursorPages((cursor) => api.searchListings(cursor === undefined ? q : { ...q, cursor }), opts),
  );
}

export function iterateStall(
  api: Pick<MarketApi, "getStall">,
  platformId: string,
  q: Omit<StallQuery, "cursor"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Listing> {
  return flatten(
    cursorPages((cursor) => api.getStall(platformId, cursor === undefined ? q : { ...q, cursor }), opts),
  );
}

export function iterateWatchlist(
  api: Pick<MarketApi, "getWatchlist">,
  q: Omit<WatchlistQuery, "cursor"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Listing> {
  return flatten(
    cursorPages((cursor) => api.getWatchlist(cursor === undefined ? q : { ...q, cursor }), opts),
  );
}

export function iterateMyTrades(
  api: Pick<MarketApi, "getMyTrades">,
  q: Omit<MyTradesQuery, "page"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Trade> {
  const limit = q.limit ?? DEFAULT_PAGE_LIMITS.trades;
  return flatten(
    numberedPages(
      async (page) => {
        const res = await api.getMyTrades({ ...q, limit, page });
        return { items: res.trades, count: res.count };
      },
      limit,
      opts,
    ),
  );
}

export function iterateTransactions(
  api: Pick<MarketApi, "getTransactions">,
  q: Omit<TransactionsQuery, "page"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Transaction> {
  const limit = q.limit ?? DEFAULT_PAGE_LIMITS.transactions;
  return flatten(
    numberedPages(
      async (page) => {
        const res = await api.getTransactions({ ...q, limit, page });
        return { items: res.transactions, count: res.count };
      },
      limit,
      opts,
    ),
  );
}

export function iterateOffersTimeline(
  api: Pick<MarketApi, "getOffersTimeline">,
  q: Omit<OffersTimelineQuery, "page"> = {},
  opts: PageOptions = {},
): AsyncGenerator<Offer> {
  const limit = q.limit ?? DEFAULT_PAGE_LIMITS.offersTimeline;
  return flatten(
    numberedPages(
      async (page) => ({ items: (await api.getOffersTimeline({ ...q, limit, page })).offers }),
      limit,
      opts,
    ),
  );
}

/** A list read to its end, or as far as the page guard let it (`complete` false). */
export interface ListRead<T> {
  items: T[];
  /** True only when the read provably reached the end: absence from `items` can be trusted. */
  complete: boolean;
}

/**
 * All the user's open buy orders, and whether the list is known whole: the end is the answer's
 * `count` reached, or an empty page (without a count, a short page may be a page size the
 * service caps below ours, so one more page is asked). Releasing commitments of orders missing
 * from the list is only safe when `complete`.
 */
export async function readMyBuyOrders(
  api: Pick<MarketApi, "getMyBuyOrders">,
  opts: { limit?: number; maxPages: number },
): Promise<ListRead<BuyOrder>> {
  const limit = opts.limit ?? DEFAULT_PAGE_LIMITS.buyOrders;
  const byId = new Map<string, BuyOrder>();
  let seen = 0;
  for (let page = 0; page < opts.maxPages; page += 1) {
    const res = await api.getMyBuyOrders({ limit, page });
    if (res.orders.length === 0) return { items: [...byId.values()], complete: true };
    for (const o of res.orders) byId.set(o.id, o);
    seen += res.orders.length;
    if (res.count !== undefined && seen >= res.count) return { items: [...byId.values()], complete: true };
  }
  return { items: [...byId.values()], complete: false };
}

export function iterateMyBuyOrders(
  api: Pick<MarketApi, "getMyBuyOrders">,
  q: Omit<MyBuyOrdersQuery, "page"> = {},
  opts: PageOptions = {},
): AsyncGenerator<BuyOrder> {
  const limit = q.limit ?? DEFAULT_PAGE_LIMITS.buyOrders;
  return flatten(
    numberedPages(
      async (page) => {
        const res = await api.getMyBuyOrders({ ...q, limit, page });
        return { items: res.orders, count: res.count };
      },
      limit,
      opts,
    ),
  );
}

// Proof from the user's own records (buyer trades, ledger, offers): found, absent, or unknown when
// the page guard stopped the read first (on a busy account, "not within N pages" proves nothing).
import type { MarketApi } from "../market/client.ts";
import { DEFAULT_PAGE_LIMITS } from "../market/pagination.ts";
import type { BuyOrder, Offer, Trade, Transaction } from "../market/schemas.ts";

export type Lookup<T> = { kind: "found"; item: T } | { kind: "absent" } | { kind: "unknown" };

const ABSENT = { kind: "absent" } as const;
const UNKNOWN = { kind: "unknown" } as const;

/** What each scanned item says: it is the one, the list has gone past where it could be, or neither. */
type Verdict = "match" | "past" | "no";

/**
 * Scans a zero-based page endpoint for one item. Absent only when the read reached the end (the
 * reported count, an empty page, or a short page where `shortPageEnds`) or went past where the
 * item could be; unknown when `maxPages` ran out first.
 */
async function scan<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; count?: number | undefined }>,
  limit: number,
  maxPages: number,
  test: (item: T) => Verdict,
  shortPageEnds = true,
): Promise<Lookup<T>> {
  let seen = 0;
  for (let page = 0; page < maxPages; page += 1) {
    const { items, count } = await fetchPage(page);
    if (items.length === 0) return ABSENT;
    for (const item of items) {
      const verdict = test(item);
      if (verdict === "match") return { kind: "found", item };
      if (verdict === "past") return ABSENT;
    }
    seen += items.length;
    if (count !== undefined ? seen >= count : shortPageEnds && items.length < limit) return ABSENT;
  }
  return UNKNOWN;
}

const TRADES_PAGE = DEFAULT_PAGE_LIMITS.trades;
const LEDGER_PAGE = DEFAULT_PAGE_LIMITS.transactions;
const OFFERS_PAGE = DEFAULT_PAGE_LIMITS.offersTimeline;
const ORDERS_PAGE = DEFAULT_PAGE_LIMITS.buyOrders;

/** The user's trade as buyer of this listing. */
export function findBuyerTrade(api: MarketApi, listingId: string, maxPages: number): Promise<Lookup<Trade>> {
  return scan(
    async (page) => {
      const res = await api.getMyTrades({ role: "buyer", limit: TRADES_PAGE, page });
      return { items: res.trades, count: res.count };
    },
    TRADES_PAGE,
    maxPages,
    (t) => ((t.contract_id ?? t.contract?.id) === listingId ? "match" : "no"),
  );
}

/**
 * A ledger entry of this type naming the listing. Newest first: an entry older than `since` (less a
 * minute for clock skew) means the list has passed where it could be.
 */
export async function findLedgerEntry(
  api: MarketApi,
  type: "contract_purchased" | "bid_posted",
  listingId: string,
  since: Date | undefined,
  maxPages: number,
): Promise<Lookup<Transaction>> {
  return scan(
    async (page) => {
      const res = await api.getTransactions({ type, limit: LEDGER_PAGE, order: "desc", page });
      return { items: res.transactions, count: res.count };
    },
    LEDGER_PAGE,
    maxPages,
    (tx) => {
      const at = tx.created_at === undefined ? undefined : Date.parse(tx.created_at);
      if (since !== undefined && at !== undefined && at < since.getTime() - 60_000) return "past";
      const d = tx.details;
      return d && (d.contract_id === listingId || d.listing_id === listingId) ? "match" : "no";
    },
  );
}

/** The user's offer matching `test` in their offers timeline. */
export function findOffer(
  api: MarketApi,
  test: (o: Offer) => boolean,
  maxPages: number,
): Promise<Lookup<Offer>> {
  return scan(
    async (page) => ({ items: (await api.getOffersTimeline({ limit: OFFERS_PAGE, page })).offers }),
    OFFERS_PAGE,
    maxPages,
    (o) => (test(o) ? "match" : "no"),
  );
}

/**
 * The user's open buy order matching `test`. Without a count a short page is not the end (the
 * service may cap pages below ours: readMyBuyOrders in src/market/pagination.ts reads so too).
 */
export function findBuyOrder(
  api: MarketApi,
  test: (o: BuyOrder) => boolean,
  maxPages: number,
): Promise<Lookup<BuyOrder>> {
  return scan(
    async (page) => {
      const res = await api.getMyBuyOrders({ limit: ORDERS_PAGE, page });
      return { items: res.orders, count: res.count };
    },
    ORDERS_PAGE,
    maxPages,
    (o) => (test(o) ? "match" : "no"),
    false,
  );
}

/** How the user is known to have bought a listing (an auction won, a purchase that landed). */
export interface Bought {
  trade: Trade | undefined;
  /** What it cost, as the trade or the ledger says (undefined when neither says it readably). */
  priceCents: number | undefined;
}

/**
 * Whether the user bought this listing: their buyer trade, else a purchase in their ledger since
 * `since`. Unknown when neither proves it and either read was stopped by the page guard.
 */
export async function findPurchase(
  api: MarketApi,
  listingId: string,
  since: Date | undefined,
  maxPages: number,
): Promise<Lookup<Bought>> {
  const trade = await findBuyerTrade(api, listingId, maxPages);
  if (trade.kind === "found") {
    return { kind: "found", item: { trade: trade.item, priceCents: trade.item.contract?.price } };
  }
  const ledger = await findLedgerEntry(api, "contract_purchased", listingId, since, maxPages);
  if (ledger.kind === "found") {
    const offset = ledger.item.balance_offset;
    const priceCents = typeof offset === "number" && offset < 0 ? -offset : undefined;
    return { kind: "found", item: { trade: undefined, priceCents } };
  }
  return trade.kind === "unknown" || ledger.kind === "unknown" ? UNKNOWN : ABSENT;
}

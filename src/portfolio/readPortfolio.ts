// /portfolio's verbs: read a snapshot (the whole ledger up to a cap, each listing's item named from
// the user's trades, one more read per listing they do not cover, up to a cap), then build the
// book and one period's figures and the open positions valued at the reference price from it.
import { UserFacingError } from "../errors.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { FeeModel } from "../market/fees.ts";
import type { Cents } from "../money.ts";
import { referenceCentsOf } from "../market/reference.ts";
import { buildBook, type Book } from "./book.ts";
import { toLedgerEntry, type LedgerEntry } from "./ledgerEntry.ts";
import { positionsOf, summarize, type Period, type PeriodSummary, type Position } from "./summary.ts";

/** 40 pages of 50: the newest 2,000 ledger entries. Older ones are left out (and said so). */
const LEDGER_PAGES = 40;
const PAGE_SIZE = 50;
/** Trades read for item names and reference prices: 20 pages of 50. */
const TRADE_PAGES = 20;
/** Listings read one by one when no trade names them. */
const MAX_LISTING_READS = 25;

export interface PortfolioDeps {
  readonly market: MarketApi;
  readonly now: () => Date;
  readonly fees: FeeModel;
}

export interface Portfolio {
  /** The item asked for, as the ledger spells it; undefined for every item. */
  readonly item: string | undefined;
  readonly summary: PeriodSummary;
  readonly positions: readonly Position[];
  readonly entriesRead: number;
  /** The ledger had more entries than were read: older history is missing from the figures. */
  readonly truncated: boolean;
  /** Listings whose item could not be named (shown as "listing <id>"). */
  readonly unnamed: number;
  /** Ledger entries left out of the figures: an amount not in integer cents (its unit may have changed). */
  readonly unreadableAmounts: number;
  readonly feeBps: number;
}

export interface Named {
  readonly item: string;
  readonly referenceCents: Cents | undefined;
}

export async function readLedger(market: MarketApi): Promise<{ entries: LedgerEntry[]; truncated: boolean }> {
  const entries: LedgerEntry[] = [];
  for await (const t of market.iterateTransactions(
    { limit: PAGE_SIZE, order: "desc" },
    { maxPages: LEDGER_PAGES },
  )) {
    entries.push(toLedgerEntry(t));
  }
  return { entries, truncated: entries.length >= LEDGER_PAGES * PAGE_SIZE };
}

async function nameListings(
  deps: Pick<PortfolioDeps, "market">,
  contractIds: ReadonlySet<string>,
): Promise<Map<string, Named>> {
  const named = new Map<string, Named>();
  for await (const trade of deps.market.iterateMyTrades({ limit: PAGE_SIZE }, { maxPages: TRADE_PAGES })) {
    const id = trade.contract_id ?? trade.contract?.id;
    if (id === undefined || trade.contract === undefined || named.has(id)) continue;
    named.set(id, {
      item: trade.contract.item.market_hash_name,
      referenceCents: referenceCentsOf(trade.contract),
    });
  }
  const missing = [...contractIds].filter((id) => !named.has(id)).slice(0, MAX_LISTING_READS);
  for (const id of missing) {
    try {
      const listing = await deps.market.getListing(id);
      named.set(id, { item: listing.item.market_hash_name, referenceCents: referenceCentsOf(listing) });
    } catch (error) {
      // A listing the service no longer shows keeps its id as its name; anything else is a failure.
      if (!isMarketError(error, "not_found")) throw error;
    }
  }
  return named;
}

/** The item names the user's ledger mentions, for autocomplete and for checking the item option. */
export function itemsOf(book: Book): string[] {
  const names = new Set<string>();
  for (const p of book.purchases) names.add(p.lot.item);
  for (const e of book.events) names.add(e.item);
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** What the marketplace said, read once: the ledger and the names of the listings it mentions. */
export interface LedgerSnapshot {
  readonly entries: readonly LedgerEntry[];
  readonly truncated: boolean;
  readonly named: ReadonlyMap<string, Named>;
}

export async function readSnapshot(deps: Pick<PortfolioDeps, "market">): Promise<LedgerSnapshot> {
  const { entries, truncated } = await readLedger(deps.market);
  const contractIds = new Set(entries.flatMap((e) => (e.contractId === undefined ? [] : [e.contractId])));
  const named = contractIds.size === 0 ? new Map<string, Named>() : await nameListings(deps, contractIds);
  return { entries, truncated, named };
}

/** The period's figures from a snapshot; no marketplace call. */
export function portfolioFrom(
  snapshot: LedgerSnapshot,
  deps: Pick<PortfolioDeps, "now" | "fees">,
  input: { readonly period: Period; readonly item?: string | undefined },
): Portfolio {
  const { entries, truncated, named } = snapshot;
  const book = buildBook(entries, (id) => named.get(id)?.item ?? `listing ${id}`);

  let item = input.item;
  if (item !== undefined) {
    const wanted = item.toLowerCase();
    const found = itemsOf(book).find((n) => n.toLowerCase() === wanted);
    if (found === undefined) {
      throw new UserFacingError(
        "not_found",
        `Your ledger has no purchase or sale of “${item.slice(0, 100)}”. Use the item's full market name as /portfolio summary lists it, or leave \`item\` out for everything.`,
        { item },
      );
    }
    item = found;
  }

  // The freshest reference per item: trades and listings read just now carry the current one.
  const references = new Map<string, Cents | undefined>();
  for (const n of named.values()) {
    if (n.referenceCents !== undefined || !references.has(n.item)) references.set(n.item, n.referenceCents);
  }
  const contractIds = new Set(entries.flatMap((e) => (e.contractId === undefined ? [] : [e.contractId])));
  return {
    item,
    summary: summarize(book, { period: input.period, now: deps.now(), item }),
    positions: positionsOf(book, { references, fees: deps.fees, item }),
    entriesRead: entries.length,
    truncated,
    unnamed: [...contractIds].filter((id) => !named.has(id)).length,
    unreadableAmounts: book.unreadableAmounts,
    feeBps: deps.fees.sellerFeeBps,
  };
}

// Market search: validated filters in domain terms, translated to the listings query.
//
// An empty search (no filter, no sort) is allowed on purpose: it shows the service's default
// order, best deals first, which is the most useful "what's on the market right now" answer.
// Refusing it would only push users to invent a filter.
import { invalidOption } from "../errors.ts";
import { CATEGORY, type CategoryName, type ListingType, type SortBy } from "../market/schemas.ts";
import type { SearchListingsQuery } from "../market/requests.ts";
import type { Cents } from "../money.ts";
import type { MarketDeps } from "./deps.ts";
import { requireCents, requireFloat, requireId, requireInt } from "../input/validate.ts";
import { nextCursor, toListingSummary, type ListingSummary } from "./views.ts";

export interface StickerSelector {
  stickerId: number;
  /** 0-based slot on the item; any slot when absent. */
  slot?: number | undefined;
}

export interface SearchFilters {
  itemName?: string | undefined;
  collection?: string | undefined;
  type?: ListingType | undefined;
  category?: CategoryName | undefined;
  minPriceCents?: Cents | undefined;
  maxPriceCents?: Cents | undefined;
  minFloat?: number | undefined;
  maxFloat?: number | undefined;
  defIndex?: number | undefined;
  paintIndex?: number | undefined;
  paintSeed?: number | undefined;
  rarity?: number | undefined;
  /**
   * Seller platform id. The live service ignores its user_id filter, so this is applied here,
   * to the page the marketplace returned: never presented as the seller's whole stall.
   */
  sellerId?: string | undefined;
  stickers?: readonly StickerSelector[] | undefined;
  /** Minimum number of sales behind the reference price (filters out thinly traded items). */
  minReferenceQuantity?: number | undefined;
  sortBy?: SortBy | undefined;
}

export interface SearchInput extends SearchFilters {
  cursor?: string | undefined;
  limit?: number | undefined;
}

export interface SearchPage {
  listings: ListingSummary[];
  cursor: string | undefined;
  /** Set when a seller was asked for: how many listings the page had before keeping theirs. */
  sellerFilter?: { sellerId: string; scanned: number } | undefined;
}

const DEFAULT_LIMIT = 10;
const MAX_TEXT = 200;
const MAX_STICKERS = 5;

function text(option: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (trimmed.length > MAX_TEXT) throw invalidOption(option, `at most ${MAX_TEXT} characters`);
  return trimmed;
}

/** Validates filters and builds the query; throws invalid_input naming the bad option. */
export function toListingsQuery(input: SearchInput): SearchListingsQuery {
  const q: SearchListingsQuery = {};
  q.limit = input.limit === undefined ? DEFAULT_LIMIT : requireInt("limit", input.limit, 1, 50);
  if (input.cursor) q.cursor = input.cursor;
  if (input.sortBy !== undefined) q.sort_by = input.sortBy;
  if (input.category !== undefined) q.category = CATEGORY[input.category];
  const name = text("item", input.itemName);
  if (name !== undefined) q.market_hash_name = name;
  const collection = text("collection", input.collection);
  if (collection !== undefined) q.collection = collection;
  if (input.type !== undefined) q.type = input.type;
  if (input.minPriceCents !== undefined) q.min_price = requireCents("min_price", input.minPriceCents);
  if (input.maxPriceCents !== undefined) q.max_price = requireCents("max_price", input.maxPriceCents);
  if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price) {
    throw invalidOption("min_price", "must not exceed max_price");
  }
  if (input.minFloat !== undefined) q.min_float = requireFloat("min_float", input.minFloat);
  if (input.maxFloat !== undefined) q.max_float = requireFloat("max_float", input.maxFloat);
  if (q.min_float !== undefined && q.max_float !== undefined && q.min_float > q.max_float) {
    throw invalidOption("min_float", "must not exceed max_float");
  }
  if (input.defIndex !== undefined) q.def_index = requireInt("def_index", input.defIndex, 0, 1_000_000);
  if (input.paintIndex !== undefined)
    q.paint_index = requireInt("paint_index", input.paintIndex, 0, 1_000_000);
  if (input.paintSeed !== undefined) q.paint_seed = requireInt("paint_seed", input.paintSeed, 0, 100_000);
  if (input.rarity !== undefined) q.rarity = requireInt("rarity", input.rarity, 0, 100);
  // No user_id: the live service silently ignores it (see searchListings).
  if (input.sellerId !== undefined) requireId("seller", input.sellerId);
  if (input.minReferenceQuantity !== undefined) {
    q.min_ref_qty = requireInt("min_ref_qty", input.minReferenceQuantity, 0, 1_000_000);
  }
  if (input.stickers !== undefined && input.stickers.length > 0) {
    if (input.stickers.length > MAX_STICKERS)
      throw invalidOption("stickers", `at most ${MAX_STICKERS} stickers`);
    // The wire encoding of selectors lives in the market client (requests.ts), in one place.
    q.stickers = input.stickers.map((s) => {
      const id = requireInt("stickers", s.stickerId, 0, 2 ** 31 - 1);
      return s.slot === undefined ? { id } : { id, slot: requireInt("stickers", s.slot, 0, 5) };
    });
  }
  return q;
}

export async function searchListings(deps: MarketDeps, input: SearchInput = {}): Promise<SearchPage> {
  const query = toListingsQuery(input);
  const page = await deps.market.searchListings(query);
  const cursor = nextCursor(page.cursor, page.data.length);
  const seller = input.sellerId;
  if (seller === undefined) return { listings: page.data.map(toListingSummary), cursor };
  // The marketplace ignores user_id live: keep the seller's listings from what came back, and say
  // so, rather than show everyone's listings as theirs.
  const mine = page.data.filter((l) => l.seller?.platform_id === seller);
  return {
    listings: mine.map(toListingSummary),
    cursor,
    sellerFilter: { sellerId: seller, scanned: page.data.length },
  };
}

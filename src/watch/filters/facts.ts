// What a filter reads from a listing (ListingFacts) and what it compiles into (CompiledFilters): the shapes every filter and the matcher share.
import type { ListingType } from "../../market/schemas.ts";

/**
 * What the filters need from a listing, computed once per listing rather than once per rule
 * (ruleFilters.ts' prepareListing). Absent numbers are NaN: NaN compares false with everything, so
 * a filter on an absent value cannot match.
 */
export interface ListingFacts {
  listed: boolean;
  /** market_hash_name lowercased (the matcher may swap in an equal, interned string). */
  nameLower: string;
  defIndex: number;
  paintIndex: number;
  paintSeed: number;
  float: number;
  price: number;
  /** Percent below the reference price; NaN without a usable reference. */
  discount: number;
  refQty: number;
  type: number;
  statcounter: boolean;
  souvenir: boolean;
  /**
   * The rule kinds the listing meets: bit `type + 4 * category` (CompiledFilters' codes) is set
   * when a rule of that type and category accepts it (the matcher checks both in one shift).
   */
  kinds: number;
  /** Parallel arrays: stickerSlots[i] is NaN when the listing does not say. */
  stickerIds: number[];
  stickerSlots: number[];
  keychainIds: number[];
  /** Deal values (profit after fees, fade, blue gem, ...) in the registry's deal-bound order; NaN when absent. */
  deal: readonly number[];
}

/**
 * Filters in a flat, fixed shape for fast repeated matching (one hidden class, no closures,
 * sentinels instead of absent keys). "Not set" is: "" for the name, -1 for indexes and slots,
 * null for lists, a has* flag for bounds whose absence differs from any value. Each filter of the
 * registry says which of these fields it writes (its `pack`); the matcher's slots (matcher/slots.ts)
 * pack them: the numbers into an entry, the lists into its slot, the deal bounds inline or in its
 * slot, the name and indexes as the key of the bucket the rule is filed under.
 */
export interface CompiledFilters {
  readonly itemLower: string;
  readonly defIndex: number;
  readonly paintIndex: number;
  readonly seeds: readonly number[] | null;
  readonly hasFloat: boolean;
  readonly minFloat: number;
  readonly maxFloat: number;
  readonly maxPrice: number;
  readonly hasDiscount: boolean;
  readonly minDiscount: number;
  readonly hasRefQty: boolean;
  readonly minRefQty: number;
  readonly type: number;
  readonly category: number;
  readonly stickerIds: readonly number[] | null;
  readonly stickerSlots: readonly number[] | null;
  readonly keychainIds: readonly number[] | null;
  /** Deal bounds (the registry's deal-bound order, NaN: not set); null when the rule has none. */
  readonly deal: Float64Array | null;
}

/** CompiledFilters while a rule's filters are written into it. */
export type CompiledDraft = { -readonly [K in keyof CompiledFilters]: CompiledFilters[K] };

/** A rule without filters: every field "not set". One literal, so every compiled rule has one shape. */
export function emptyCompiled(): CompiledDraft {
  return {
    itemLower: "",
    defIndex: -1,
    paintIndex: -1,
    seeds: null,
    hasFloat: false,
    minFloat: -Infinity,
    maxFloat: Infinity,
    maxPrice: Infinity,
    hasDiscount: false,
    minDiscount: 0,
    hasRefQty: false,
    minRefQty: 0,
    type: TYPE_ANY,
    category: 0,
    stickerIds: null,
    stickerSlots: null,
    keychainIds: null,
    deal: null,
  };
}

/** A rule's listing type when it names none. */
export const TYPE_ANY = 0;
export const TYPE_CODE: Record<ListingType, number> = { buy_now: 1, auction: 2 };
export const CATEGORY_CODE = { any: 0, normal: 1, statcounter: 2, souvenir: 3 } as const;

/** Binary fractions make 29% come out as 28.999999999999996%; a rule at exactly 29% must still match. */
const DISCOUNT_EPSILON = 1e-9;

/** discount >= minDiscount, inclusive and tolerant of binary fractions; a NaN discount never meets it. */
export function meetsDiscount(discount: number, minDiscount: number): boolean {
  return discount >= discountFloor(minDiscount);
}

/** The lowest discount meeting a minimum (meetsDiscount's margin applied). */
export const discountFloor = (minDiscount: number): number => minDiscount - DISCOUNT_EPSILON;

/** Percentages computed in binary fractions: a deal rule at exactly 8.1% must still match 8.1%. */
export const DEAL_EPSILON = 1e-9;

/** The last value meeting a deal bound: the highest for a maximum, the lowest for a minimum. */
export const boundLimit = (max: boolean, bound: number): number =>
  max ? bound + DEAL_EPSILON : bound - DEAL_EPSILON;

/** A deal bound met by a value (with boundLimit's margin); a NaN value (absent) meets none. */
export function meetsBound(max: boolean, bound: number, value: number): boolean {
  const limit = boundLimit(max, bound);
  return max ? value <= limit : value >= limit;
}

/** Whether the listing carries the sticker, in that slot (-1: in any). */
export function hasSticker(l: ListingFacts, id: number, slot: number): boolean {
  for (let j = 0; j < l.stickerIds.length; j++)
    if (l.stickerIds[j] === id && (slot === -1 || l.stickerSlots[j] === slot)) return true;
  return false;
}

// The matcher's axes: the bound a rule is filed by within its bucket, which rules that bound alone decides, and the full entries' scan that stops at the first rule a listing fails (scan.ts scans the others).
import { DEAL_AXIS_PREFERENCE, DEAL_BOUND_IS_MAX, dealLimit, meetsDealBound } from "../dealFilters.ts";
import { discountFloor, meetsDiscount, type ListingFacts } from "../ruleFilters.ts";
import {
  E,
  E_SLOT,
  E_BITS,
  E_DEAL_K1,
  E_DEAL_K2,
  E_DEF,
  E_KEY,
  E_MAX_FLOAT,
  E_MAX_PRICE,
  E_MIN_DISCOUNT,
  E_MIN_FLOAT,
  E_PAINT,
  flagsOf,
  HAS_DEAL_INLINE,
  HAS_DISCOUNT,
  HAS_FLOAT,
  REF_LIMIT,
  type RuleSlots,
} from "./slots.ts";
import { fitsPair, P, PAIR_AT, PN, PRICE_STRIDE } from "./scan.ts";

/** What a bucket's key already decides for every rule in it (index.ts sets it per kind of bucket). */
export const IMPLIES_DEF = 1;
export const IMPLIES_PAINT = 2;

/**
 * A bound-decided entry, as it waits to be settled (buckets.ts): its bound on the axis, its price
 * ceiling (Infinity: none), its float range (NaN, NaN: no float filter), then its code: KINDS *
 * ref + kind, where ref is a numeric id or -(slot + 1) for another (RuleSlots.pureIdOf), and kind
 * the rule's type and category (slots.ts' kindOf). A price ceiling, a float range, a listing type
 * and a category are the commonest filters beside the axis' bound; checked inline, they cost a
 * few comparisons and no read outside the list.
 */
export const W_PRICE = 1;
export const W_MIN_FLOAT = 2;
export const W_MAX_FLOAT = 3;
export const W_CODE = 4;
/** Numbers per waiting bound-decided entry. */
export const WAIT_PURE = 5;
/**
 * Settled, a list keeps its bound-decided entries in two parts: those with a float range
 * (PART_FLOAT: bound, pair, lowest float, highest float) and the two thirds without one
 * (PART_PLAIN: bound, pair), where the pair is one double's 8 bytes read as two 32-bit integers
 * (the arena's `words`): the code and the price ceiling in cents (scan.ts). A scan is
 * bound by memory at a million rules, and reads integers where it tests integers: 16 bytes a plain
 * entry where three doubles took 24 and a double code cost a conversion per hit.
 */
export const PART_PLAIN = 0;
export const PART_FLOAT = 1;
export const PART_FULL = 2;
export const PARTS = 3;
export const STRIDES: readonly number[] = [PN, P, E];
/**
 * Numbers per entry of a part of a list on an axis. A plain entry on the price axis is its pair
 * alone (8 bytes): its bound is its price ceiling, which the pair holds, so the scan reads the
 * pair's price as the bound. The commonest rule (an item under a price) is this entry.
 */
export const strideOf = (axis: number, part: number): number =>
  axis === AX_PRICE && part === PART_PLAIN ? PRICE_STRIDE : (STRIDES[part] as number);
/** Where an entry's pair sits in it (the price axis' plain entries are their pair). */
export const pairOffsetOf = (axis: number, part: number): number =>
  strideOf(axis, part) === PRICE_STRIDE ? 0 : PAIR_AT;

/**
 * The bound a rule is filed by within its bucket (its axis). Each axis' list is sorted so the
 * rules a listing passes come first: a scan stops at the first rule whose bound the listing fails,
 * and every rule after it fails that bound too. Minimum bounds sort ascending, maximum bounds
 * descending. A listing without the value (NaN) fails every bound, so it stops at once.
 */
const AX_DISCOUNT = 0;
/** AX_DEAL + k: deal bound k (dealFilters.ts' order). */
const AX_DEAL = 1;
const DEAL_AXES = DEAL_BOUND_IS_MAX.length;
const AX_FLOAT_MAX = AX_DEAL + DEAL_AXES;
const AX_PRICE = AX_FLOAT_MAX + 1;
const AX_FLOAT_MIN = AX_PRICE + 1;
/**
 * An item rule's paint seeds: one entry per seed (E_KEY), sorted ascending; a listing reads the
 * run of its own seed, found by binary search, rather than a prefix. A seed bucket per item name
 * and seed would cost a bucket (a few hundred bytes) per seed of every such rule.
 */
export const AX_SEED = AX_FLOAT_MIN + 1;
export const AXES = AX_SEED + 1;

/** A float ceiling this low passes a few listings in a hundred: a better cut than most prices. */
const TIGHT_FLOAT = 0.02;
/**
 * Deal bounds in the order they are preferred as an axis: the ones few listings meet first (each
 * bound's axisRank in the filter registry). A percentage of the price before an amount in cents:
 * "$5 profit" is met by any fair listing of an expensive item, "40% profit" by deals only.
 */
const DEAL_PREFERENCE = DEAL_AXIS_PREFERENCE;

/**
 * The axis of a rule: the bound that lets a scan stop earliest for most listings. Most listings
 * are no deal (no discount, no profit) and few have a float near 0, so a discount, a tight float
 * ceiling or a deal bound prunes more than a price ceiling; a loose float bound prunes least.
 * Only the pruning depends on this choice, never the answer: every candidate is fully checked.
 */
export function axisOf(slots: RuleSlots, entry: Float64Array): number {
  const bits = flagsOf(entry[E_BITS] as number);
  const hasFloat = (bits & HAS_FLOAT) !== 0;
  const maxFloat = entry[E_MAX_FLOAT] as number;
  if ((bits & HAS_DISCOUNT) !== 0) return AX_DISCOUNT;
  if (hasFloat && maxFloat <= TIGHT_FLOAT) return AX_FLOAT_MAX;
  for (const k of DEAL_PREFERENCE) if (!Number.isNaN(slots.dealBound(entry, 0, k))) return AX_DEAL + k;
  if ((entry[E_MAX_PRICE] as number) !== Infinity) return AX_PRICE;
  if (hasFloat && maxFloat !== Infinity) return AX_FLOAT_MAX;
  if (hasFloat && (entry[E_MIN_FLOAT] as number) !== -Infinity) return AX_FLOAT_MIN;
  // No bound at all: filed on the price axis under its absent ceiling (Infinity), which every
  // listing passes, so a scan always reads it as it must, and it can be a bound-decided entry
  // (a sticker rule with nothing else, say) rather than one checked field by field.
  return AX_PRICE;
}

/** Whether the axis' bounds are maxima (sorted descending). */
export function isMaxAxis(axis: number): boolean {
  if (axis >= AX_DEAL && axis < AX_DEAL + DEAL_AXES) return DEAL_BOUND_IS_MAX[axis - AX_DEAL] === true;
  return axis === AX_FLOAT_MAX || axis === AX_PRICE;
}

/** An entry's bound on an axis (n: a list, o: the entry's offset). */
export function boundOf(slots: RuleSlots, axis: number, n: ArrayLike<number>, o: number): number {
  switch (axis) {
    case AX_DISCOUNT:
      return n[o + E_MIN_DISCOUNT] as number;
    case AX_FLOAT_MAX:
      return n[o + E_MAX_FLOAT] as number;
    case AX_PRICE:
      return n[o + E_MAX_PRICE] as number;
    case AX_FLOAT_MIN:
      return n[o + E_MIN_FLOAT] as number;
    case AX_SEED:
      return n[o + E_KEY] as number;
    default:
      return slots.dealBound(n, o, axis - AX_DEAL);
  }
}

/** Whether a listing passes a bound on an axis: the same check as matchesFacts' for that filter. */
export function passes(axis: number, bound: number, l: ListingFacts): boolean {
  switch (axis) {
    case AX_DISCOUNT:
      return meetsDiscount(l.discount, bound);
    case AX_FLOAT_MAX:
      return l.float <= bound;
    case AX_PRICE:
      return l.price <= bound;
    case AX_FLOAT_MIN:
      return l.float >= bound;
    default:
      return meetsDealBound(axis - AX_DEAL, bound, l.deal[axis - AX_DEAL] as number);
  }
}

/**
 * A bound-decided entry's bound on a (non-seed) axis as a ceiling: the listing passes the bound
 * exactly when its key for the axis (keyFor) is at most the ceiling. A maximum bound is its own
 * ceiling (with its check's margin); a minimum bound b is -b (less its margin), met by the negated
 * value. Negation is exact and NaN compares false either way, so `key <= ceiling` is `passes`,
 * and every bound-decided part is one loop whatever its axis, sorted by ceiling, loosest first.
 */
export function ceilingOf(axis: number, bound: number): number {
  switch (axis) {
    case AX_DISCOUNT:
      return -discountFloor(bound);
    case AX_FLOAT_MAX:
    case AX_PRICE:
      return bound;
    case AX_FLOAT_MIN:
      return -bound;
    default: {
      const limit = dealLimit(axis - AX_DEAL, bound);
      return DEAL_BOUND_IS_MAX[axis - AX_DEAL] === true ? limit : -limit;
    }
  }
}

/** A listing's key on a (non-seed) axis: see ceilingOf. */
export function keyFor(axis: number, l: ListingFacts): number {
  switch (axis) {
    case AX_DISCOUNT:
      return -l.discount;
    case AX_FLOAT_MAX:
      return l.float;
    case AX_PRICE:
      return l.price;
    case AX_FLOAT_MIN:
      return -l.float;
    default: {
      const value = l.deal[axis - AX_DEAL] as number;
      return DEAL_BOUND_IS_MAX[axis - AX_DEAL] === true ? value : -value;
    }
  }
}

/**
 * Whether the entry's match is decided by its bound on `axis`, its price ceiling and its float
 * range alone, given what the bucket's key implies: every other filter is absent or implied. Such
 * a rule needs no check beyond the scan and a few comparisons.
 */
export function decidedByBound(entry: Float64Array, axis: number, implies: number): boolean {
  const bits = flagsOf(entry[E_BITS] as number);
  // Lists (unless implied and cleared by the index), more than the inline deal bounds, a reference
  // quantity (type and category bits are the entry's kind).
  if ((bits & ~(HAS_FLOAT | HAS_DISCOUNT | HAS_DEAL_INLINE | (3 << 5) | (3 << 7))) !== 0) return false;
  // Its price ceiling and its ref must fit a pair (a slot past REF_LIMIT: a hundred million rules).
  if (!fitsPair(entry[E_MAX_PRICE] as number) || (entry[E_SLOT] as number) >= REF_LIMIT - 1) return false;
  if ((entry[E_DEF] as number) >= 0 && (implies & IMPLIES_DEF) === 0) return false;
  if ((entry[E_PAINT] as number) >= 0 && (implies & IMPLIES_PAINT) === 0) return false;
  if ((bits & HAS_DISCOUNT) !== 0 && axis !== AX_DISCOUNT) return false;
  if ((bits & HAS_DEAL_INLINE) !== 0) {
    if (axis !== AX_DEAL + (entry[E_DEAL_K1] as number) || (entry[E_DEAL_K2] as number) >= 0) return false;
  }
  return true;
}

/** Where a scan of a list's full part (from o to n, integers) stops: the first rule whose bound the listing fails. */
export function scanFull(
  slots: RuleSlots,
  axis: number,
  list: Float64Array,
  o: number,
  n: number,
  l: ListingFacts,
): number {
  switch (axis) {
    case AX_DISCOUNT:
      while (o < n && meetsDiscount(l.discount, list[o + E_MIN_DISCOUNT] as number)) o += E;
      return o;
    case AX_PRICE:
      while (o < n && l.price <= (list[o + E_MAX_PRICE] as number)) o += E;
      return o;
    case AX_FLOAT_MAX:
      while (o < n && l.float <= (list[o + E_MAX_FLOAT] as number)) o += E;
      return o;
    case AX_FLOAT_MIN:
      while (o < n && l.float >= (list[o + E_MIN_FLOAT] as number)) o += E;
      return o;
    default:
      while (o < n && passes(axis, boundOf(slots, axis, list, o), l)) o += E;
      return o;
  }
}

// The matcher's axes: the bound a rule is filed by within its bucket, which rules that bound alone decides, and the scans that stop at the first rule a listing fails.
import { DEAL_BOUND_IS_MAX, meetsDealBound } from "../dealFilters.ts";
import { meetsDiscount, type ListingFacts } from "../ruleFilters.ts";
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
  type MatchIds,
  type RuleSlots,
} from "./slots.ts";

/** What a bucket's key already decides for every rule in it (index.ts sets it per kind of bucket). */
export const IMPLIES_DEF = 1;
export const IMPLIES_PAINT = 2;

/**
 * A bound-decided entry, as it waits to be settled (buckets.ts): its bound on the axis, its price
 * ceiling (Infinity: none), its float range (NaN, NaN: no float filter), then its id and kind:
 * KINDS * ref + kind, where ref is a numeric id or -(slot + 1) for another, and kind the rule's
 * type and category (slots.ts' kindOf). A price ceiling, a float range, a listing type and a
 * category are the commonest filters beside the axis' bound; checked inline, they cost a few
 * comparisons and no read outside the list.
 */
export const P = 5;
const P_PRICE = 1;
export const P_MIN_FLOAT = 2;
const P_MAX_FLOAT = 3;
export const P_ID = 4;
/**
 * Settled, a list keeps its bound-decided entries in two parts: those with a float range as above
 * (PART_FLOAT), and the two thirds without one as bound, price ceiling, code (PART_PLAIN, 3
 * numbers): a scan is bound by memory at a million rules, and the NaNs were a third of it.
 */
export const PART_PLAIN = 0;
export const PART_FLOAT = 1;
export const PART_FULL = 2;
export const PARTS = 3;
/** Numbers per entry of each part, and where each part's entries hold their id. */
export const PN = 3;
const PN_PRICE = 1;
const PN_ID = 2;
export const STRIDES: readonly number[] = [PN, P, E];
export const ID_AT: readonly number[] = [PN_ID, P_ID, E_SLOT];
/** Kinds (type + 4 * category) a P_ID number holds below its ref. */
const KIND_BITS = 4;
export const KINDS = 1 << KIND_BITS;

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
 * Deal bounds in the order they are preferred as an axis: the ones few listings meet first. A
 * percentage of the price before an amount in cents: "$5 profit" is met by any fair listing of an
 * expensive item, "40% profit" by deals only.
 */
const DEAL_PREFERENCE = [1, 9, 0, 2, 8, 7, 3, 4, 5, 6].filter((k) => k < DEAL_AXES);

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
 * Whether the entry's match is decided by its bound on `axis`, its price ceiling and its float
 * range alone, given what the bucket's key implies: every other filter is absent or implied. Such
 * a rule needs no check beyond the scan and a few comparisons.
 */
export function decidedByBound(entry: Float64Array, axis: number, implies: number): boolean {
  const bits = flagsOf(entry[E_BITS] as number);
  // Lists (unless implied and cleared by the index), more than the inline deal bounds, a reference
  // quantity (type and category bits are the entry's kind).
  if ((bits & ~(HAS_FLOAT | HAS_DISCOUNT | HAS_DEAL_INLINE | (3 << 5) | (3 << 7))) !== 0) return false;
  if ((entry[E_DEF] as number) >= 0 && (implies & IMPLIES_DEF) === 0) return false;
  if ((entry[E_PAINT] as number) >= 0 && (implies & IMPLIES_PAINT) === 0) return false;
  if ((bits & HAS_DISCOUNT) !== 0 && axis !== AX_DISCOUNT) return false;
  if ((bits & HAS_DEAL_INLINE) !== 0) {
    if (axis !== AX_DEAL + (entry[E_DEAL_K1] as number) || (entry[E_DEAL_K2] as number) >= 0) return false;
  }
  return true;
}

/**
 * Writes the id of a code (P_ID's form) to ids[count] and returns count + 1 when the listing's
 * `kinds` (ListingFacts.kinds) has the code's kind, else returns count: the last check of a
 * bound-decided entry. The count is the caller's local, not a field read and written per entry.
 */
function codeHit(
  slots: RuleSlots,
  code: number,
  kinds: number,
  ids: Array<number | string>,
  count: number,
): number {
  let ref: number;
  if ((code | 0) === code) {
    // Every code of a database id: the kind is its low bits, the ref the rest (>> floors).
    if (((kinds >>> (code & (KINDS - 1))) & 1) === 0) return count;
    ref = code >> KIND_BITS;
  } else {
    ref = Math.floor(code / KINDS);
    if (((kinds >>> (code - ref * KINDS)) & 1) === 0) return count;
  }
  ids[count] = ref >= 0 ? ref : slots.keyAt(-ref - 1);
  return count + 1;
}

/**
 * codeHit for the bound-decided entry at o (PART_FLOAT's form) when the listing passes its price
 * ceiling and float range: the scan already passed its bound, so this decides it.
 */
export function floatHit(
  slots: RuleSlots,
  d: Float64Array,
  o: number,
  price: number,
  float: number,
  kinds: number,
  ids: Array<number | string>,
  count: number,
): number {
  if (price > (d[o + P_PRICE] as number)) return count;
  if (!(float >= (d[o + P_MIN_FLOAT] as number) && float <= (d[o + P_MAX_FLOAT] as number))) return count;
  return codeHit(slots, d[o + P_ID] as number, kinds, ids, count);
}

/** floatHit for an entry of PART_PLAIN's form (no float range). */
export function plainHit(
  slots: RuleSlots,
  d: Float64Array,
  o: number,
  price: number,
  kinds: number,
  ids: Array<number | string>,
  count: number,
): number {
  if (price > (d[o + PN_PRICE] as number)) return count;
  return codeHit(slots, d[o + PN_ID] as number, kinds, ids, count);
}

/**
 * Appends the ids of one part (PART_PLAIN or PART_FLOAT, from o to n, integers) of a list's
 * bound-decided entries that the listing satisfies: one pass that stops at the first bound the
 * listing fails, deciding each entry on the way. This is the hot path.
 */
export function collectPure(
  slots: RuleSlots,
  axis: number,
  part: number,
  d: Float64Array,
  o: number,
  n: number,
  l: ListingFacts,
  out: MatchIds,
): void {
  const price = l.price;
  const kinds = l.kinds;
  const ids = out.ids;
  let count = out.count;
  if (part === PART_PLAIN) {
    switch (axis) {
      case AX_DISCOUNT: {
        const discount = l.discount;
        for (; o < n && meetsDiscount(discount, d[o] as number); o += PN)
          count = plainHit(slots, d, o, price, kinds, ids, count);
        break;
      }
      case AX_PRICE:
        for (; o < n && price <= (d[o] as number); o += PN)
          count = plainHit(slots, d, o, price, kinds, ids, count);
        break;
      default:
        for (; o < n && passes(axis, d[o] as number, l); o += PN)
          count = plainHit(slots, d, o, price, kinds, ids, count);
    }
  } else {
    const float = l.float;
    switch (axis) {
      case AX_DISCOUNT: {
        const discount = l.discount;
        for (; o < n && meetsDiscount(discount, d[o] as number); o += P)
          count = floatHit(slots, d, o, price, float, kinds, ids, count);
        break;
      }
      case AX_PRICE:
        for (; o < n && price <= (d[o] as number); o += P)
          count = floatHit(slots, d, o, price, float, kinds, ids, count);
        break;
      case AX_FLOAT_MAX:
        for (; o < n && float <= (d[o] as number); o += P)
          count = floatHit(slots, d, o, price, float, kinds, ids, count);
        break;
      default:
        for (; o < n && passes(axis, d[o] as number, l); o += P)
          count = floatHit(slots, d, o, price, float, kinds, ids, count);
    }
  }
  out.count = count;
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

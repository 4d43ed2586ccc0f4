// The matcher's axes: the bound a rule is filed by within its bucket, which rules that bound alone decides, and the scans that stop at the first rule a listing fails.
import { DEAL_AXIS_PREFERENCE, DEAL_BOUND_IS_MAX, dealLimit, meetsDealBound } from "../rules/dealFilters.ts";
import { discountFloor, meetsDiscount, type ListingFacts } from "../rules/ruleFilters.ts";
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
import type { MatchIds } from "./matchIds.ts";

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
 * (the arena's `words`): the code and the price ceiling in cents (PRICE_NONE: none). A scan is
 * bound by memory at a million rules, and reads integers where it tests integers: 16 bytes a plain
 * entry where three doubles took 24 and a double code cost a conversion per hit.
 */
export const PART_PLAIN = 0;
export const PART_FLOAT = 1;
export const PART_FULL = 2;
export const PARTS = 3;
/**
 * The scan's fixed numbers: numbers per entry of a plain part and of a float part, where the pair
 * and the float range sit, and a code's kind bits (slots.ts' KIND_BITS; the matcher's tests fail
 * when the two differ). An enum because each use of one is a literal once transpiled, where each
 * use of a module constant is, in optimised code, a load and a check: the scan used a dozen per
 * entry.
 */
const enum Stride {
  PRICE = 1,
  PLAIN = 2,
  FLOAT = 4,
}
const enum At {
  PAIR = 1,
  MIN_FLOAT = 2,
  MAX_FLOAT = 3,
}
const enum Code {
  KIND_BITS = 4,
  KIND_MASK = 15,
}
export const PN: number = Stride.PLAIN;
export const P: number = Stride.FLOAT;
export const STRIDES: readonly number[] = [PN, P, E];
/**
 * Numbers per entry of a part of a list on an axis. A plain entry on the price axis is its pair
 * alone (8 bytes): its bound is its price ceiling, which the pair holds, so the scan reads the
 * pair's price as the bound. The commonest rule (an item under a price) is this entry.
 */
export const strideOf = (axis: number, part: number): number =>
  axis === AX_PRICE && part === PART_PLAIN ? Stride.PRICE : (STRIDES[part] as number);
/** Where an entry's pair sits in it (the price axis' plain entries are their pair). */
export const pairOffsetOf = (axis: number, part: number): number =>
  strideOf(axis, part) === Stride.PRICE ? 0 : At.PAIR;
/**
 * The pair's price for "no ceiling", and the ceilings a pair holds (0 to PRICE_NONE - 1 cents,
 * about $21 million; a higher ceiling makes the rule a full entry). Below 0x7ff00000, so the pair
 * as a double is never a NaN: copied as a number, its bits survive.
 */
const PRICE_NONE = 0x7fefffff;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/**
 * Which word of a pair holds the code: the low one, so the price, always small, sits where a
 * double's exponent is. The price is the other word: the code's index xor 1. A scan reads this
 * once, into a local.
 */
const CODE_WORD = LITTLE_ENDIAN ? 0 : 1;

/** Writes a pair (code, price ceiling) as the double at `o` of a list whose words are `w`. */
export function writePair(w: Int32Array, o: number, code: number, maxPrice: number): void {
  const at = (o << 1) | CODE_WORD;
  w[at] = code;
  w[at ^ 1] = maxPrice === Infinity ? PRICE_NONE : maxPrice;
}

/** The price ceiling of the pair at double `o` (Infinity: none), as a header's first bound holds it. */
export function pairCeiling(w: Int32Array, o: number): number {
  const price = w[((o << 1) | CODE_WORD) ^ 1] as number;
  return price === PRICE_NONE ? Infinity : price;
}

const PAIR_SCRATCH = new Float64Array(1);
const PAIR_WORDS = new Int32Array(PAIR_SCRATCH.buffer);
/** The code of a pair read as a number (the double after a bound-decided entry's bound). */
export function codeOfPair(pair: number): number {
  PAIR_SCRATCH[0] = pair;
  return PAIR_WORDS[CODE_WORD] as number;
}

/** Whether a price ceiling fits a pair (else the rule is a full entry). */
const fitsPair = (maxPrice: number): boolean =>
  maxPrice === Infinity || (Number.isInteger(maxPrice) && maxPrice >= 0 && maxPrice < PRICE_NONE);

/**
 * A listing's price as pairs compare it: at most PRICE_NONE, which passes every "no ceiling" and
 * fails every ceiling a pair holds, as the price itself does.
 */
export const pairPriceOf = (price: number): number => (price > PRICE_NONE ? PRICE_NONE : Math.ceil(price));

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

/**
 * Appends the ids of the bound-decided entries of one part (from o to n, integers; `stride`: PN
 * for a plain part, P for a float part, 1 for the price axis' plain part: strideOf) that the
 * listing satisfies: one pass that stops at the first ceiling the listing's `key` (keyFor) is
 * above, deciding each entry on the way by its price ceiling (`price`: pairPriceOf's), a float
 * part's float range, and its kind (`kinds`: ListingFacts.kinds); a seed run passes -Infinity,
 * its end found before. This is the hot path: every number it uses per entry is a local or a
 * literal (the enums above), and the per-entry steps are written out in its loops (an inlined
 * call to a module's function costs a load and a check of the function at every entry).
 */
export function collectPure(
  d: Float64Array,
  w: Int32Array,
  o: number,
  n: number,
  stride: number,
  key: number,
  price: number,
  float: number,
  kinds: number,
  out: MatchIds,
): void {
  // Room for every entry of the part: the loops then write refs without a check.
  const refs = out.reserve((n - o) / stride);
  const cw = CODE_WORD;
  let count = out.count;
  if (stride === Stride.PRICE) {
    // The price axis' plain part: the pair's price is the bound, passed by the listing's price.
    for (; o < n; o++) {
      const at = (o << 1) | cw;
      if (!(price <= (w[at ^ 1] as number))) break;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += (kinds >>> (code & Code.KIND_MASK)) & 1;
    }
  } else if (stride === Stride.PLAIN) {
    // Branch-free per entry: each ref is written, and kept (count moves on) only when the entry
    // passes. A listing meeting thousands of rules fails a price ceiling or a kind here and there
    // at random: as branches, each such entry cost a misprediction, more than the rest of its step.
    for (; o < n && key <= (d[o] as number); o += Stride.PLAIN) {
      const at = ((o + At.PAIR) << 1) | cw;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (code & Code.KIND_MASK));
    }
  } else {
    for (; o < n && key <= (d[o] as number); o += Stride.FLOAT) {
      const inRange =
        (float >= (d[o + At.MIN_FLOAT] as number) ? 1 : 0) &
        (float <= (d[o + At.MAX_FLOAT] as number) ? 1 : 0);
      const at = ((o + At.PAIR) << 1) | cw;
      const code = w[at] as number;
      refs[count] = code >> Code.KIND_BITS;
      count += inRange & ((((w[at ^ 1] as number) - price) >>> 31) ^ 1) & (kinds >>> (code & Code.KIND_MASK));
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

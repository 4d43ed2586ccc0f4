// A bucket of the matcher: the rules sharing one index key, packed in lists sorted by a bound so a listing visits only the rules whose bound it passes.
import { DEAL_BOUND_IS_MAX, meetsDealBound } from "../dealFilters.ts";
import { meetsDiscount, type ListingFacts } from "../ruleFilters.ts";
import {
  E,
  E_BITS,
  E_MAX_FLOAT,
  E_MAX_PRICE,
  E_MIN_DISCOUNT,
  E_MIN_FLOAT,
  E_SLOT,
  flagsOf,
  HAS_DISCOUNT,
  HAS_FLOAT,
  type RuleRef,
  type RuleSlots,
} from "./slots.ts";

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
/** No bound to stop on: every rule is checked. */
const AX_NONE = AX_FLOAT_MIN + 1;
const AXES = AX_NONE + 1;

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
  const deal = slots.deals[entry[E_SLOT] as number];
  if (deal !== null && deal !== undefined) {
    for (const k of DEAL_PREFERENCE) if (!Number.isNaN(deal[k])) return AX_DEAL + k;
  }
  if ((entry[E_MAX_PRICE] as number) !== Infinity) return AX_PRICE;
  if (hasFloat && maxFloat !== Infinity) return AX_FLOAT_MAX;
  if (hasFloat && (entry[E_MIN_FLOAT] as number) !== -Infinity) return AX_FLOAT_MIN;
  return AX_NONE;
}

/** Whether the axis' bounds are maxima (sorted descending). */
function isMaxAxis(axis: number): boolean {
  if (axis >= AX_DEAL && axis < AX_DEAL + DEAL_AXES) return DEAL_BOUND_IS_MAX[axis - AX_DEAL] === true;
  return axis === AX_FLOAT_MAX || axis === AX_PRICE;
}

/** An entry's bound on an axis (n: a list, o: the entry's offset). */
function boundOf(slots: RuleSlots, axis: number, n: ArrayLike<number>, o: number): number {
  switch (axis) {
    case AX_DISCOUNT:
      return n[o + E_MIN_DISCOUNT] as number;
    case AX_FLOAT_MAX:
      return n[o + E_MAX_FLOAT] as number;
    case AX_PRICE:
      return n[o + E_MAX_PRICE] as number;
    case AX_FLOAT_MIN:
      return n[o + E_MIN_FLOAT] as number;
    default:
      return slots.deals[n[o + E_SLOT] as number]?.[axis - AX_DEAL] ?? NaN;
  }
}

/** Whether a listing passes a bound on an axis: the same check as matchesFacts' for that filter. */
function passes(axis: number, bound: number, l: ListingFacts): boolean {
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

/** A list's entries in their axis' order, in a new list exactly that long. */
function sortByBound(slots: RuleSlots, axis: number, list: ArrayLike<number>): Float64Array {
  const count = list.length / E;
  const out = new Float64Array(count * E);
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  if (axis !== AX_NONE) {
    const sign = isMaxAxis(axis) ? -1 : 1;
    const bounds = new Float64Array(count);
    for (let i = 0; i < count; i++) bounds[i] = sign * boundOf(slots, axis, list, i * E);
    order.sort((x, y) => (bounds[x] as number) - (bounds[y] as number));
  }
  for (let i = 0; i < count; i++) {
    const from = (order[i] as number) * E;
    for (let k = 0; k < E; k++) out[i * E + k] = list[from + k] as number;
  }
  return out;
}

/**
 * Rules sharing an index key, one list per axis: E doubles per rule (slots.ts) in the axis'
 * order, in a Float64Array exactly that long. Rules added since the last match wait in plain
 * arrays (the JS heap grows and compacts them; many growing typed arrays would fragment native
 * memory); settle sorts them in, once for a whole load. Lists are created on first use: most
 * buckets hold one or two kinds of rule.
 */
export class Bucket {
  private readonly lists: Array<Float64Array | null> = new Array<Float64Array | null>(AXES).fill(null);
  private pending: Array<number[] | null> | null = null;
  /** Bit per axis whose list is not empty. */
  private axes = 0;
  size = 0;

  /** `outer`: the def index or name of a def+paint, def+seed or name+seed bucket (keyed by paint or seed). */
  constructor(
    readonly home: number,
    readonly key: string | number,
    readonly outer: string | number = -1,
  ) {}

  /** Adds an entry on `axis`; true when the bucket had nothing waiting (it now needs a settle). */
  add(entry: Float64Array, axis: number): boolean {
    const first = this.pending === null;
    this.pending ??= new Array<number[] | null>(AXES).fill(null);
    let list = this.pending[axis];
    if (list === null || list === undefined) {
      list = [];
      this.pending[axis] = list;
    }
    for (let i = 0; i < E; i++) list.push(entry[i] as number);
    this.size++;
    return first;
  }

  /** Removes a slot's entry filed on `axis`; false when it is not here. A bucket is small enough for O(n). */
  remove(slot: number, axis: number): boolean {
    const waiting = this.pending?.[axis];
    if (waiting) {
      for (let o = E_SLOT; o < waiting.length; o += E) {
        if (waiting[o] === slot) {
          waiting.splice(o - E_SLOT, E);
          this.size--;
          return true;
        }
      }
    }
    const list = this.lists[axis];
    if (list === null || list === undefined) return false;
    let o = 0;
    while (o < list.length && list[o + E_SLOT] !== slot) o += E;
    if (o >= list.length) return false;
    const rest = new Float64Array(list.length - E);
    rest.set(list.subarray(0, o));
    rest.set(list.subarray(o + E), o);
    this.lists[axis] = rest.length > 0 ? rest : null;
    if (rest.length === 0) this.axes &= ~(1 << axis);
    this.size--;
    return true;
  }

  /** Sorts the waiting entries in; each list ends exactly as long as its entries. */
  settle(slots: RuleSlots): void {
    const pending = this.pending;
    if (pending === null) return;
    for (let axis = 0; axis < AXES; axis++) {
      const waiting = pending[axis];
      if (waiting === null || waiting === undefined || waiting.length === 0) continue;
      const old = this.lists[axis];
      this.lists[axis] = sortByBound(slots, axis, old ? Array.from(old).concat(waiting) : waiting);
      this.axes |= 1 << axis;
    }
    this.pending = null;
  }

  /** Appends the refs of the rules here that the listing satisfies (the bucket is settled). */
  collect(slots: RuleSlots, l: ListingFacts, out: RuleRef[]): void {
    // Most buckets use one or two axes: visit only those (a listing visits up to ~20 buckets).
    for (let axes = this.axes, axis = 0; axes !== 0; axes >>>= 1, axis++) {
      if ((axes & 1) === 0) continue;
      const list = this.lists[axis];
      if (list === null || list === undefined) continue;
      // One loop per kind of bound, each reading its bound straight from the list: the scan is
      // the hot path, and a generic bound lookup per rule costs more than the check itself.
      const end = scanEnd(slots, axis, list, l);
      for (let o = 0; o < end; o += E) if (slots.matches(list, o, l)) out.push(slots.refOf(list, o));
    }
  }
}

/** Where a scan of a list stops: the offset of the first rule whose bound the listing fails. */
function scanEnd(slots: RuleSlots, axis: number, list: Float64Array, l: ListingFacts): number {
  let o = 0;
  const n = list.length;
  switch (axis) {
    case AX_NONE:
      return n;
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

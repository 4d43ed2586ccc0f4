// A bucket of the matcher: the rules sharing one index key, packed in lists sorted by a bound so a listing visits only the rules whose bound it passes.
import {
  AX_NONE,
  AXES,
  boundOf,
  decidedByBound,
  isMaxAxis,
  P,
  P_ID,
  P_MAX_FLOAT,
  P_MIN_FLOAT,
  P_PRICE,
  scanFull,
  scanPure,
} from "./axes.ts";
import type { ListingFacts } from "../ruleFilters.ts";
import {
  E,
  E_BITS,
  E_ID,
  E_MAX_FLOAT,
  E_MAX_PRICE,
  E_MIN_FLOAT,
  E_SLOT,
  flagsOf,
  HAS_FLOAT,
  type RuleSlots,
} from "./slots.ts";

/** The entry's bound-decided form (see P). */
function pureOf(slots: RuleSlots, axis: number, entry: Float64Array): number[] {
  const id = entry[E_ID] as number;
  const float = (flagsOf(entry[E_BITS] as number) & HAS_FLOAT) !== 0;
  return [
    boundOf(slots, axis, entry, 0),
    entry[E_MAX_PRICE] as number,
    float ? (entry[E_MIN_FLOAT] as number) : NaN,
    float ? (entry[E_MAX_FLOAT] as number) : NaN,
    id >= 0 ? id : -((entry[E_SLOT] as number) + 1),
  ];
}

/** A list part's entries (`stride` numbers each) sorted in their axis' order, into `out` from `at`. */
function sortInto(
  slots: RuleSlots,
  axis: number,
  list: readonly number[],
  stride: number,
  out: Float64Array,
  at: number,
): void {
  const count = list.length / stride;
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  if (axis !== AX_NONE) {
    const sign = isMaxAxis(axis) ? -1 : 1;
    const bounds = new Float64Array(count);
    for (let i = 0; i < count; i++)
      bounds[i] = sign * (stride === P ? (list[i * P] as number) : boundOf(slots, axis, list, i * E));
    order.sort((x, y) => (bounds[x] as number) - (bounds[y] as number));
  }
  for (let i = 0; i < count; i++) {
    const from = (order[i] as number) * stride;
    for (let k = 0; k < stride; k++) out[at + i * stride + k] = list[from + k] as number;
  }
}

/** Takes the entry whose number at `field` is `value` out of a list part; false when not there. */
function takeOut(list: number[] | null | undefined, field: number, stride: number, value: number): boolean {
  if (list === null || list === undefined) return false;
  for (let o = field; o < list.length; o += stride) {
    if (list[o] === value) {
      list.splice(o - field, stride);
      return true;
    }
  }
  return false;
}

const EMPTY = new Float64Array(1);
/** A packed bucket's header: the list count, then per list (H numbers) its axis, start, split, end. */
const H = 4;

/** A bucket's lists by axis: its bound-decided part and its full part (plain arrays, in order). */
type Parts = Array<[number[], number[]] | null>;

/**
 * Rules sharing an index key, one list per axis. A list holds first the rules its bound decides
 * (P numbers each: no read outside the list to check them), then the others (E numbers each,
 * slots.ts), each part in the axis' order. All of a bucket's lists sit in one Float64Array behind a
 * small header, exactly as long as they need: a listing's visit reads one array from its start,
 * rather than chasing an array of lists and a list per axis. Rules added since the last match wait
 * in plain arrays (the JS heap grows and compacts them; many growing typed arrays would fragment
 * native memory); settle sorts them in, once for a whole load.
 */
export class Bucket {
  private packed: Float64Array = EMPTY;
  /** Per axis: waiting bound-decided entries, then (at AXES + axis) waiting full entries. */
  private pending: Array<number[] | null> | null = null;
  size = 0;

  /**
   * `outer`: the def index or name of a def+paint, def+seed or name+seed bucket (keyed by paint or
   * seed). `implies`: IMPLIES_* bits of what the key decides for its rules.
   */
  constructor(
    readonly home: number,
    readonly key: string | number,
    readonly outer: string | number = -1,
    readonly implies = 0,
  ) {}

  /** Adds an entry on `axis`; true when the bucket had nothing waiting (it now needs a settle). */
  add(slots: RuleSlots, entry: Float64Array, axis: number): boolean {
    const first = this.pending === null;
    this.pending ??= new Array<number[] | null>(2 * AXES).fill(null);
    const pure = axis !== AX_NONE && decidedByBound(entry, axis, this.implies);
    const at = pure ? axis : AXES + axis;
    let list = this.pending[at];
    if (list === null || list === undefined) {
      list = [];
      this.pending[at] = list;
    }
    if (pure) list.push(...pureOf(slots, axis, entry));
    else for (let i = 0; i < E; i++) list.push(entry[i] as number);
    this.size++;
    return first;
  }

  /**
   * Removes a rule's entry filed on `axis`; false when it is not here. `slot`: its slot, `pureId`:
   * its id as a bound-decided entry holds it. A bucket is small enough for O(n).
   */
  remove(slot: number, pureId: number, axis: number): boolean {
    const waiting = this.pending;
    if (takeOut(waiting?.[axis], P_ID, P, pureId) || takeOut(waiting?.[AXES + axis], E_SLOT, E, slot)) {
      this.size--;
      return true;
    }
    const parts = this.unpack();
    const list = parts[axis];
    if (list === null || list === undefined) return false;
    if (!takeOut(list[0], P_ID, P, pureId) && !takeOut(list[1], E_SLOT, E, slot)) return false;
    // Still in order: packing copies each part as it is.
    this.pack(parts, null);
    this.size--;
    return true;
  }

  /** Sorts the waiting entries in; the packed lists end exactly as long as their entries. */
  settle(slots: RuleSlots): void {
    const pending = this.pending;
    if (pending === null) return;
    const parts = this.unpack();
    for (let axis = 0; axis < AXES; axis++) {
      const pure = pending[axis] ?? [];
      const full = pending[AXES + axis] ?? [];
      if (pure.length === 0 && full.length === 0) continue;
      const old = parts[axis];
      parts[axis] = old ? [old[0].concat(pure), old[1].concat(full)] : [pure, full];
    }
    this.pack(parts, slots);
    this.pending = null;
  }

  /** The number of lists here: reading it brings the packed lists' start into the cache. */
  touch(): number {
    return this.packed[0] as number;
  }

  /** Appends the ids of the rules here that the listing satisfies (the bucket is settled). */
  collect(slots: RuleSlots, l: ListingFacts, out: Array<number | string>): void {
    const d = this.packed;
    const lists = d[0] as number;
    // Only the axes the bucket uses (most use one or two; a listing visits ~14 lists in all).
    for (let h = 1; h < 1 + lists * H; h += H) {
      const axis = d[h] as number;
      const split = d[h + 2] as number;
      // Bound-decided rules: every one the scan passes matches if its price and float let it
      // (the same checks as matches', with NaN for "no float filter").
      const pureEnd = scanPure(axis, d, d[h + 1] as number, split, l);
      const price = l.price;
      const float = l.float;
      for (let o = d[h + 1] as number; o < pureEnd; o += P) {
        if (price > (d[o + P_PRICE] as number)) continue;
        const min = d[o + P_MIN_FLOAT] as number;
        if (min === min && !(float >= min && float <= (d[o + P_MAX_FLOAT] as number))) continue;
        const id = d[o + P_ID] as number;
        out.push(id >= 0 ? id : slots.keyAt(-id - 1));
      }
      // One loop per kind of bound, each reading its bound straight from the list: the scan is
      // the hot path, and a generic bound lookup per rule costs more than the check itself.
      const end = scanFull(slots, axis, d, split, d[h + 3] as number, l);
      for (let o = split; o < end; o += E) if (slots.matches(d, o, l)) out.push(slots.idOf(d, o));
    }
  }

  /** The packed lists as plain arrays, by axis. */
  private unpack(): Parts {
    const d = this.packed;
    const parts: Parts = new Array<[number[], number[]] | null>(AXES).fill(null);
    for (let h = 1; h < 1 + (d[0] as number) * H; h += H) {
      const start = d[h + 1] as number;
      const split = d[h + 2] as number;
      const end = d[h + 3] as number;
      parts[d[h] as number] = [Array.from(d.subarray(start, split)), Array.from(d.subarray(split, end))];
    }
    return parts;
  }

  /** Packs the lists (sorting each part by its axis' bound when `slots` is given, else as they are). */
  private pack(parts: Parts, slots: RuleSlots | null): void {
    let lists = 0;
    let size = 0;
    for (const part of parts) {
      if (part === null || part[0].length + part[1].length === 0) continue;
      lists++;
      size += part[0].length + part[1].length;
    }
    if (lists === 0) {
      this.packed = EMPTY;
      return;
    }
    const d = new Float64Array(1 + lists * H + size);
    d[0] = lists;
    let h = 1;
    let at = 1 + lists * H;
    for (let axis = 0; axis < AXES; axis++) {
      const part = parts[axis];
      if (part === null || part === undefined || part[0].length + part[1].length === 0) continue;
      const [pure, full] = part;
      d[h] = axis;
      d[h + 1] = at;
      if (slots === null) d.set(pure, at);
      else sortInto(slots, axis, pure, P, d, at);
      at += pure.length;
      d[h + 2] = at;
      if (slots === null) d.set(full, at);
      else sortInto(slots, axis, full, E, d, at);
      at += full.length;
      d[h + 3] = at;
      h += H;
    }
    this.packed = d;
  }
}

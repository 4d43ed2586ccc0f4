// How a bucket's lists are laid out and kept in order: the header, the waiting entries' forms, the sort by axis and the removal of one entry.
import {
  AX_SEED,
  AXES,
  boundOf,
  ceilingOf,
  isMaxAxis,
  PART_FLOAT,
  PART_FULL,
  PART_PLAIN,
  PARTS,
  strideOf,
  W_CODE,
  W_MAX_FLOAT,
  W_MIN_FLOAT,
  W_PRICE,
  WAIT_PURE,
} from "./axes.ts";
import { pairCeiling, writePair } from "./scan.ts";
import {
  E,
  E_BITS,
  E_MAX_FLOAT,
  E_MAX_PRICE,
  E_MIN_FLOAT,
  flagsOf,
  HAS_FLOAT,
  KINDS,
  kindOf,
  type RuleSlots,
} from "./slots.ts";

/**
 * Appends the entry's bound-decided form as it waits (axes.ts' W_*) to `out`, one number at a
 * time (no array per rule): its bound as a ceiling (ceilingOf; on the seed axis, its seed).
 * Its ref is RuleSlots.refOf's (as pureIdOf gives it for the slot).
 */
export function pushPure(slots: RuleSlots, axis: number, entry: Float64Array, out: number[]): void {
  const float = (flagsOf(entry[E_BITS] as number) & HAS_FLOAT) !== 0;
  const bound = boundOf(slots, axis, entry, 0);
  out.push(
    axis === AX_SEED ? bound : ceilingOf(axis, bound),
    entry[E_MAX_PRICE] as number,
    float ? (entry[E_MIN_FLOAT] as number) : NaN,
    float ? (entry[E_MAX_FLOAT] as number) : NaN,
    slots.refOf(entry, 0) * KINDS + kindOf(flagsOf(entry[E_BITS] as number)),
  );
}

/** Waiting entries carry their axis first. */
export const WP = WAIT_PURE + 1;
export const WE = E + 1;

/**
 * Sorts the entries of one part (PART_*) of d between `from` and `to` in their axis' order, in
 * place (w: d's words, where a price-axis plain entry's ceiling is read).
 */
export function sortSegment(
  slots: RuleSlots,
  axis: number,
  d: Float64Array,
  w: Int32Array,
  from: number,
  to: number,
  part: number,
): void {
  const stride = strideOf(axis, part);
  const count = (to - from) / stride;
  if (count < 2) return;
  // A full entry's bound is read as its axis reads it, loosest first; a bound-decided one's
  // ceiling comes first, largest (loosest) first, or on the seed axis its seed, lowest first.
  const full = part === PART_FULL;
  const sign = full ? (isMaxAxis(axis) ? -1 : 1) : axis === AX_SEED ? 1 : -1;
  const order = new Uint32Array(count);
  const bounds = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    order[i] = i;
    const o = from + i * stride;
    bounds[i] =
      sign * (full ? boundOf(slots, axis, d, o) : stride === 1 ? pairCeiling(w, o) : (d[o] as number));
  }
  if (count <= SMALL_SORT) insertionSort(order, bounds, count);
  else order.sort((x, y) => (bounds[x] as number) - (bounds[y] as number));
  // Entry by entry, number by number: a subarray per entry was an object per rule at a load.
  const copy = d.slice(from, to);
  for (let i = 0; i < count; i++) {
    const src = (order[i] as number) * stride;
    const dst = from + i * stride;
    for (let k = 0; k < stride; k++) d[dst + k] = copy[src + k] as number;
  }
}

/**
 * Parts up to this many entries are sorted in place by insertion: most parts at a million rules
 * are a few entries (an item's watchers), where the typed array sort's set-up and a comparator
 * call per comparison cost more than the sort.
 */
const SMALL_SORT = 24;

/** Sorts `order` (0..count-1) by `bounds` ascending, ties in index order (as the sort does). */
function insertionSort(order: Uint32Array, bounds: Float64Array, count: number): void {
  for (let i = 1; i < count; i++) {
    const item = order[i] as number;
    const key = bounds[item] as number;
    let j = i - 1;
    while (j >= 0 && (bounds[order[j] as number] as number) > key) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = item;
  }
}

/**
 * Takes the entry (`stride` numbers) whose id, as `idAt` reads it from the entry at o, is `value`
 * out of a list; false when not there. `axis` >= 0: the list's entries carry their axis first
 * (waiting entries), and only an entry on that axis counts.
 */
export function takeOut(
  list: number[] | null | undefined,
  stride: number,
  idAt: (list: readonly number[], o: number) => number,
  value: number,
  axis = -1,
): boolean {
  if (list === null || list === undefined) return false;
  const skip = axis < 0 ? 0 : 1;
  for (let o = 0; o < list.length; o += stride) {
    if (idAt(list, o + skip) === value && (axis < 0 || list[o] === axis)) {
      list.splice(o, stride);
      return true;
    }
  }
  return false;
}

/** settle's lengths and cursors per axis and part (axis * PARTS + part), reused (settle runs synchronously). */
export const SCRATCH = {
  len: new Int32Array(AXES * PARTS),
  at: new Int32Array(AXES * PARTS),
  added: new Uint8Array(AXES),
};
/**
 * A packed bucket's header: the list count, then per list (H numbers) its axis, where each of its
 * parts (PART_*) starts, where the last one ends, and the bound of each part's first entry (NaN:
 * none). A list's first entry is its loosest: a listing that fails it meets nothing in that part,
 * and most listings fail most lists at the first entry, so deciding that from the header saves
 * reading each list's start (a cache miss at a million rules: ten a listing).
 */
export const H = 2 + 2 * PARTS;
/** Where a list's first bounds start in its header. */
export const FIRST = 2 + PARTS;

/** A bucket's lists by axis, each as its parts (PART_*: plain arrays, in order). */
export type Parts = Array<number[][] | null>;

/** The part a waiting bound-decided entry (at o, after its axis) settles into. */
export const partOf = (wait: readonly number[], o: number): number =>
  Number.isNaN(wait[o + 1 + W_MIN_FLOAT]) ? PART_PLAIN : PART_FLOAT;

/**
 * Copies a waiting bound-decided entry (at o, after its axis) into d at `to` in its part's form
 * (axes.ts: bound, pair, then a float part's range); w: d's words.
 */
export function settlePure(
  wait: readonly number[],
  o: number,
  part: number,
  d: Float64Array,
  w: Int32Array,
  to: number,
): void {
  const code = wait[o + 1 + W_CODE] as number;
  const price = wait[o + 1 + W_PRICE] as number;
  if (strideOf(wait[o] as number, part) === 1) {
    writePair(w, to, code, price);
    return;
  }
  d[to] = wait[o + 1] as number;
  writePair(w, to + 1, code, price);
  if (part === PART_FLOAT) {
    d[to + 2] = wait[o + 1 + W_MIN_FLOAT] as number;
    d[to + 3] = wait[o + 1 + W_MAX_FLOAT] as number;
  }
}

/**
 * A new packed array for lists of the given lengths (`len`, by axis * PARTS + part), its header
 * written, and SCRATCH.at set to where each part starts.
 */
export function layOut(len: Int32Array): Float64Array {
  let lists = 0;
  let size = 0;
  for (let axis = 0; axis < AXES; axis++) {
    let n = 0;
    for (let part = 0; part < PARTS; part++) n += len[axis * PARTS + part] as number;
    if (n === 0) continue;
    lists++;
    size += n;
  }
  const d = new Float64Array(1 + lists * H + size);
  d[0] = lists;
  let h = 1;
  let cursor = 1 + lists * H;
  for (let axis = 0; axis < AXES; axis++) {
    let n = 0;
    for (let part = 0; part < PARTS; part++) n += len[axis * PARTS + part] as number;
    if (n === 0) continue;
    d[h] = axis;
    for (let part = 0; part < PARTS; part++) {
      d[h + 1 + part] = cursor;
      SCRATCH.at[axis * PARTS + part] = cursor;
      cursor += len[axis * PARTS + part] as number;
    }
    d[h + 1 + PARTS] = cursor;
    h += H;
  }
  return d;
}

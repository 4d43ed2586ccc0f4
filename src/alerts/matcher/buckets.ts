// A bucket of the matcher: the rules sharing one index key, packed in lists sorted by a bound so a listing visits only the rules whose bound it passes.
import {
  AX_NONE,
  AX_SEED,
  AXES,
  boundOf,
  collectPure,
  decidedByBound,
  isMaxAxis,
  KINDS,
  P,
  P_ID,
  passes,
  pureHit,
  scanFull,
  seedDirectory,
  seedRun,
} from "./axes.ts";
import type { ListingFacts } from "../ruleFilters.ts";
import { EMPTY_AT, type Arena, type ArenaTenant } from "./arena.ts";
import {
  E,
  E_BITS,
  E_ID,
  E_KEY,
  E_MAX_FLOAT,
  E_MAX_PRICE,
  E_MIN_FLOAT,
  E_SLOT,
  flagsOf,
  HAS_FLOAT,
  kindOf,
  type MatchIds,
  type RuleSlots,
} from "./slots.ts";

/** Appends the entry's bound-decided form (see P) to `out`, one number at a time (no array per rule). */
function pushPure(slots: RuleSlots, axis: number, entry: Float64Array, out: number[]): void {
  const id = entry[E_ID] as number;
  const float = (flagsOf(entry[E_BITS] as number) & HAS_FLOAT) !== 0;
  out.push(
    boundOf(slots, axis, entry, 0),
    entry[E_MAX_PRICE] as number,
    float ? (entry[E_MIN_FLOAT] as number) : NaN,
    float ? (entry[E_MAX_FLOAT] as number) : NaN,
    (id >= 0 ? id : -((entry[E_SLOT] as number) + 1)) * KINDS + kindOf(flagsOf(entry[E_BITS] as number)),
  );
}

/** Waiting entries carry their axis first. */
const WP = P + 1;
const WE = E + 1;

/** Sorts the entries (`stride` numbers each) of d between `from` and `to` in their axis' order, in place. */
function sortSegment(
  slots: RuleSlots,
  axis: number,
  d: Float64Array,
  from: number,
  to: number,
  stride: number,
): void {
  const count = (to - from) / stride;
  if (axis === AX_NONE || count < 2) return;
  const sign = isMaxAxis(axis) ? -1 : 1;
  const order = new Uint32Array(count);
  const bounds = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    order[i] = i;
    const o = from + i * stride;
    bounds[i] = sign * (stride === P ? (d[o] as number) : boundOf(slots, axis, d, o));
  }
  order.sort((x, y) => (bounds[x] as number) - (bounds[y] as number));
  const copy = d.slice(from, to);
  for (let i = 0; i < count; i++)
    d.set(copy.subarray(order[i]! * stride, (order[i]! + 1) * stride), from + i * stride);
}

/**
 * Takes the entry (`stride` numbers) whose number at `field`, divided by `unit` and floored, is
 * `value` out of a list (a bound-decided entry's P_ID holds its ref times KINDS, plus its kind);
 * false when not there. `axis` >= 0: the list's entries carry their axis first (waiting entries),
 * and only an entry on that axis counts.
 */
function takeOut(
  list: number[] | null | undefined,
  stride: number,
  field: number,
  unit: number,
  value: number,
  axis = -1,
): boolean {
  if (list === null || list === undefined) return false;
  const at = axis < 0 ? field : field + 1;
  for (let o = 0; o < list.length; o += stride) {
    if (Math.floor((list[o + at] as number) / unit) === value && (axis < 0 || list[o] === axis)) {
      list.splice(o, stride);
      return true;
    }
  }
  return false;
}

/** settle's per-axis counts and cursors, reused (settle runs synchronously, once per bucket in a load). */
const SCRATCH = {
  pureLen: new Int32Array(AXES),
  fullLen: new Int32Array(AXES),
  added: new Uint8Array(AXES),
  pureAt: new Int32Array(AXES),
  fullAt: new Int32Array(AXES),
};
/**
 * A packed bucket's header: the list count, then per list (H numbers) its axis, start, split, end,
 * and the bound of the first entry of each part (NaN: none). A list's first entry is its loosest:
 * a listing that fails it meets nothing in that part, and most listings fail most lists at the
 * first entry, so deciding that from the header saves reading each list's start (a cache miss at
 * a million rules: ten a listing).
 */
const H = 6;

/** A bucket's lists by axis: its bound-decided part and its full part (plain arrays, in order). */
type Parts = Array<[number[], number[]] | null>;

/**
 * Rules sharing an index key, one list per axis. A list holds first the rules its bound decides
 * (P numbers each: no read outside the list to check them), then the others (E numbers each,
 * slots.ts), each part in the axis' order. All of a bucket's lists sit in one region of the index's
 * arena behind a small header, exactly as long as they need: a listing's visit reads one region
 * from its start, rather than chasing an array of lists and a list per axis. Offsets in the header
 * are from the region's start (compaction moves regions). Rules added since the last match wait
 * in plain arrays (the JS heap grows and compacts them; many growing typed arrays would fragment
 * native memory); settle sorts them in, once for a whole load.
 */
export class Bucket implements ArenaTenant {
  /** The region of the arena holding the packed lists (EMPTY_AT, 0: none, no lists). */
  at = EMPTY_AT;
  length = 0;
  /** Entries added since the last settle, each after its axis: bound-decided ones, full ones. */
  private waitPure: number[] | null = null;
  private waitFull: number[] | null = null;
  /** Where the seed list's directory (seedDirectory) follows the lists in the region; -1: none. */
  private seedsAt = -1;
  size = 0;

  /**
   * `outer`: the def index or name of a def+paint, def+seed or name+seed bucket (keyed by paint or
   * seed). `implies`: IMPLIES_* bits of what the key decides for its rules.
   */
  constructor(
    private readonly arena: Arena,
    readonly home: number,
    readonly key: string | number,
    readonly outer: string | number = -1,
    readonly implies = 0,
  ) {}

  /** Adds an entry on `axis`; true when the bucket had nothing waiting (it now needs a settle). */
  add(slots: RuleSlots, entry: Float64Array, axis: number): boolean {
    const first = this.waitPure === null && this.waitFull === null;
    if (axis !== AX_NONE && decidedByBound(entry, axis, this.implies)) {
      const list = (this.waitPure ??= []);
      list.push(axis);
      pushPure(slots, axis, entry, list);
    } else {
      const list = (this.waitFull ??= []);
      list.push(axis);
      for (let i = 0; i < E; i++) list.push(entry[i] as number);
    }
    this.size++;
    return first;
  }

  /**
   * Removes a rule's entry filed on `axis`; false when it is not here. `slot`: its slot, `pureId`:
   * its id as a bound-decided entry holds it. A bucket is small enough for O(n).
   */
  remove(slots: RuleSlots, slot: number, pureId: number, axis: number): boolean {
    if (
      takeOut(this.waitPure, WP, P_ID, KINDS, pureId, axis) ||
      takeOut(this.waitFull, WE, E_SLOT, 1, slot, axis)
    ) {
      this.size--;
      return true;
    }
    const parts = this.unpack();
    const list = parts[axis];
    if (list === null || list === undefined) return false;
    if (!takeOut(list[0], P, P_ID, KINDS, pureId) && !takeOut(list[1], E, E_SLOT, 1, slot)) return false;
    // Still in order: packing copies each part as it is.
    this.pack(slots, parts);
    this.size--;
    return true;
  }

  /**
   * Sorts the waiting entries in, straight into a new packed array exactly as long as its lists:
   * each axis' part is the packed one followed by the waiting ones, sorted again only when some
   * came in. A load settles each bucket once, so this is its one copy of every entry.
   */
  settle(slots: RuleSlots): void {
    const pure = this.waitPure ?? [];
    const full = this.waitFull ?? [];
    // Nothing waits any more (what did was removed again): the next add marks the bucket anew.
    this.waitPure = null;
    this.waitFull = null;
    if (pure.length + full.length === 0) return;
    const old = this.region();
    const oldLists = old[0] as number;
    const { pureLen, fullLen, added, pureAt, fullAt } = SCRATCH;
    pureLen.fill(0);
    fullLen.fill(0);
    added.fill(0);
    for (let h = 1; h < 1 + oldLists * H; h += H) {
      const axis = old[h] as number;
      pureLen[axis] = (old[h + 2] as number) - (old[h + 1] as number);
      fullLen[axis] = (old[h + 3] as number) - (old[h + 2] as number);
    }
    for (let o = 0; o < pure.length; o += WP) {
      const axis = pure[o] as number;
      pureLen[axis] = (pureLen[axis] as number) + P;
      added[axis] = 1;
    }
    for (let o = 0; o < full.length; o += WE) {
      const axis = full[o] as number;
      fullLen[axis] = (fullLen[axis] as number) + E;
      added[axis] = 1;
    }
    let lists = 0;
    let size = 0;
    for (let axis = 0; axis < AXES; axis++) {
      const n = (pureLen[axis] as number) + (fullLen[axis] as number);
      if (n === 0) continue;
      lists++;
      size += n;
    }
    const d = new Float64Array(1 + lists * H + size);
    d[0] = lists;
    // Per axis, where its next pure and full entry go.
    let h = 1;
    let at = 1 + lists * H;
    for (let axis = 0; axis < AXES; axis++) {
      const p = pureLen[axis] as number;
      const f = fullLen[axis] as number;
      if (p + f === 0) continue;
      d[h] = axis;
      d[h + 1] = at;
      d[h + 2] = at + p;
      d[h + 3] = at + p + f;
      pureAt[axis] = at;
      fullAt[axis] = at + p;
      at += p + f;
      h += H;
    }
    for (let oh = 1; oh < 1 + oldLists * H; oh += H) {
      const axis = old[oh] as number;
      d.set(old.subarray(old[oh + 1] as number, old[oh + 2] as number), pureAt[axis]);
      pureAt[axis] = (pureAt[axis] as number) + (old[oh + 2] as number) - (old[oh + 1] as number);
      d.set(old.subarray(old[oh + 2] as number, old[oh + 3] as number), fullAt[axis]);
      fullAt[axis] = (fullAt[axis] as number) + (old[oh + 3] as number) - (old[oh + 2] as number);
    }
    for (let o = 0; o < pure.length; o += WP) {
      const axis = pure[o] as number;
      const to = pureAt[axis] as number;
      for (let k = 0; k < P; k++) d[to + k] = pure[o + 1 + k] as number;
      pureAt[axis] = to + P;
    }
    for (let o = 0; o < full.length; o += WE) {
      const axis = full[o] as number;
      const to = fullAt[axis] as number;
      for (let k = 0; k < E; k++) d[to + k] = full[o + 1 + k] as number;
      fullAt[axis] = to + E;
    }
    for (let sh = 1; sh < 1 + lists * H; sh += H) {
      const axis = d[sh] as number;
      if (added[axis] === 0) continue;
      sortSegment(slots, axis, d, d[sh + 1] as number, d[sh + 2] as number, P);
      sortSegment(slots, axis, d, d[sh + 2] as number, d[sh + 3] as number, E);
    }
    this.setPacked(slots, d);
  }

  /** The packed lists (a copy-free view; an empty bucket's is its one 0, no lists). */
  private region(): Float64Array {
    return this.arena.data.subarray(this.at, this.at + Math.max(1, this.length));
  }

  /**
   * Places the packed lists in the arena (none: frees the region), with the seed list's directory
   * after them: in the same region, reading it costs no hop of its own.
   */
  private setPacked(slots: RuleSlots, d: Float64Array | null): void {
    this.seedsAt = -1;
    if (d === null) {
      this.arena.free(this);
      return;
    }
    let dir: Int32Array | null = null;
    for (let h = 1; h < 1 + (d[0] as number) * H; h += H) {
      const axis = d[h] as number;
      const start = d[h + 1] as number;
      const split = d[h + 2] as number;
      const end = d[h + 3] as number;
      d[h + 4] = split > start ? (d[start] as number) : NaN;
      d[h + 5] = end > split && axis !== AX_NONE && axis !== AX_SEED ? boundOf(slots, axis, d, split) : NaN;
      if (axis === AX_SEED) dir = seedDirectory(d, start, split, end);
    }
    if (dir === null) {
      this.arena.place(this, d);
      return;
    }
    const region = new Float64Array(d.length + dir.length);
    region.set(d);
    region.set(dir, d.length);
    this.seedsAt = d.length;
    this.arena.place(this, region);
  }

  /** The number of lists here: reading it brings the packed lists' start into the cache. */
  touch(): number {
    return this.arena.data[this.at] as number;
  }

  /**
   * Appends the ids of the rules here that the listing satisfies (the bucket is settled). The
   * header's offsets are read as doubles and made integers before they index anything: a double
   * index costs a conversion at every read of the scan.
   */
  collect(slots: RuleSlots, l: ListingFacts, out: MatchIds): void {
    const d = this.arena.data;
    const b = this.at;
    const last = b + 1 + (d[b] as number) * H;
    // Only the axes the bucket uses (most use one or two; a listing visits ~14 lists in all).
    for (let h = b + 1; h < last; h += H) {
      const axis = d[h] as number;
      const start = b + ((d[h + 1] as number) | 0);
      const split = b + ((d[h + 2] as number) | 0);
      const end = b + ((d[h + 3] as number) | 0);
      if (axis === AX_SEED) {
        this.collectSeed(slots, l, d, start, split, end, this.seedsAt < 0 ? -1 : b + this.seedsAt, out);
        continue;
      }
      // A part is read only when the listing passes its first (loosest) bound, from the header.
      if (split > start && passes(axis, d[h + 4] as number, l)) collectPure(slots, axis, d, start, split, l, out);
      if (end === split || !passes(axis, d[h + 5] as number, l)) continue;
      // One loop per kind of bound, each reading its bound straight from the list: the scan is
      // the hot path, and a generic bound lookup per rule costs more than the check itself.
      const stop = scanFull(slots, axis, d, split, end, l);
      for (let o = split; o < stop; o += E) if (slots.matches(d, o, l)) out.add(slots.idOf(d, o));
    }
  }

  /** The seed list (its parts from start to split to end, its directory at dir, -1: none): the runs of the listing's seed in both parts, each fully checked as its part is. */
  private collectSeed(
    slots: RuleSlots,
    l: ListingFacts,
    d: Float64Array,
    start: number,
    split: number,
    end: number,
    dir: number,
    out: MatchIds,
  ): void {
    if (Number.isNaN(l.paintSeed)) return;
    const [pureFrom, pureEnd] = seedRun(d, start, split, P, 0, l.paintSeed, dir, 0);
    let count = out.count;
    for (let o = pureFrom; o < pureEnd; o += P)
      count = pureHit(slots, d, o, l.price, l.float, l.kinds, out.ids, count);
    out.count = count;
    const [fullFrom, fullEnd] = seedRun(d, split, end, E, E_KEY, l.paintSeed, dir, 1);
    for (let o = fullFrom; o < fullEnd; o += E) if (slots.matches(d, o, l)) out.add(slots.idOf(d, o));
  }

  /** The packed lists as plain arrays, by axis. */
  private unpack(): Parts {
    const d = this.region();
    const parts: Parts = new Array<[number[], number[]] | null>(AXES).fill(null);
    for (let h = 1; h < 1 + (d[0] as number) * H; h += H) {
      const start = d[h + 1] as number;
      const split = d[h + 2] as number;
      const end = d[h + 3] as number;
      parts[d[h] as number] = [Array.from(d.subarray(start, split)), Array.from(d.subarray(split, end))];
    }
    return parts;
  }

  /** Packs the lists as they are (each part already in its axis' order). */
  private pack(slots: RuleSlots, parts: Parts): void {
    let lists = 0;
    let size = 0;
    for (const part of parts) {
      if (part === null || part[0].length + part[1].length === 0) continue;
      lists++;
      size += part[0].length + part[1].length;
    }
    if (lists === 0) {
      this.setPacked(slots, null);
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
      d.set(pure, at);
      at += pure.length;
      d[h + 2] = at;
      d.set(full, at);
      at += full.length;
      d[h + 3] = at;
      h += H;
    }
    this.setPacked(slots, d);
  }
}

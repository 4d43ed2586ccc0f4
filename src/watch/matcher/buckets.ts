// A bucket of the matcher: the rules sharing one index key, packed in lists sorted by a bound so a listing visits only the rules whose bound it passes.
import {
  AX_SEED,
  AXES,
  boundOf,
  decidedByBound,
  keyFor,
  pairOffsetOf,
  PART_FLOAT,
  PART_FULL,
  PART_PLAIN,
  PARTS,
  passes,
  scanFull,
  strideOf,
  W_CODE,
} from "./axes.ts";
import { codeOfPair, collectPure, P, pairCeiling, pairPriceOf, PN } from "./scan.ts";
import type { ListingFacts } from "../ruleFilters.ts";
import { EMPTY_AT, type Arena, type ArenaTenant } from "./arena.ts";
import { impliesOf } from "./homes.ts";
import { seedBit, seedCell, seedDirectory, seedRun } from "./seeds.ts";
import {
  FIRST,
  H,
  layOut,
  partOf,
  pushPure,
  SCRATCH,
  settlePure,
  sortSegment,
  takeOut,
  WE,
  WP,
  type Parts,
} from "./packing.ts";
import type { MatchIds } from "./matchIds.ts";
import { E, E_KEY, E_SLOT, KIND_BITS, type RuleSlots } from "./slots.ts";

/** How takeOut reads an entry's id: a waiting bound-decided one's ref, a full one's slot. */
const waitingRef = (list: readonly number[], o: number): number => (list[o + W_CODE] as number) >> KIND_BITS;
const fullSlot = (list: readonly number[], o: number): number => list[o + E_SLOT] as number;

/**
 * Rules sharing an index key, one list per axis. A list holds first the rules its bound decides
 * (no read outside the list to check them; without a float range, PART_PLAIN, then with one,
 * PART_FLOAT: axes.ts), then the others (E numbers each, slots.ts), each part in the axis'
 * order. All of a bucket's lists sit in one region of the index's arena behind a small header
 * (packing.ts), exactly as long as they need: a listing's visit reads one region from its start,
 * rather than chasing an array of lists and a list per axis. Offsets in the header are from the
 * region's start (compaction moves regions). Rules added since the last match wait in plain
 * arrays (the JS heap grows and compacts them; many growing typed arrays would fragment native
 * memory); settle sorts them in, once for a whole load.
 */
export class Bucket implements ArenaTenant {
  /** The region of the arena holding the packed lists (EMPTY_AT, 0: none, no lists). */
  at = EMPTY_AT;
  length = 0;
  /** Entries added since the last settle, each after its axis: bound-decided ones, full ones. */
  private waitPure: number[] | null = null;
  private waitFull: number[] | null = null;
  size = 0;

  /**
   * `outer`: the def index of a bucket keyed by paint within its def (def+paint), else -1.
   */
  constructor(
    private readonly arena: Arena,
    readonly home: number,
    readonly key: string | number,
    readonly outer: string | number = -1,
  ) {
    this.implies = impliesOf(home);
  }

  /** What the key decides for every rule here (IMPLIES_* bits): homes.ts' impliesOf of its home. */
  readonly implies: number;

  /** Adds an entry on `axis`; true when the bucket had nothing waiting (it now needs a settle). */
  add(slots: RuleSlots, entry: Float64Array, axis: number): boolean {
    const first = this.waitPure === null && this.waitFull === null;
    if (decidedByBound(entry, axis, this.implies)) {
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
      takeOut(this.waitPure, WP, waitingRef, pureId, axis) ||
      takeOut(this.waitFull, WE, fullSlot, slot, axis)
    ) {
      this.size--;
      return true;
    }
    const parts = this.unpack();
    const list = parts[axis];
    if (list === null || list === undefined) return false;
    let found = false;
    for (let part = 0; part < PARTS && !found; part++) {
      const full = part === PART_FULL;
      // A packed bound-decided entry's ref is in its pair's code.
      const pair = pairOffsetOf(axis, part);
      const packedRef = (entries: readonly number[], o: number) =>
        codeOfPair(entries[o + pair] as number) >> KIND_BITS;
      found = takeOut(list[part], strideOf(axis, part), full ? fullSlot : packedRef, full ? slot : pureId);
    }
    if (!found) return false;
    // Still in order: packing copies each part as it is.
    this.pack(slots, parts);
    this.size--;
    return true;
  }

  /**
   * Sorts the waiting entries in, straight into a new packed array exactly as long as its lists:
   * each part of each axis is the packed one followed by the waiting ones, sorted again only when
   * some came in. A load settles each bucket once, so this is its one copy of every entry.
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
    const { len, at, added } = SCRATCH;
    len.fill(0);
    added.fill(0);
    for (let h = 1; h < 1 + oldLists * H; h += H) {
      const axis = old[h] as number;
      for (let part = 0; part < PARTS; part++)
        len[axis * PARTS + part] = (old[h + 2 + part] as number) - (old[h + 1 + part] as number);
    }
    for (let o = 0; o < pure.length; o += WP) {
      const axis = pure[o] as number;
      const part = partOf(pure, o);
      len[axis * PARTS + part] = (len[axis * PARTS + part] as number) + strideOf(axis, part);
      added[axis] = 1;
    }
    for (let o = 0; o < full.length; o += WE) {
      const axis = full[o] as number;
      len[axis * PARTS + PART_FULL] = (len[axis * PARTS + PART_FULL] as number) + E;
      added[axis] = 1;
    }
    const d = layOut(len);
    const w = new Int32Array(d.buffer);
    // Each part: its packed entries, then its waiting ones (sorted below when any came in).
    for (let oh = 1; oh < 1 + oldLists * H; oh += H) {
      const axis = old[oh] as number;
      for (let part = 0; part < PARTS; part++) {
        const from = old[oh + 1 + part] as number;
        const to = old[oh + 2 + part] as number;
        const k = axis * PARTS + part;
        d.set(old.subarray(from, to), at[k] as number);
        at[k] = (at[k] as number) + to - from;
      }
    }
    for (let o = 0; o < pure.length; o += WP) {
      const part = partOf(pure, o);
      const k = (pure[o] as number) * PARTS + part;
      settlePure(pure, o, part, d, w, at[k] as number);
      at[k] = (at[k] as number) + strideOf(pure[o] as number, part);
    }
    for (let o = 0; o < full.length; o += WE) {
      const k = (full[o] as number) * PARTS + PART_FULL;
      const to = at[k] as number;
      for (let i = 0; i < E; i++) d[to + i] = full[o + 1 + i] as number;
      at[k] = to + E;
    }
    for (let sh = 1; sh < 1 + (d[0] as number) * H; sh += H) {
      const axis = d[sh] as number;
      if (added[axis] === 0) continue;
      for (let part = 0; part < PARTS; part++)
        sortSegment(slots, axis, d, w, d[sh + 1 + part] as number, d[sh + 2 + part] as number, part);
    }
    this.setPacked(slots, d);
  }

  /** The packed lists (a copy-free view; an empty bucket's is its one 0, no lists). */
  private region(): Float64Array {
    return this.arena.data.subarray(this.at, this.at + Math.max(1, this.length));
  }

  /**
   * Places the packed lists in the arena (none: frees the region), with the seed list's directory
   * cells right after them (the seed list is the last list, so its end is where they start; its
   * header holds the directory's head): in the same region, reading a cell costs no hop of its
   * own, and the head none at all.
   */
  private setPacked(slots: RuleSlots, d: Float64Array | null): void {
    if (d === null) {
      this.arena.free(this);
      return;
    }
    let cells: Int32Array | null = null;
    const w = new Int32Array(d.buffer, d.byteOffset, d.length * 2);
    for (let h = 1; h < 1 + (d[0] as number) * H; h += H) {
      const axis = d[h] as number;
      if (axis === AX_SEED) {
        // A seed list has no first bounds (a listing reads its own seed's run): its header holds
        // the directory's head, or NaNs when the list is short enough to bisect.
        const dir = seedDirectory(d, Array.from(d.subarray(h + 1, h + 2 + PARTS)));
        for (let k = 0; k < PARTS; k++) d[h + FIRST + k] = dir === null ? NaN : (dir.head[k] as number);
        cells = dir?.cells ?? null;
        continue;
      }
      for (let part = 0; part < PARTS; part++) {
        const start = d[h + 1 + part] as number;
        const empty = (d[h + 2 + part] as number) === start;
        // A bound-decided entry's bound comes first (the price axis' plain one is its pair's
        // price); a full one's is read as its axis reads it.
        d[h + FIRST + part] = empty
          ? NaN
          : part === PART_FULL
            ? boundOf(slots, axis, d, start)
            : strideOf(axis, part) === 1
              ? pairCeiling(w, start)
              : (d[start] as number);
      }
    }
    if (cells === null) {
      this.arena.place(this, d);
      return;
    }
    const region = new Float64Array(d.length + Math.ceil(cells.length / 2));
    region.set(d);
    new Int32Array(region.buffer).set(cells, 2 * d.length);
    this.arena.place(this, region);
  }

  /** The packed lists as plain arrays, by axis and part. */
  private unpack(): Parts {
    const d = this.region();
    const parts: Parts = new Array<number[][] | null>(AXES).fill(null);
    for (let h = 1; h < 1 + (d[0] as number) * H; h += H) {
      const list: number[][] = [];
      for (let part = 0; part < PARTS; part++)
        list.push(Array.from(d.subarray(d[h + 1 + part] as number, d[h + 2 + part] as number)));
      parts[d[h] as number] = list;
    }
    return parts;
  }

  /** Packs the lists as they are (each part already in its axis' order). */
  private pack(slots: RuleSlots, parts: Parts): void {
    const { len, at } = SCRATCH;
    len.fill(0);
    parts.forEach((list, axis) => list?.forEach((part, p) => (len[axis * PARTS + p] = part.length)));
    const d = layOut(len);
    if (d[0] === 0) {
      this.setPacked(slots, null);
      return;
    }
    // An emptied part has no place (layOut skips a list with nothing left).
    parts.forEach((list, axis) =>
      list?.forEach((part, p) => {
        if (part.length > 0) d.set(part, at[axis * PARTS + p] as number);
      }),
    );
    this.setPacked(slots, d);
  }
}

/**
 * Appends the ids of the rules of the settled bucket whose region starts at `b` (Bucket.at) that
 * the listing satisfies. Taking the offset rather than the bucket, a visit reads the arena alone:
 * the index keeps a listing name's offsets (its route), and a bucket object is one more cache miss
 * at a million rules. The header's offsets are read as doubles and made integers before they index
 * anything: a double index costs a conversion at every read of the scan.
 */
export function collectRegion(
  arena: Arena,
  b: number,
  slots: RuleSlots,
  l: ListingFacts,
  out: MatchIds,
): void {
  const d = arena.data;
  const w = arena.words;
  const last = b + 1 + (d[b] as number) * H;
  const price = pairPriceOf(l.price);
  // Only the axes the bucket uses (most use one or two; a listing visits ~14 lists in all).
  for (let h = b + 1; h < last; h += H) {
    const axis = d[h] as number;
    const plain = b + ((d[h + 1] as number) | 0);
    const float = b + ((d[h + 2] as number) | 0);
    const split = b + ((d[h + 3] as number) | 0);
    const end = b + ((d[h + 4] as number) | 0);
    if (axis === AX_SEED) {
      collectSeed(slots, l, d, w, h, b, price, out);
      continue;
    }
    // A part is read only when the listing passes its first (loosest) bound, from the header.
    const key = keyFor(axis, l);
    if (float > plain && key <= (d[h + FIRST] as number))
      collectPure(d, w, plain, float, strideOf(axis, PART_PLAIN), key, price, l.float, l.kinds, out);
    if (split > float && key <= (d[h + FIRST + 1] as number))
      collectPure(d, w, float, split, P, key, price, l.float, l.kinds, out);
    if (end === split || !passes(axis, d[h + FIRST + 2] as number, l)) continue;
    // One loop per kind of bound, each reading its bound straight from the list: the scan is
    // the hot path, and a generic bound lookup per rule costs more than the check itself.
    const stop = scanFull(slots, axis, d, split, end, l);
    for (let o = split; o < stop; o += E) if (slots.matches(d, o, l)) out.add(slots.refOf(d, o));
  }
}

/**
 * A seed list's part (its header at h, its bucket's region at b; w: the arena's words; `price`:
 * pairPriceOf's): the runs of the listing's seed in each part, each checked as its part is. A
 * list with a directory has its head in the header and its cells right after the list's end.
 */
function collectSeed(
  slots: RuleSlots,
  l: ListingFacts,
  d: Float64Array,
  w: Int32Array,
  h: number,
  b: number,
  price: number,
  out: MatchIds,
): void {
  const seed = l.paintSeed;
  if (Number.isNaN(seed)) return;
  const plain = b + ((d[h + 1] as number) | 0);
  const float = b + ((d[h + 2] as number) | 0);
  const split = b + ((d[h + 3] as number) | 0);
  const end = b + ((d[h + 4] as number) | 0);
  // One cell for the three parts; outside the directory's seeds no part has a run.
  const cells = Number.isNaN(d[h + FIRST]) ? -1 : 2 * end;
  const cell = cells < 0 ? 0 : seedCell(d, h + FIRST, seed);
  if (cell < 0) return;
  const bit = cells < 0 ? 0 : seedBit(d, h + FIRST, seed, cell);
  // Each bound-decided part's run is collected as a scan with no bound (-Infinity) to its end.
  let o = seedRun(d, w, plain, float, PN, 0, seed, cells, cell, bit, PART_PLAIN);
  let stop = runEnd(d, o, float, PN, seed);
  if (stop > o) collectPure(d, w, o, stop, PN, -Infinity, price, l.float, l.kinds, out);
  o = seedRun(d, w, float, split, P, 0, seed, cells, cell, bit, PART_FLOAT);
  stop = runEnd(d, o, split, P, seed);
  if (stop > o) collectPure(d, w, o, stop, P, -Infinity, price, l.float, l.kinds, out);
  o = seedRun(d, w, split, end, E, E_KEY, seed, cells, cell, bit, PART_FULL);
  for (; o < end && d[o + E_KEY] === seed; o += E) if (slots.matches(d, o, l)) out.add(slots.refOf(d, o));
}

/** Where the run of `seed` starting at o ends in a bound-decided part (entries of `stride`, the seed first) ending at n. */
function runEnd(d: Float64Array, o: number, n: number, stride: number, seed: number): number {
  while (o < n && d[o] === seed) o += stride;
  return o;
}

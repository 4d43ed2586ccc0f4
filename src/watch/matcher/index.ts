// The matcher index: files each rule under its most selective key, and a listing visits only the buckets of its own keys.
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import type { Listing } from "../../market/schemas.ts";
import { compileFilters, prepareListing, type ListingFacts } from "../ruleFilters.ts";
import { Arena } from "./arena.ts";
import { AX_SEED, axisOf } from "./axes.ts";
import { Bucket, collectRegion } from "./buckets.ts";
import type { MatcherIndex, MatcherRule } from "./contract.ts";
import { IdTable } from "./idTable.ts";
import {
  broadKey,
  HOME_BROAD,
  HOME_DEF,
  HOME_DEF_PAINT,
  HOME_KEYCHAIN,
  HOME_NAME,
  HOME_PAINT,
  HOME_SEED,
  HOME_STICKER,
  homeOf,
  MAX_SEEDS_AS_KEY,
} from "./homes.ts";
import { E, E_BITS, E_KEY, HAS_LISTS, HAS_STICKER_SLOT, keyOf, RuleSlots } from "./slots.ts";
import { MatchIds, type RuleRef } from "./matchIds.ts";

/**
 * A listing name's buckets (index.ts' routeOf) as their regions' offsets in the arena, valid while
 * no bucket was made or dropped, no region moved, and its indexes match.
 */
interface Route {
  readonly tables: number;
  readonly moves: number;
  readonly def: number;
  readonly paint: number;
  readonly regions: readonly number[];
}

/** Names whose routes are kept: a day's listings name tens of thousands of items at most. */
const MAX_ROUTES = 200_000;

/** The lookups a bucket table offers (a Map by item name, an IdTable by index). */
interface KeyedBuckets<K> {
  get(key: K): Bucket | undefined;
  set(key: K, bucket: Bucket): unknown;
}

/**
 * The arena's first size per rule of a known count: the bench's rules take 6.8 numbers each at
 * 100,000 and 7.2 at a million (a fifth without an item), so a full load seldom grows it.
 */
const NUMBERS_PER_RULE = 8;

/**
 * `capacity`: rules to make room for at once (a full load knows its count; growth copies).
 * `fees`: the seller fee the profit filters count (the configured one in the running bot).
 */
export function createMatcherIndex(opts: { capacity?: number; fees?: FeeModel } = {}): MatcherIndex {
  const fees = opts.fees ?? DEFAULT_FEES;
  const slots = new RuleSlots(opts.capacity ?? 0);
  const arena = new Arena((opts.capacity ?? 0) * NUMBERS_PER_RULE);
  /** Per slot: the bucket it lives in, and its axis there. */
  const homes: Array<Bucket | null> = [];
  let axes = new Uint8Array(Math.max(16, opts.capacity ?? 0));
  /** Buckets added to since the last settle. */
  let dirty: Bucket[] = [];
  /** add's scratch: the entry of the rule being added. */
  const entry = new Float64Array(E);

  const byName = new Map<string, Bucket>();
  const byDefPaint = new IdTable<IdTable<Bucket>>();
  const byDef = new IdTable<Bucket>();
  const byPaint = new IdTable<Bucket>();
  /**
   * Seed rules naming neither an item nor a def index, on the seed axis (one entry per seed). A
   * seed rule with a def index (and a paint index: a pattern hunt on one skin) sits on the seed
   * axis of its def's (def+paint's) bucket: the key decides them, so it is a bound-decided entry,
   * and a listing reads it in a bucket it visits anyway, not in one more.
   */
  const bySeedOnly = new Bucket(arena, HOME_SEED, -1);
  const bySticker = new IdTable<Bucket>();
  const byKeychain = new IdTable<Bucket>();
  const broad = Array.from({ length: 12 }, (_, k) => new Bucket(arena, HOME_BROAD, k));
  let broadSize = 0;

  /** The bucket under `key`, created when missing. */
  function bucketIn<K extends string | number>(
    map: KeyedBuckets<K>,
    home: number,
    key: K,
    outer: string | number = -1,
  ): Bucket {
    let bucket = map.get(key);
    if (bucket === undefined) {
      bucket = new Bucket(arena, home, key, outer);
      map.set(key, bucket);
      tables++;
    }
    return bucket;
  }

  /** The bucket under outer then inner key (def+paint), created when missing. */
  function nestedBucket(map: IdTable<IdTable<Bucket>>, home: number, outer: number, key: number): Bucket {
    let inner = map.get(outer);
    if (inner === undefined) {
      inner = new IdTable();
      map.set(outer, inner);
    }
    return bucketIn(inner, home, key, outer);
  }

  /** Drops a bucket once empty so churn over many item names does not leak maps. */
  function dropIfEmpty(bucket: Bucket): void {
    if (bucket.size > 0) return;
    tables++;
    switch (bucket.home) {
      case HOME_NAME:
        byName.delete(bucket.key as string);
        break;
      case HOME_DEF_PAINT:
        dropNested(byDefPaint, bucket);
        break;
      case HOME_DEF:
        byDef.delete(bucket.key as number);
        break;
      case HOME_PAINT:
        byPaint.delete(bucket.key as number);
        break;
      case HOME_STICKER:
        bySticker.delete(bucket.key as number);
        break;
      case HOME_KEYCHAIN:
        byKeychain.delete(bucket.key as number);
        break;
    }
  }

  function dropNested(map: IdTable<IdTable<Bucket>>, bucket: Bucket): void {
    const inner = map.get(bucket.outer as number);
    inner?.delete(bucket.key as number);
    if (inner?.size === 0) map.delete(bucket.outer as number);
  }

  function takeOut(bucket: Bucket, slot: number): void {
    const axis = axes[slot] as number;
    if (!bucket.remove(slots, slot, slots.pureIdOf(slot), axis)) return;
    // On the seed axis a rule has one entry per seed in the same bucket.
    if (axis === AX_SEED) while (bucket.remove(slots, slot, slots.pureIdOf(slot), axis));
    if (bucket.home === HOME_BROAD) broadSize--;
    dropIfEmpty(bucket);
  }

  function remove(ruleId: string | number): boolean {
    const slot = slots.slotOf(keyOf(ruleId));
    if (slot < 0) return false;
    const home = homes[slot];
    if (home !== null && home !== undefined) takeOut(home, slot);
    homes[slot] = null;
    slots.release(slot);
    return true;
  }

  function add(rule: MatcherRule): void {
    remove(rule.id);
    // The compiled object is only read here: the slot keeps its numbers, not the object.
    const c = compileFilters(rule.filters);
    const slot = slots.put(keyOf(rule.id), rule.userId, c, entry);
    const axis = axisOf(slots, entry);
    while (homes.length <= slot) homes.push(null);
    if (slot >= axes.length) {
      const grown = new Uint8Array(Math.ceil(axes.length * 1.5));
      grown.set(axes);
      axes = grown;
    }
    const seeds = slots.seedsOf(slot);
    const home = homeOf(c, seeds);
    // A seed rule (or an item rule with a short seed list, in its name's bucket) is filed on the
    // seed axis, one entry per seed.
    const bySeedAxis =
      seeds !== null && (home === HOME_SEED || (home === HOME_NAME && seeds.length <= MAX_SEEDS_AS_KEY));
    axes[slot] = bySeedAxis ? AX_SEED : axis;
    const implied =
      home === HOME_SEED || bySeedAxis
        ? "seed"
        : home === HOME_STICKER
          ? "sticker"
          : home === HOME_KEYCHAIN
            ? "keychain"
            : null;
    if (implied !== null && slots.listsImpliedByKey(slot, implied))
      entry[E_BITS] = (entry[E_BITS] as number) - HAS_LISTS;
    else if (implied === "sticker") {
      // One sticker in one slot: the bucket is that sticker's, and the slot is checked inline.
      const key = slots.stickerSlotKey(slot);
      if (!Number.isNaN(key)) {
        entry[E_BITS] = (entry[E_BITS] as number) - HAS_LISTS + HAS_STICKER_SLOT;
        entry[E_KEY] = key;
      }
    }
    let bucket: Bucket;
    switch (home) {
      case HOME_NAME:
        bucket = bucketIn(byName, HOME_NAME, c.itemLower);
        break;
      case HOME_SEED:
        bucket =
          c.defIndex < 0
            ? bySeedOnly
            : c.paintIndex >= 0
              ? nestedBucket(byDefPaint, HOME_DEF_PAINT, c.defIndex, c.paintIndex)
              : bucketIn(byDef, HOME_DEF, c.defIndex);
        break;
      case HOME_DEF_PAINT:
        bucket = nestedBucket(byDefPaint, HOME_DEF_PAINT, c.defIndex, c.paintIndex);
        break;
      case HOME_DEF:
        bucket = bucketIn(byDef, HOME_DEF, c.defIndex);
        break;
      case HOME_PAINT:
        bucket = bucketIn(byPaint, HOME_PAINT, c.paintIndex);
        break;
      case HOME_STICKER:
        bucket = bucketIn(bySticker, HOME_STICKER, c.stickerIds?.[0] as number);
        break;
      case HOME_KEYCHAIN:
        bucket = bucketIn(byKeychain, HOME_KEYCHAIN, c.keychainIds?.[0] as number);
        break;
      default:
        bucket = broad[broadKey(c.type, c.category)] as Bucket;
        broadSize++;
    }
    homes[slot] = bucket;
    if (!bySeedAxis) {
      if (bucket.add(slots, entry, axis)) dirty.push(bucket);
      return;
    }
    for (const seed of seeds) {
      entry[E_KEY] = seed;
      if (bucket.add(slots, entry, AX_SEED)) dirty.push(bucket);
    }
  }

  /**
   * A listing's name, def and paint buckets as last looked up, by its name: one lookup where
   * four (the name, then def+paint, def and paint by index) each chained a few cache misses at a
   * million rules. A route holds its buckets' region offsets, so a visit reads the arena and not
   * the bucket objects (a miss each). It holds while `tables` (bumped whenever a bucket is made or
   * dropped), the arena's `moves` and the listing's indexes are as when it was found; else it is
   * looked up again. At most MAX_ROUTES names are kept (the table starts over past it).
   */
  const routes = new Map<string, Route>();
  let tables = 0;

  function routeOf(facts: ListingFacts): Route {
    const def = Number.isNaN(facts.defIndex) ? -1 : facts.defIndex;
    const paint = Number.isNaN(facts.paintIndex) ? -1 : facts.paintIndex;
    const known = routes.get(facts.nameLower);
    if (
      known !== undefined &&
      known.tables === tables &&
      known.moves === arena.moves &&
      known.def === def &&
      known.paint === paint
    )
      return known;
    const regions: number[] = [];
    const add = (bucket: Bucket | undefined) => {
      if (bucket !== undefined) regions.push(bucket.at);
    };
    add(byName.get(facts.nameLower));
    if (def >= 0) {
      if (paint >= 0) add(byDefPaint.get(def)?.get(paint));
      add(byDef.get(def));
    }
    if (paint >= 0) add(byPaint.get(paint));
    const route = { tables, moves: arena.moves, def, paint, regions };
    if (routes.size >= MAX_ROUTES) routes.clear();
    routes.set(facts.nameLower, route);
    return route;
  }

  /**
   * The region offsets of the buckets a listing visits, gathered before any is scanned (reused:
   * match is synchronous).
   */
  const visit: number[] = [];

  /** Each distinct id's bucket (a listing can carry one sticker several times). */
  function gatherEach(map: IdTable<Bucket>, ids: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      const bucket = ids.indexOf(id) === i ? map.get(id) : undefined;
      if (bucket !== undefined) visit.push(bucket.at);
    }
  }

  /** The broad buckets of one type: category "any" and the listing's own (ruleFilters.ts' codes). */
  function gatherBroad(type: number, facts: ListingFacts): void {
    visit.push((broad[broadKey(type, 0)] as Bucket).at);
    if (!facts.statcounter && !facts.souvenir) visit.push((broad[broadKey(type, 1)] as Bucket).at);
    if (facts.statcounter) visit.push((broad[broadKey(type, 2)] as Bucket).at);
    if (facts.souvenir) visit.push((broad[broadKey(type, 3)] as Bucket).at);
  }

  function settleDirty(): void {
    for (const bucket of dirty) bucket.settle(slots);
    dirty = [];
  }

  function settle(): void {
    settleDirty();
    arena.trim();
  }

  function matchInto(listing: Listing, out: MatchIds): number {
    out.reset(slots);
    if (dirty.length > 0) settleDirty();
    const facts = prepareListing(listing, fees);
    if (!facts.listed) return 0;

    // First every bucket the listing's keys name, then a touch of each one's lists, then the
    // scans: at a million rules each bucket is a cache miss away, and looked up together the
    // misses overlap instead of waiting one behind the other between scans.
    visit.length = 0;
    const route = routeOf(facts).regions;
    for (let i = 0; i < route.length; i++) visit.push(route[i] as number);
    if (!Number.isNaN(facts.paintSeed) && bySeedOnly.size > 0) visit.push(bySeedOnly.at);
    if (bySticker.size > 0) gatherEach(bySticker, facts.stickerIds);
    if (byKeychain.size > 0) gatherEach(byKeychain, facts.keychainIds);
    if (broadSize > 0) {
      gatherBroad(0, facts);
      gatherBroad(facts.type, facts);
    }
    let lists = 0;
    // A region's first number is its list count: reading it brings the lists' start into the cache.
    const data = arena.data;
    for (let i = 0; i < visit.length; i++) lists += data[visit[i] as number] as number;
    if (lists === 0) return 0;
    for (let i = 0; i < visit.length; i++) collectRegion(arena, visit[i] as number, slots, facts, out);
    return out.count;
  }

  function matchIds(listing: Listing): Array<number | string> {
    const found = new MatchIds();
    matchInto(listing, found);
    return found.ids();
  }

  function ownerOf(ruleId: string | number): string | undefined {
    const slot = slots.slotOf(keyOf(ruleId));
    return slot < 0 ? undefined : slots.ownerOf(slot);
  }

  /** RuleRefs for tests and tools; one object per match (the feed reads ids, matchIds). */
  function match(listing: Listing): RuleRef[] {
    return matchIds(listing).map((id) => ({ id: String(id), userId: ownerOf(id) as string }));
  }

  return {
    add,
    remove,
    update: add,
    matchIds,
    matchInto,
    ownerOf,
    get size() {
      return slots.size;
    },
    ids: () => slots.ids(),
    match,
    settle,
  };
}

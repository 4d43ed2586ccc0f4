// The matcher index: files each rule under its most selective key, and a listing visits only the buckets of its own keys.
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import type { Listing } from "../../market/schemas.ts";
import {
  compileFilters,
  prepareListing,
  type CompiledFilters,
  type ListingFacts,
  type RuleFilters,
} from "../ruleFilters.ts";
import { axisOf, Bucket } from "./buckets.ts";
import { E, keyOf, RuleSlots, type RuleRef } from "./slots.ts";

export interface MatcherRule {
  id: string;
  userId: string;
  filters: RuleFilters;
}

export interface MatcherIndex {
  /** Adds a rule, replacing any rule with the same id. */
  add(rule: MatcherRule): void;
  /** Removes a rule; unknown ids are ignored. Returns whether a rule was removed. */
  remove(ruleId: string): boolean;
  /** Same as add: replaces the rule with that id (or adds it). */
  update(rule: MatcherRule): void;
  readonly size: number;
  /** Every rule id in the index, in no particular order. */
  ids(): IterableIterator<string>;
  /** Rules the listing satisfies, each at most once, in no particular order. */
  match(listing: Listing): RuleRef[];
  /**
   * Sorts and packs the rules added since the last match (match does it first when needed); a
   * bulk load calls it to pay that cost, and free the room adding used, before the first listing.
   */
  settle(): void;
}

/** Where a rule lives: under its most selective key. */
const HOME_NAME = 0;
const HOME_SEED = 1;
const HOME_DEF_PAINT = 2;
const HOME_DEF = 3;
const HOME_PAINT = 4;
const HOME_STICKER = 5;
const HOME_KEYCHAIN = 6;
const HOME_BROAD = 7;

/**
 * A short seed list beats def/paint: each seed is ~1 listing in 1000, a popular skin can be a
 * few in 100. Longer lists stay under def/paint so one rule does not sit in a hundred buckets.
 */
const MAX_SEEDS_AS_KEY = 10;

/**
 * The most selective key of a rule: item name, else a short seed list, else def+paint, else
 * def, else paint, else (rules without any of those) a sticker, a keychain, or a long seed list,
 * else a broad bucket. A seed rule is filed under each of its seeds (and its def index when it has
 * one); a listing has one seed, so it still meets the rule at most once. Only its name's bucket
 * ever sees a rule with an item, so the name needs no check per rule.
 */
function homeOf(c: CompiledFilters, seeds: readonly number[] | null): number {
  if (c.itemLower !== "") return HOME_NAME;
  if (seeds !== null && seeds.length <= MAX_SEEDS_AS_KEY) return HOME_SEED;
  if (c.defIndex >= 0 && c.paintIndex >= 0) return HOME_DEF_PAINT;
  if (c.defIndex >= 0) return HOME_DEF;
  if (c.paintIndex >= 0) return HOME_PAINT;
  if (c.stickerIds?.[0] !== undefined) return HOME_STICKER;
  if (c.keychainIds?.[0] !== undefined) return HOME_KEYCHAIN;
  if (seeds !== null) return HOME_SEED;
  return HOME_BROAD;
}

/**
 * Broad rules (no item, index, seed, sticker or keychain) are split by type and category
 * (CompiledFilters' codes, type < 3, category < 4): a listing visits only the broad buckets of
 * "any" and its own type and category, then each one's sorted lists cut the rest.
 */
const broadKey = (type: number, category: number) => type * 4 + category;

/**
 * `capacity`: rules to make room for at once (a full load knows its count; growth copies).
 * `fees`: the seller fee the profit filters count (the configured one in the running bot).
 */
export function createMatcherIndex(opts: { capacity?: number; fees?: FeeModel } = {}): MatcherIndex {
  const fees = opts.fees ?? DEFAULT_FEES;
  const slots = new RuleSlots(opts.capacity ?? 0);
  /** Per slot: the bucket it lives in (a seed rule: its seeds' buckets), and its axis there. */
  const homes: Array<Bucket | Bucket[] | null> = [];
  let axes = new Uint8Array(Math.max(16, opts.capacity ?? 0));
  /** Buckets added to since the last settle. */
  let dirty: Bucket[] = [];
  /** add's scratch: the entry of the rule being added. */
  const entry = new Float64Array(E);

  const byName = new Map<string, Bucket>();
  const byDefPaint = new Map<number, Map<number, Bucket>>();
  const byDef = new Map<number, Bucket>();
  const byPaint = new Map<number, Bucket>();
  const bySeed = new Map<number, Bucket>();
  /** Seed rules with a def index, by def then seed: a listing meets only its own weapon's. */
  const bySeedDef = new Map<number, Map<number, Bucket>>();
  const bySticker = new Map<number, Bucket>();
  const byKeychain = new Map<number, Bucket>();
  const broad = Array.from({ length: 12 }, (_, k) => new Bucket(HOME_BROAD, k));
  let broadSize = 0;

  /** The bucket under `key`, created when missing. */
  function bucketIn<K extends string | number>(
    map: Map<K, Bucket>,
    home: number,
    key: K,
    outer: string | number = -1,
  ): Bucket {
    let bucket = map.get(key);
    if (bucket === undefined) {
      bucket = new Bucket(home, key, outer);
      map.set(key, bucket);
    }
    return bucket;
  }

  /** The bucket under outer then inner key (def+paint, def+seed, name+seed), created when missing. */
  function nestedBucket<K extends string | number>(
    map: Map<K, Map<number, Bucket>>,
    home: number,
    outer: K,
    key: number,
  ): Bucket {
    let inner = map.get(outer);
    if (inner === undefined) {
      inner = new Map();
      map.set(outer, inner);
    }
    return bucketIn(inner, home, key, outer);
  }

  /** A seed rule's bucket for one of its seeds. */
  function seedBucket(c: CompiledFilters, seed: number): Bucket {
    if (c.defIndex >= 0) return nestedBucket(bySeedDef, HOME_SEED, c.defIndex, seed);
    return bucketIn(bySeed, HOME_SEED, seed);
  }

  /** Drops a bucket once empty so churn over many item names does not leak maps. */
  function dropIfEmpty(bucket: Bucket): void {
    if (bucket.size > 0) return;
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
      case HOME_SEED:
        if (bucket.outer === -1) bySeed.delete(bucket.key as number);
        else dropNested(bySeedDef, bucket);
        break;
      case HOME_STICKER:
        bySticker.delete(bucket.key as number);
        break;
      case HOME_KEYCHAIN:
        byKeychain.delete(bucket.key as number);
        break;
    }
  }

  function dropNested<K extends string | number>(map: Map<K, Map<number, Bucket>>, bucket: Bucket): void {
    const inner = map.get(bucket.outer as K);
    inner?.delete(bucket.key as number);
    if (inner?.size === 0) map.delete(bucket.outer as K);
  }

  function takeOut(bucket: Bucket, slot: number): void {
    if (!bucket.remove(slot, axes[slot] as number)) return;
    if (bucket.home === HOME_BROAD) broadSize--;
    dropIfEmpty(bucket);
  }

  function remove(ruleId: string): boolean {
    const slot = slots.slotOf(keyOf(ruleId));
    if (slot < 0) return false;
    const home = homes[slot];
    if (Array.isArray(home)) for (const bucket of home) takeOut(bucket, slot);
    else if (home !== null && home !== undefined) takeOut(home, slot);
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
    axes[slot] = axis;
    const seeds = slots.seedsOf(slot);
    let bucket: Bucket;
    switch (homeOf(c, seeds)) {
      case HOME_NAME:
        bucket = bucketIn(byName, HOME_NAME, c.itemLower);
        break;
      case HOME_SEED:
        homes[slot] = (seeds ?? []).map((seed) => {
          const bucket = seedBucket(c, seed);
          if (bucket.add(entry, axis)) dirty.push(bucket);
          return bucket;
        });
        return;
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
    if (bucket.add(entry, axis)) dirty.push(bucket);
  }

  /** Visits each distinct id's bucket once (a listing can carry one sticker several times). */
  function collectEach(
    map: Map<number, Bucket>,
    ids: readonly number[],
    facts: ListingFacts,
    out: RuleRef[],
  ): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      const bucket = ids.indexOf(id) === i ? map.get(id) : undefined;
      if (bucket !== undefined) bucket.collect(slots, facts, out);
    }
  }

  /** The broad buckets of one type: category "any" and the listing's own (ruleFilters.ts' codes). */
  function collectBroad(type: number, facts: ListingFacts, out: RuleRef[]): void {
    broad[broadKey(type, 0)]?.collect(slots, facts, out);
    if (!facts.statcounter && !facts.souvenir) broad[broadKey(type, 1)]?.collect(slots, facts, out);
    if (facts.statcounter) broad[broadKey(type, 2)]?.collect(slots, facts, out);
    if (facts.souvenir) broad[broadKey(type, 3)]?.collect(slots, facts, out);
  }

  function settle(): void {
    for (const bucket of dirty) bucket.settle(slots);
    dirty = [];
  }

  function match(listing: Listing): RuleRef[] {
    if (dirty.length > 0) settle();
    const out: RuleRef[] = [];
    const facts = prepareListing(listing, fees);
    if (!facts.listed) return out;

    byName.get(facts.nameLower)?.collect(slots, facts, out);
    const { defIndex, paintIndex, paintSeed } = facts;
    if (!Number.isNaN(defIndex)) {
      if (!Number.isNaN(paintIndex)) byDefPaint.get(defIndex)?.get(paintIndex)?.collect(slots, facts, out);
      byDef.get(defIndex)?.collect(slots, facts, out);
    }
    if (!Number.isNaN(paintIndex)) byPaint.get(paintIndex)?.collect(slots, facts, out);
    if (!Number.isNaN(paintSeed)) {
      if (bySeed.size > 0) bySeed.get(paintSeed)?.collect(slots, facts, out);
      if (!Number.isNaN(defIndex)) bySeedDef.get(defIndex)?.get(paintSeed)?.collect(slots, facts, out);
    }
    if (bySticker.size > 0) collectEach(bySticker, facts.stickerIds, facts, out);
    if (byKeychain.size > 0) collectEach(byKeychain, facts.keychainIds, facts, out);
    if (broadSize > 0) {
      collectBroad(0, facts, out);
      collectBroad(facts.type, facts, out);
    }
    return out;
  }

  return {
    add,
    remove,
    update: add,
    get size() {
      return slots.size;
    },
    ids: () => slots.ids(),
    match,
    settle,
  };
}

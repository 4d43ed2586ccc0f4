// In-memory index of watch rules: finds the rules a new listing satisfies without scanning every rule.
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import type { Listing } from "../market/schemas.ts";
import { matchesDeal } from "./dealFilters.ts";
import {
  compileFilters,
  matchesFacts,
  meetsDiscount,
  prepareListing,
  type CompiledFilters,
  type ListingFacts,
  type RuleFilters,
} from "./ruleFilters.ts";

export interface MatcherRule {
  id: string;
  userId: string;
  filters: RuleFilters;
}

/** What a match returns: enough to queue an alert. */
export interface RuleRef {
  readonly id: string;
  readonly userId: string;
}

// ---------------------------------------------------------------------------------------------
// Storage. At 100k rules, per-rule objects (an entry, its compiled filters, boxed doubles, id
// strings, map and set entries) cost ~460 bytes a rule. Here a rule is a slot: its numeric
// filters are 8 doubles (one cache line) in one shared Float64Array, its owner an index into a
// table of interned user ids, its id a small integer when it is one (database ids are), and its
// seed/sticker/keychain lists (a minority of rules) one small array of integers: ~150 bytes a rule.
// Deal bounds (profit, fade, blue gem, float rank, sticker value) are rarer still: a rule with any
// keeps its own small Float64Array of them, the others a null.

/** Doubles per slot in `nums`, and each one's offset. */
const STRIDE = 8;
const F_MAX_PRICE = 0; // Infinity when not set
const F_MIN_FLOAT = 1; // -Infinity when not set
const F_MAX_FLOAT = 2; // Infinity when not set
const F_MIN_DISCOUNT = 3;
const F_MIN_REF_QTY = 4;
const F_DEF = 5; // -1 when not set
const F_PAINT = 6; // -1 when not set
/** HAS_* bits | type << 3 | category << 5 (CompiledFilters' codes). */
const F_BITS = 7;
const HAS_FLOAT = 1;
const HAS_DISCOUNT = 2;
const HAS_REF_QTY = 4;

/** Which sorted list of a bucket a rule sits in: the bound that lets a scan stop earliest. */
const BY_DISCOUNT = 0;
const BY_PRICE = 1;
const BY_FLOAT = 2;
const UNSORTED = 3;

function listOf(c: CompiledFilters): number {
  if (c.hasDiscount) return BY_DISCOUNT;
  if (c.maxPrice !== Infinity) return BY_PRICE;
  if (c.hasFloat) return BY_FLOAT;
  return UNSORTED;
}

/**
 * A rule's lists, flattened: [seed count (-1: no seed filter), seeds..., sticker count,
 * (id, slot (-1: any))..., keychain count, ids...]. Null for a rule with none (most rules).
 */
function listsOf(c: CompiledFilters): number[] | null {
  if (c.seeds === null && c.stickerIds === null && c.keychainIds === null) return null;
  const out: number[] = [];
  if (c.seeds === null) out.push(-1);
  else out.push(c.seeds.length, ...c.seeds);
  const stickers = c.stickerIds ?? [];
  out.push(stickers.length);
  stickers.forEach((id, i) => out.push(id, c.stickerSlots?.[i] ?? -1));
  const keychains = c.keychainIds ?? [];
  out.push(keychains.length, ...keychains);
  // A copy is exactly as long as its content (push leaves room to grow, ~3x here).
  return out.slice();
}

/** Seeds of a flattened list, without repeats (a rule filed by seed sits once in each seed's bucket). */
function uniqueSeeds(lists: readonly number[] | null): number[] | null {
  if (lists === null) return null;
  const n = lists[0] as number;
  return n < 0 ? null : [...new Set(lists.slice(1, 1 + n))];
}

/** The lists part of the match (see matchesFacts): a seed, every sticker selector, every keychain. */
function matchesLists(x: readonly number[], l: ListingFacts): boolean {
  let i = 0;
  const seeds = x[i++] as number;
  if (seeds >= 0) {
    let found = false;
    for (let k = 0; k < seeds; k++) {
      if (x[i + k] === l.paintSeed) {
        found = true;
        break;
      }
    }
    if (!found) return false;
    i += seeds;
  }
  const stickers = x[i++] as number;
  for (let k = 0; k < stickers; k++, i += 2) {
    const id = x[i];
    const slot = x[i + 1];
    let found = false;
    for (let j = 0; j < l.stickerIds.length; j++) {
      if (l.stickerIds[j] === id && (slot === -1 || l.stickerSlots[j] === slot)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  const keychains = x[i++] as number;
  for (let k = 0; k < keychains; k++) if (!l.keychainIds.includes(x[i + k] as number)) return false;
  return true;
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
 * else the broad bucket that every listing visits. A seed rule is filed under each of its seeds;
 * a listing has one seed, so it still meets the rule at most once. Only its name's bucket ever
 * sees a rule with an item, so the name needs no check per rule.
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
 * Rules (slots) sharing an index key, split by the bound each can be cut off on, each list
 * sorted so a scan stops at the first rule the listing cannot satisfy: most rules hunt a deal or
 * a low float, and most listings are neither. A rule with no such bound is always checked. The
 * cut-offs only skip rules the full check would reject; it still decides every candidate.
 * Sorting is lazy (on the next match) so loading 100k rules stays linear. Lists are created on
 * first use: most buckets hold one or two kinds of rule.
 */
class Bucket {
  /** min_discount ascending. */
  byDiscount: number[] | null = null;
  /** max_price descending. */
  byPrice: number[] | null = null;
  /** max_float descending. */
  byFloat: number[] | null = null;
  unsorted: number[] | null = null;
  /** Added to since the last match: sort, and trim the lists' spare room. */
  dirty = false;
  size = 0;

  /** `outer` is the def index of a def+paint bucket (whose key is the paint index). */
  constructor(
    readonly home: number,
    readonly key: string | number,
    readonly outer = -1,
  ) {}

  list(which: number): number[] | null {
    return which === BY_DISCOUNT
      ? this.byDiscount
      : which === BY_PRICE
        ? this.byPrice
        : which === BY_FLOAT
          ? this.byFloat
          : this.unsorted;
  }

  setList(which: number, slots: number[] | null): void {
    if (which === BY_DISCOUNT) this.byDiscount = slots;
    else if (which === BY_PRICE) this.byPrice = slots;
    else if (which === BY_FLOAT) this.byFloat = slots;
    else this.unsorted = slots;
  }
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
}

/** A canonical non-negative integer id is kept as a number (no string per rule); others as given. */
function keyOf(id: string): number | string {
  const n = Number(id);
  return Number.isInteger(n) && n >= 0 && n <= 0x7fffffff && String(n) === id ? n : id;
}

/**
 * `capacity`: rules to make room for at once (a full load knows its count; growth copies).
 * `fees`: the seller fee the profit filters count (the configured one in the running bot).
 */
export function createMatcherIndex(opts: { capacity?: number; fees?: FeeModel } = {}): MatcherIndex {
  const fees = opts.fees ?? DEFAULT_FEES;
  let capacity = Math.max(16, opts.capacity ?? 0);
  let nums = new Float64Array(capacity * STRIDE);
  /** Index into `users` of each slot's owner. */
  let owners = new Int32Array(capacity);
  /** Per slot: the rule's id (see keyOf), its flattened lists, the bucket it lives in (null: seed buckets). */
  const keys: Array<number | string> = [];
  const lists: Array<number[] | null> = [];
  /** Per slot: the rule's deal bounds (compileDeal), null without any. */
  const deals: Array<Float64Array | null> = [];
  const homes: Array<Bucket | null> = [];
  const freeSlots: number[] = [];

  /** Interned owner ids with a count of rules each; a user's entry goes with their last rule. */
  const users: string[] = [];
  const userRules: number[] = [];
  const userIndex = new Map<string, number>();
  const freeUsers: number[] = [];

  const byId = new Map<number | string, number>();
  const byName = new Map<string, Bucket>();
  const byDefPaint = new Map<number, Map<number, Bucket>>();
  const byDef = new Map<number, Bucket>();
  const byPaint = new Map<number, Bucket>();
  const bySeed = new Map<number, Bucket>();
  const bySticker = new Map<number, Bucket>();
  const byKeychain = new Map<number, Bucket>();
  const broad = new Bucket(HOME_BROAD, "broad");

  function newSlot(): number {
    const free = freeSlots.pop();
    if (free !== undefined) return free;
    const slot = keys.length;
    if (slot >= capacity) {
      capacity = Math.ceil(capacity * 1.5);
      const grownNums = new Float64Array(capacity * STRIDE);
      grownNums.set(nums);
      nums = grownNums;
      const grownOwners = new Int32Array(capacity);
      grownOwners.set(owners);
      owners = grownOwners;
    }
    keys.push(0);
    lists.push(null);
    deals.push(null);
    homes.push(null);
    return slot;
  }

  function internUser(userId: string): number {
    let u = userIndex.get(userId);
    if (u === undefined) {
      u = freeUsers.pop() ?? users.length;
      users[u] = userId;
      userRules[u] = 0;
      userIndex.set(userId, u);
    }
    userRules[u] = (userRules[u] as number) + 1;
    return u;
  }

  function releaseUser(u: number): void {
    const left = (userRules[u] as number) - 1;
    userRules[u] = left;
    if (left > 0) return;
    userIndex.delete(users[u] as string);
    users[u] = "";
    freeUsers.push(u);
  }

  /** The bucket under `key`, created when missing. */
  function bucketIn<K extends string | number>(
    map: Map<K, Bucket>,
    home: number,
    key: K,
    outer = -1,
  ): Bucket {
    let bucket = map.get(key);
    if (bucket === undefined) {
      bucket = new Bucket(home, key, outer);
      map.set(key, bucket);
    }
    return bucket;
  }

  function defPaintBucket(def: number, paint: number): Bucket {
    let inner = byDefPaint.get(def);
    if (inner === undefined) {
      inner = new Map();
      byDefPaint.set(def, inner);
    }
    return bucketIn(inner, HOME_DEF_PAINT, paint, def);
  }

  /** Drops a bucket once empty so churn over many item names does not leak maps. */
  function dropIfEmpty(bucket: Bucket): void {
    if (bucket.size > 0 || bucket === broad) return;
    switch (bucket.home) {
      case HOME_NAME:
        byName.delete(bucket.key as string);
        break;
      case HOME_DEF_PAINT: {
        const inner = byDefPaint.get(bucket.outer);
        inner?.delete(bucket.key as number);
        if (inner?.size === 0) byDefPaint.delete(bucket.outer);
        break;
      }
      case HOME_DEF:
        byDef.delete(bucket.key as number);
        break;
      case HOME_PAINT:
        byPaint.delete(bucket.key as number);
        break;
      case HOME_SEED:
        bySeed.delete(bucket.key as number);
        break;
      case HOME_STICKER:
        bySticker.delete(bucket.key as number);
        break;
      case HOME_KEYCHAIN:
        byKeychain.delete(bucket.key as number);
        break;
    }
  }

  function listIndexOf(slot: number): number {
    const bits = nums[slot * STRIDE + F_BITS] as number;
    if ((bits & HAS_DISCOUNT) !== 0) return BY_DISCOUNT;
    if ((nums[slot * STRIDE + F_MAX_PRICE] as number) !== Infinity) return BY_PRICE;
    if ((bits & HAS_FLOAT) !== 0) return BY_FLOAT;
    return UNSORTED;
  }

  function placeIn(bucket: Bucket, slot: number, list: number): void {
    const slots = bucket.list(list);
    if (slots === null) bucket.setList(list, [slot]);
    else slots.push(slot);
    bucket.size++;
    bucket.dirty = true;
  }

  /** Removes by slot; splice keeps the order, and a bucket is small enough for O(n). */
  function takeOut(bucket: Bucket, slot: number): void {
    const list = listIndexOf(slot);
    const slots = bucket.list(list);
    const i = slots === null ? -1 : slots.indexOf(slot);
    if (slots === null || i < 0) return;
    slots.splice(i, 1);
    if (slots.length === 0) bucket.setList(list, null);
    bucket.size--;
    dropIfEmpty(bucket);
  }

  function remove(ruleId: string): boolean {
    const key = keyOf(ruleId);
    const slot = byId.get(key);
    if (slot === undefined) return false;
    byId.delete(key);
    const home = homes[slot];
    if (home !== null && home !== undefined) takeOut(home, slot);
    else {
      // Filed by seed: one bucket per distinct seed.
      for (const seed of uniqueSeeds(lists[slot] ?? null) ?? []) {
        const bucket = bySeed.get(seed);
        if (bucket !== undefined) takeOut(bucket, slot);
      }
    }
    releaseUser(owners[slot] as number);
    keys[slot] = 0;
    lists[slot] = null;
    deals[slot] = null;
    homes[slot] = null;
    freeSlots.push(slot);
    return true;
  }

  function add(rule: MatcherRule): void {
    remove(rule.id);
    // The compiled object is only read here: the slot keeps its numbers, not the object.
    const c = compileFilters(rule.filters);
    const slot = newSlot();
    const key = keyOf(rule.id);
    keys[slot] = key;
    byId.set(key, slot);
    owners[slot] = internUser(rule.userId);
    const o = slot * STRIDE;
    nums[o + F_MAX_PRICE] = c.maxPrice;
    nums[o + F_MIN_FLOAT] = c.minFloat;
    nums[o + F_MAX_FLOAT] = c.maxFloat;
    nums[o + F_MIN_DISCOUNT] = c.minDiscount;
    nums[o + F_MIN_REF_QTY] = c.minRefQty;
    nums[o + F_DEF] = c.defIndex;
    nums[o + F_PAINT] = c.paintIndex;
    nums[o + F_BITS] =
      (c.hasFloat ? HAS_FLOAT : 0) |
      (c.hasDiscount ? HAS_DISCOUNT : 0) |
      (c.hasRefQty ? HAS_REF_QTY : 0) |
      (c.type << 3) |
      (c.category << 5);
    const flat = listsOf(c);
    lists[slot] = flat;
    deals[slot] = c.deal;
    const list = listOf(c);
    const seeds = uniqueSeeds(flat);
    let bucket: Bucket | undefined;
    switch (homeOf(c, seeds)) {
      case HOME_NAME:
        bucket = bucketIn(byName, HOME_NAME, c.itemLower);
        break;
      case HOME_SEED:
        for (const seed of seeds ?? []) {
          placeIn(bucketIn(bySeed, HOME_SEED, seed), slot, list);
        }
        break;
      case HOME_DEF_PAINT:
        bucket = defPaintBucket(c.defIndex, c.paintIndex);
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
        bucket = broad;
    }
    if (bucket !== undefined) {
      homes[slot] = bucket;
      placeIn(bucket, slot, list);
    }
  }

  /**
   * The match of one slot: matchesFacts (THE definition, ruleFilters.ts) over the slot's numbers,
   * check for check, except the item name, which the bucket the slot was found in already matched.
   */
  function matchesSlot(slot: number, l: ListingFacts): boolean {
    const o = slot * STRIDE;
    const n = nums;
    if (l.price > (n[o + F_MAX_PRICE] as number)) return false;
    const def = n[o + F_DEF] as number;
    if (def >= 0 && def !== l.defIndex) return false;
    const paint = n[o + F_PAINT] as number;
    if (paint >= 0 && paint !== l.paintIndex) return false;
    const bits = n[o + F_BITS] as number;
    const type = (bits >> 3) & 3;
    if (type !== 0 && type !== l.type) return false;
    switch ((bits >> 5) & 3) {
      case 1:
        if (l.statcounter || l.souvenir) return false;
        break;
      case 2:
        if (!l.statcounter) return false;
        break;
      case 3:
        if (!l.souvenir) return false;
        break;
    }
    if (
      (bits & HAS_FLOAT) !== 0 &&
      !(l.float >= (n[o + F_MIN_FLOAT] as number) && l.float <= (n[o + F_MAX_FLOAT] as number))
    )
      return false;
    if ((bits & HAS_DISCOUNT) !== 0 && !meetsDiscount(l.discount, n[o + F_MIN_DISCOUNT] as number))
      return false;
    if ((bits & HAS_REF_QTY) !== 0 && !(l.refQty >= (n[o + F_MIN_REF_QTY] as number))) return false;
    const x = lists[slot];
    if (x !== null && x !== undefined && !matchesLists(x, l)) return false;
    const d = deals[slot];
    return d === null || d === undefined || matchesDeal(d, l.deal);
  }

  function refOf(slot: number): RuleRef {
    const key = keys[slot] as number | string;
    return {
      id: typeof key === "number" ? String(key) : key,
      userId: users[owners[slot] as number] as string,
    };
  }

  /** Sorts by each list's bound, and trims the room push left (a list copy is exactly its length). */
  function sortLists(b: Bucket): void {
    const n = nums;
    b.byDiscount =
      b.byDiscount
        ?.sort(
          (x, y) => (n[x * STRIDE + F_MIN_DISCOUNT] as number) - (n[y * STRIDE + F_MIN_DISCOUNT] as number),
        )
        .slice() ?? null;
    b.byPrice =
      b.byPrice
        ?.sort((x, y) => (n[y * STRIDE + F_MAX_PRICE] as number) - (n[x * STRIDE + F_MAX_PRICE] as number))
        .slice() ?? null;
    b.byFloat =
      b.byFloat
        ?.sort((x, y) => (n[y * STRIDE + F_MAX_FLOAT] as number) - (n[x * STRIDE + F_MAX_FLOAT] as number))
        .slice() ?? null;
    b.unsorted = b.unsorted?.slice() ?? null;
    b.dirty = false;
  }

  function collect(b: Bucket, facts: ListingFacts, out: RuleRef[]): void {
    if (b.dirty) sortLists(b);
    const n = nums;
    const { price, discount, float } = facts;
    let list = b.byPrice;
    if (list !== null) {
      for (let i = 0; i < list.length; i++) {
        const s = list[i] as number;
        if ((n[s * STRIDE + F_MAX_PRICE] as number) < price) break;
        if (matchesSlot(s, facts)) out.push(refOf(s));
      }
    }
    list = b.byDiscount;
    if (list !== null) {
      // A listing without a reference has a NaN discount: no discount rule can match it.
      for (let i = 0; i < list.length; i++) {
        const s = list[i] as number;
        if (!meetsDiscount(discount, n[s * STRIDE + F_MIN_DISCOUNT] as number)) break;
        if (matchesSlot(s, facts)) out.push(refOf(s));
      }
    }
    list = b.byFloat;
    if (list !== null) {
      // NaN float (none on the listing) stops at once: float rules cannot match it.
      for (let i = 0; i < list.length; i++) {
        const s = list[i] as number;
        if (!((n[s * STRIDE + F_MAX_FLOAT] as number) >= float)) break;
        if (matchesSlot(s, facts)) out.push(refOf(s));
      }
    }
    list = b.unsorted;
    if (list !== null) {
      for (let i = 0; i < list.length; i++) {
        const s = list[i] as number;
        if (matchesSlot(s, facts)) out.push(refOf(s));
      }
    }
  }

  function match(listing: Listing): RuleRef[] {
    const out: RuleRef[] = [];
    const facts = prepareListing(listing, fees);
    if (!facts.listed) return out;

    const named = byName.get(facts.nameLower);
    if (named !== undefined) collect(named, facts, out);
    const { defIndex, paintIndex, paintSeed } = facts;
    if (!Number.isNaN(defIndex)) {
      if (!Number.isNaN(paintIndex)) {
        const bucket = byDefPaint.get(defIndex)?.get(paintIndex);
        if (bucket !== undefined) collect(bucket, facts, out);
      }
      const bucket = byDef.get(defIndex);
      if (bucket !== undefined) collect(bucket, facts, out);
    }
    if (!Number.isNaN(paintIndex)) {
      const bucket = byPaint.get(paintIndex);
      if (bucket !== undefined) collect(bucket, facts, out);
    }
    if (!Number.isNaN(paintSeed) && bySeed.size > 0) {
      const bucket = bySeed.get(paintSeed);
      if (bucket !== undefined) collect(bucket, facts, out);
    }
    if (bySticker.size > 0) {
      const ids = facts.stickerIds;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        // A listing can carry one sticker several times; visit its bucket once.
        const bucket = ids.indexOf(id) === i ? bySticker.get(id) : undefined;
        if (bucket !== undefined) collect(bucket, facts, out);
      }
    }
    if (byKeychain.size > 0) {
      const ids = facts.keychainIds;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        const bucket = ids.indexOf(id) === i ? byKeychain.get(id) : undefined;
        if (bucket !== undefined) collect(bucket, facts, out);
      }
    }
    if (broad.size > 0) collect(broad, facts, out);
    return out;
  }

  return {
    add,
    remove,
    update: add,
    get size() {
      return byId.size;
    },
    *ids() {
      for (const key of byId.keys()) yield typeof key === "number" ? String(key) : key;
    },
    match,
  };
}

/** Filters objects are treated as immutable, so their compiled form can be remembered. */
const compiledByFilters = new WeakMap<RuleFilters, CompiledFilters>();

function compiledOf(filters: RuleFilters): CompiledFilters {
  let c = compiledByFilters.get(filters);
  if (c === undefined) {
    c = compileFilters(filters);
    compiledByFilters.set(filters, c);
  }
  return c;
}

/** The reference answer: every rule checked against the listing. Used by tests and the bench. */
export function linearScanMatch(
  rules: readonly MatcherRule[],
  listing: Listing,
  fees: FeeModel = DEFAULT_FEES,
): RuleRef[] {
  const facts = prepareListing(listing, fees);
  const out: RuleRef[] = [];
  for (const rule of rules) {
    if (matchesFacts(compiledOf(rule.filters), facts)) out.push({ id: rule.id, userId: rule.userId });
  }
  return out;
}

/** A rule with its filters compiled once, for a linear scan that does no per-listing allocation. */
export interface CompiledRule extends RuleRef {
  readonly c: CompiledFilters;
}

export function compileRules(rules: readonly MatcherRule[]): CompiledRule[] {
  return rules.map((r) => ({ id: r.id, userId: r.userId, c: compileFilters(r.filters) }));
}

/** The strongest linear baseline: precompiled rules, one predicate call each. */
export function linearScanCompiled(rules: readonly CompiledRule[], listing: Listing): RuleRef[] {
  const facts = prepareListing(listing);
  const out: RuleRef[] = [];
  for (const rule of rules) if (matchesFacts(rule.c, facts)) out.push(rule);
  return out;
}

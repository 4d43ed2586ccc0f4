// In-memory index of watch rules: finds the rules a new listing satisfies without scanning every rule.
import type { Listing } from "../market/schemas.ts";
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

/** One indexed rule: a class so every entry shares one hidden class and holds no closures. */
class Entry implements RuleRef {
  /** The bound its list is sorted by (min_discount, max_price or max_float), copied out of c for a tight loop. */
  readonly bound: number;
  readonly list: number;

  constructor(
    readonly id: string,
    readonly userId: string,
    readonly c: CompiledFilters,
  ) {
    this.list = listOf(c);
    this.bound = this.list === BY_DISCOUNT ? c.minDiscount : this.list === BY_PRICE ? c.maxPrice : c.maxFloat;
  }
}

/**
 * Rules sharing an index key, split by the bound each can be cut off on, each list sorted so a
 * scan stops at the first rule the listing cannot satisfy: most rules hunt a deal or a low float,
 * and most listings are neither. A rule with no such bound is always checked. The cut-offs only
 * skip rules matchesFacts would reject; it still decides every candidate. Sorting is lazy (on
 * the next match) so loading 100k rules stays linear.
 */
class Bucket {
  /** min_discount ascending. */
  private readonly byDiscount: Entry[] = [];
  /** max_price descending. */
  private readonly byPrice: Entry[] = [];
  /** max_float descending. */
  private readonly byFloat: Entry[] = [];
  private readonly unsorted: Entry[] = [];
  private dirty = false;

  constructor(readonly key: string | number) {}

  private listFor(entry: Entry): Entry[] {
    switch (entry.list) {
      case BY_DISCOUNT:
        return this.byDiscount;
      case BY_PRICE:
        return this.byPrice;
      case BY_FLOAT:
        return this.byFloat;
      default:
        return this.unsorted;
    }
  }

  get size(): number {
    return this.byDiscount.length + this.byPrice.length + this.byFloat.length + this.unsorted.length;
  }

  add(entry: Entry): void {
    this.listFor(entry).push(entry);
    if (entry.list !== UNSORTED) this.dirty = true;
  }

  /** Removes by identity; splice keeps the order, and a bucket is small enough for O(n). */
  remove(entry: Entry): void {
    const list = this.listFor(entry);
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
  }

  collect(facts: ListingFacts, out: RuleRef[]): void {
    if (this.dirty) {
      this.byDiscount.sort((a, b) => a.bound - b.bound);
      this.byPrice.sort((a, b) => b.bound - a.bound);
      this.byFloat.sort((a, b) => b.bound - a.bound);
      this.dirty = false;
    }
    const { price, discount, float } = facts;
    let list = this.byPrice;
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      if (e.bound < price) break;
      if (matchesFacts(e.c, facts)) out.push(e);
    }
    list = this.byDiscount;
    // A listing without a reference has a NaN discount: no discount rule can match it.
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      if (!meetsDiscount(discount, e.bound)) break;
      if (matchesFacts(e.c, facts)) out.push(e);
    }
    list = this.byFloat;
    // NaN float (none on the listing) stops at once: float rules cannot match it.
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      if (!(e.bound >= float)) break;
      if (matchesFacts(e.c, facts)) out.push(e);
    }
    list = this.unsorted;
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      if (matchesFacts(e.c, facts)) out.push(e);
    }
  }
}

/** Where a rule lives: under its most selective key. */
type Home =
  | { kind: "name"; key: string }
  | { kind: "seed"; keys: number[] }
  | { kind: "defPaint"; def: number; paint: number }
  | { kind: "def"; key: number }
  | { kind: "paint"; key: number }
  | { kind: "sticker"; key: number }
  | { kind: "keychain"; key: number }
  | { kind: "broad" };

/**
 * A short seed list beats def/paint: each seed is ~1 listing in 1000, a popular skin can be a
 * few in 100. Longer lists stay under def/paint so one rule does not sit in a hundred buckets.
 */
const MAX_SEEDS_AS_KEY = 10;

/**
 * The most selective key of a rule: item name, else a short seed list, else def+paint, else
 * def, else paint, else (rules without any of those) a sticker, a keychain, or a long seed list,
 * else the broad bucket that every listing visits. A seed rule is filed under each of its seeds;
 * a listing has one seed, so it still meets the rule at most once.
 */
function homeOf(c: CompiledFilters): Home {
  if (c.itemLower !== "") return { kind: "name", key: c.itemLower };
  const seeds = c.seeds === null ? null : [...new Set(c.seeds)];
  if (seeds !== null && seeds.length <= MAX_SEEDS_AS_KEY) return { kind: "seed", keys: seeds };
  if (c.defIndex >= 0 && c.paintIndex >= 0) return { kind: "defPaint", def: c.defIndex, paint: c.paintIndex };
  if (c.defIndex >= 0) return { kind: "def", key: c.defIndex };
  if (c.paintIndex >= 0) return { kind: "paint", key: c.paintIndex };
  const sticker = c.stickerIds?.[0];
  if (sticker !== undefined) return { kind: "sticker", key: sticker };
  const keychain = c.keychainIds?.[0];
  if (keychain !== undefined) return { kind: "keychain", key: keychain };
  if (seeds !== null) return { kind: "seed", keys: seeds };
  return { kind: "broad" };
}

export interface MatcherIndex {
  /** Adds a rule, replacing any rule with the same id. */
  add(rule: MatcherRule): void;
  /** Removes a rule; unknown ids are ignored. Returns whether a rule was removed. */
  remove(ruleId: string): boolean;
  /** Same as add: replaces the rule with that id (or adds it). */
  update(rule: MatcherRule): void;
  readonly size: number;
  /** Rules the listing satisfies, each at most once, in no particular order. */
  match(listing: Listing): RuleRef[];
}

export function createMatcherIndex(): MatcherIndex {
  const byId = new Map<string, Entry>();
  const byName = new Map<string, Bucket>();
  const byDefPaint = new Map<number, Map<number, Bucket>>();
  const byDef = new Map<number, Bucket>();
  const byPaint = new Map<number, Bucket>();
  const bySeed = new Map<number, Bucket>();
  const bySticker = new Map<number, Bucket>();
  const byKeychain = new Map<number, Bucket>();
  const broad = new Bucket("broad");

  function bucketIn<K extends string | number>(
    map: Map<K, Bucket>,
    key: K,
    create: boolean,
  ): Bucket | undefined {
    let bucket = map.get(key);
    if (bucket === undefined && create) {
      bucket = new Bucket(key);
      map.set(key, bucket);
    }
    return bucket;
  }

  function bucketsOf(home: Home, create: boolean): Array<Bucket | undefined> {
    switch (home.kind) {
      case "name":
        return [bucketIn(byName, home.key, create)];
      case "defPaint": {
        let inner = byDefPaint.get(home.def);
        if (inner === undefined && create) {
          inner = new Map();
          byDefPaint.set(home.def, inner);
        }
        return [inner && bucketIn(inner, home.paint, create)];
      }
      case "def":
        return [bucketIn(byDef, home.key, create)];
      case "paint":
        return [bucketIn(byPaint, home.key, create)];
      case "seed":
        return home.keys.map((k) => bucketIn(bySeed, k, create));
      case "sticker":
        return [bucketIn(bySticker, home.key, create)];
      case "keychain":
        return [bucketIn(byKeychain, home.key, create)];
      case "broad":
        return [broad];
    }
  }

  /** Drops a bucket once empty so churn over many item names does not leak maps. */
  function dropIfEmpty(home: Home, bucket: Bucket): void {
    if (bucket.size > 0 || bucket === broad) return;
    switch (home.kind) {
      case "name":
        byName.delete(home.key);
        break;
      case "defPaint": {
        const inner = byDefPaint.get(home.def);
        inner?.delete(home.paint);
        if (inner?.size === 0) byDefPaint.delete(home.def);
        break;
      }
      case "def":
        byDef.delete(home.key);
        break;
      case "paint":
        byPaint.delete(home.key);
        break;
      case "seed":
        bySeed.delete(bucket.key as number);
        break;
      case "sticker":
        bySticker.delete(home.key);
        break;
      case "keychain":
        byKeychain.delete(home.key);
        break;
    }
  }

  function remove(ruleId: string): boolean {
    const entry = byId.get(ruleId);
    if (entry === undefined) return false;
    byId.delete(ruleId);
    // The home is a pure function of the filters, so it is recomputed rather than stored per rule.
    const home = homeOf(entry.c);
    for (const bucket of bucketsOf(home, false)) {
      if (bucket === undefined) continue;
      bucket.remove(entry);
      dropIfEmpty(home, bucket);
    }
    return true;
  }

  function add(rule: MatcherRule): void {
    remove(rule.id);
    // Share the name bucket's key string with the rule so name comparisons are pointer-equal (see match).
    const c = compileFilters(
      rule.filters,
      (lower) => (bucketIn(byName, lower, true) as Bucket).key as string,
    );
    const buckets = bucketsOf(homeOf(c), true);
    const entry = new Entry(rule.id, rule.userId, c);
    byId.set(rule.id, entry);
    for (const bucket of buckets) bucket?.add(entry);
  }

  function match(listing: Listing): RuleRef[] {
    const out: RuleRef[] = [];
    const facts = prepareListing(listing);
    if (!facts.listed) return out;

    const named = byName.get(facts.nameLower);
    if (named !== undefined) {
      // The interned key makes every rule's name comparison a pointer check.
      facts.nameLower = named.key as string;
      named.collect(facts, out);
    }
    const { defIndex, paintIndex, paintSeed } = facts;
    if (!Number.isNaN(defIndex)) {
      if (!Number.isNaN(paintIndex)) byDefPaint.get(defIndex)?.get(paintIndex)?.collect(facts, out);
      byDef.get(defIndex)?.collect(facts, out);
    }
    if (!Number.isNaN(paintIndex)) byPaint.get(paintIndex)?.collect(facts, out);
    if (!Number.isNaN(paintSeed) && bySeed.size > 0) bySeed.get(paintSeed)?.collect(facts, out);
    if (bySticker.size > 0) {
      const ids = facts.stickerIds;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        // A listing can carry one sticker several times; visit its bucket once.
        if (ids.indexOf(id) === i) bySticker.get(id)?.collect(facts, out);
      }
    }
    if (byKeychain.size > 0) {
      const ids = facts.keychainIds;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        if (ids.indexOf(id) === i) byKeychain.get(id)?.collect(facts, out);
      }
    }
    if (broad.size > 0) broad.collect(facts, out);
    return out;
  }

  return {
    add,
    remove,
    update: add,
    get size() {
      return byId.size;
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
export function linearScanMatch(rules: readonly MatcherRule[], listing: Listing): RuleRef[] {
  const facts = prepareListing(listing);
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

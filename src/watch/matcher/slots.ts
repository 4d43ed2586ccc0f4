// The matcher's rule storage: each rule is a slot of packed numbers, and the one per-slot match check.
import { matchesDeal, meetsDealBound } from "../dealFilters.ts";
import { meetsDiscount, type CompiledFilters, type ListingFacts } from "../ruleFilters.ts";
import { hasStickerAt, listsOf, matchesLists, STICKER_SLOTS } from "./ruleLists.ts";

// At 1M rules, per-rule objects (an entry, its compiled filters, boxed doubles, id strings, map
// and set entries) would cost ~460 bytes a rule, and visiting them would miss the CPU cache at
// every rule. Here a rule's numeric filters, id and owner are one entry of E doubles packed into
// the list of the bucket it sits in (buckets.ts), in the order a scan reads them: a listing's
// scan runs through contiguous memory. The rest of a rule is a slot here: its id (a small integer
// when it is one, as database ids are: a dense table maps them to slots, no Map entry per rule),
// its seed/sticker/keychain lists (a minority of rules: one small array of integers) and its deal
// bounds (rarer still: a small Float64Array), read only for rules whose entry flags them.

/** Doubles per entry, and each one's offset. */
export const E = 15;
export const E_MAX_PRICE = 0; // Infinity when not set
export const E_MIN_FLOAT = 1; // -Infinity when not set
export const E_MAX_FLOAT = 2; // Infinity when not set
export const E_MIN_DISCOUNT = 3;
export const E_MIN_REF_QTY = 4;
export const E_DEF = 5; // -1 when not set
export const E_PAINT = 6; // -1 when not set
/**
 * HAS_* bits | type << 5 | category << 7 (CompiledFilters' codes), plus the owner's index in the
 * interned user ids times OWNER_UNIT (exact: a double holds integers to 2^53).
 */
export const E_BITS = 7;
export const E_SLOT = 8;
/** The rule's id when it is a number (keyOf), else -1 (the slot's key holds it). */
export const E_ID = 9;
/**
 * A rule's first two deal bounds, inline (most deal rules set one or two): the bound's position
 * in dealFilters.ts' order (-1: none) and its value. A rule with more sets HAS_DEAL and is checked
 * from its slot's bounds; inline, a candidate's check reads nothing outside its entry.
 */
export const E_DEAL_K1 = 10;
const E_DEAL_V1 = 11;
export const E_DEAL_K2 = 12;
const E_DEAL_V2 = 13;
/**
 * The seed an entry filed on a seed axis is filed under (one copy per seed); the sticker and slot
 * of a HAS_STICKER_SLOT entry; NaN elsewhere.
 */
export const E_KEY = 14;
const INLINE_DEALS = 2;
const OWNER_UNIT = 2048;
/** The rule's kind, type + 4 * category (ListingFacts.kinds' bit), from its flags. */
export const kindOf = (flags: number): number => (flags >> 5) & 15;
/** Kinds a bound-decided entry's 32-bit code holds below its ref (axes.ts). */
export const KIND_BITS = 4;
export const KINDS = 1 << KIND_BITS;
/** Refs a 32-bit code holds: ids at or past it are filed by slot, as -(slot + 1). */
export const REF_LIMIT = 1 << (31 - KIND_BITS);
/** The HAS_*, type and category bits of an E_BITS value (ToInt32 keeps the low bits exact). */
export const flagsOf = (bits: number): number => bits & (OWNER_UNIT - 1);
export const HAS_FLOAT = 1;
export const HAS_DISCOUNT = 2;
export const HAS_REF_QTY = 4;
export const HAS_LISTS = 8;
const HAS_DEAL = 16;
export const HAS_DEAL_INLINE = 1 << 9;
/**
 * The rule's one list is one sticker in one slot, inline in E_KEY (sticker id * STICKER_SLOTS +
 * slot): a rule filed under that sticker (index.ts) checks it without reading its slot's lists.
 */
export const HAS_STICKER_SLOT = 1 << 10;

/** A free slot's key. */
const FREE = -1;
/** Ids above this stay out of the dense table (it would be mostly empty). */
const MAX_DENSE_ID = 1 << 26;

/**
 * Writes a rule's deal bounds into its entry when there are at most INLINE_DEALS of them; false
 * (the entry's deal fields cleared) when there are none or more.
 */
function inlineDeals(deal: Float64Array | null, entry: Float64Array): boolean {
  entry[E_DEAL_K1] = -1;
  entry[E_DEAL_V1] = NaN;
  entry[E_DEAL_K2] = -1;
  entry[E_DEAL_V2] = NaN;
  if (deal === null) return false;
  let set = 0;
  for (let k = 0; k < deal.length; k++) if (!Number.isNaN(deal[k])) set++;
  if (set > INLINE_DEALS) return false;
  let at = E_DEAL_K1;
  for (let k = 0; k < deal.length; k++) {
    if (Number.isNaN(deal[k])) continue;
    entry[at] = k;
    entry[at + 1] = deal[k] as number;
    at += 2;
  }
  return true;
}

/**
 * A canonical non-negative integer id is kept as a number (no string per rule); others as given.
 * A number and its decimal string are the same id (a load passes database ids as numbers).
 */
export function keyOf(id: string | number): number | string {
  if (typeof id === "number") return Number.isInteger(id) && id >= 0 && id <= 0x7fffffff ? id : String(id);
  const n = Number(id);
  return Number.isInteger(n) && n >= 0 && n <= 0x7fffffff && String(n) === id ? n : id;
}

export class RuleSlots {
  /** Per slot: the rule's id (see keyOf; FREE when the slot is free), lists and deal bounds. */
  readonly keys: Array<number | string> = [];
  readonly lists: Array<number[] | null> = [];
  /** Per slot: the rule's deal bounds (compileDeal), null without any. */
  readonly deals: Array<Float64Array | null> = [];
  /** Per slot: index of the owner in `users`. */
  private owners: Int32Array;
  private readonly freeSlots: number[] = [];
  /** Slot + 1 of each small integer id (0: none); other ids in `byOtherId`. */
  private slotOfId: Int32Array;
  private readonly byOtherId = new Map<number | string, number>();
  private count = 0;

  /** Interned owner ids with a count of rules each; a user's entry goes with their last rule. */
  private readonly users: string[] = [];
  private readonly userRules: number[] = [];
  private readonly userIndex = new Map<string | number, number>();
  private readonly freeUsers: number[] = [];

  constructor(capacity: number) {
    this.owners = new Int32Array(Math.max(16, capacity));
    // Database ids run from 1 up, a little past the rule count once rules come and go.
    this.slotOfId = new Int32Array(Math.max(16, capacity) + 1);
  }

  get size(): number {
    return this.count;
  }

  /** The slot holding the rule with this id, or -1. */
  slotOf(key: number | string): number {
    if (typeof key === "number" && key < MAX_DENSE_ID)
      return key < this.slotOfId.length ? (this.slotOfId[key] as number) - 1 : -1;
    return this.byOtherId.get(key) ?? -1;
  }

  /** A free slot holding the rule's id, owner, lists and deal bounds; `entry` gets its E doubles. */
  put(key: number | string, userId: string | number, c: CompiledFilters, entry: Float64Array): number {
    const slot = this.newSlot();
    this.keys[slot] = key;
    this.mapId(key, slot + 1);
    this.count++;
    const owner = this.internUser(userId);
    this.owners[slot] = owner;
    const lists = listsOf(c);
    this.lists[slot] = lists;
    const inline = inlineDeals(c.deal, entry);
    this.deals[slot] = inline ? null : c.deal;
    entry[E_MAX_PRICE] = c.maxPrice;
    entry[E_MIN_FLOAT] = c.minFloat;
    entry[E_MAX_FLOAT] = c.maxFloat;
    entry[E_MIN_DISCOUNT] = c.minDiscount;
    entry[E_MIN_REF_QTY] = c.minRefQty;
    entry[E_DEF] = c.defIndex;
    entry[E_PAINT] = c.paintIndex;
    entry[E_BITS] =
      (c.hasFloat ? HAS_FLOAT : 0) |
      (c.hasDiscount ? HAS_DISCOUNT : 0) |
      (c.hasRefQty ? HAS_REF_QTY : 0) |
      (lists !== null ? HAS_LISTS : 0) |
      (c.deal === null ? 0 : inline ? HAS_DEAL_INLINE : HAS_DEAL) |
      (c.type << 5) |
      (c.category << 7) |
      0;
    entry[E_BITS] = (entry[E_BITS] as number) + owner * OWNER_UNIT;
    entry[E_SLOT] = slot;
    entry[E_ID] = typeof key === "number" ? key : -1;
    entry[E_KEY] = NaN;
    return slot;
  }

  /** Frees a slot (its buckets must have let go of its entries first). */
  release(slot: number): void {
    this.mapId(this.keys[slot] as number | string, 0);
    this.count--;
    this.releaseUser(this.owners[slot] as number);
    this.keys[slot] = FREE;
    this.lists[slot] = null;
    this.deals[slot] = null;
    this.freeSlots.push(slot);
  }

  /** Seeds of a slot's lists without repeats; null without a seed filter. */
  seedsOf(slot: number): number[] | null {
    const x = this.lists[slot] ?? null;
    if (x === null) return null;
    const n = x[0] as number;
    return n < 0 ? null : [...new Set(x.slice(1, 1 + n))];
  }

  /**
   * Whether a slot's lists say nothing beyond the key it is filed under: seeds only (filed under
   * each seed), a single sticker in any slot (filed under it) or a single keychain. Its entries
   * there then skip the lists check, and with it a read outside the bucket.
   */
  /**
   * E_KEY's value for a rule whose only list is one sticker in one slot (HAS_STICKER_SLOT), else
   * NaN: filed under that sticker, it needs no read of its lists.
   */
  stickerSlotKey(slot: number): number {
    const x = this.lists[slot];
    // [no seeds, one sticker, its id, its slot, no keychains]
    if (x?.length !== 5 || x[0] !== -1 || x[1] !== 1 || x[4] !== 0) return NaN;
    const id = x[2] as number;
    const at = x[3] as number;
    const fits = Number.isInteger(id) && id >= 0 && at >= 0 && at < STICKER_SLOTS;
    return fits ? id * STICKER_SLOTS + at : NaN;
  }

  listsImpliedByKey(slot: number, home: "seed" | "sticker" | "keychain"): boolean {
    const x = this.lists[slot];
    if (x === null || x === undefined) return false;
    const seeds = x[0] as number;
    const at = seeds < 0 ? 1 : 1 + seeds;
    const stickers = x[at] as number;
    const keychains = x[at + 1 + 2 * stickers] as number;
    if (home === "seed") return seeds >= 0 && stickers === 0 && keychains === 0;
    if (seeds >= 0) return false;
    if (home === "sticker") return stickers === 1 && x[at + 2] === -1 && keychains === 0;
    return stickers === 0 && keychains === 1;
  }

  *ids(): IterableIterator<string> {
    for (const key of this.keys) if (key !== FREE) yield typeof key === "number" ? String(key) : key;
  }

  /**
   * The match of one entry (at offset o of a bucket's list): matchesFacts (THE definition,
   * ruleFilters.ts) over the packed numbers, check for check, except the item name, which the
   * bucket the entry was found in already matched.
   */
  matches(n: Float64Array, o: number, l: ListingFacts): boolean {
    if (l.price > (n[o + E_MAX_PRICE] as number)) return false;
    const def = n[o + E_DEF] as number;
    if (def >= 0 && def !== l.defIndex) return false;
    const paint = n[o + E_PAINT] as number;
    if (paint >= 0 && paint !== l.paintIndex) return false;
    const bits = flagsOf(n[o + E_BITS] as number);
    if (((l.kinds >>> kindOf(bits)) & 1) === 0) return false;
    if (
      (bits & HAS_FLOAT) !== 0 &&
      !(l.float >= (n[o + E_MIN_FLOAT] as number) && l.float <= (n[o + E_MAX_FLOAT] as number))
    )
      return false;
    if ((bits & HAS_DISCOUNT) !== 0 && !meetsDiscount(l.discount, n[o + E_MIN_DISCOUNT] as number))
      return false;
    if ((bits & HAS_REF_QTY) !== 0 && !(l.refQty >= (n[o + E_MIN_REF_QTY] as number))) return false;
    if ((bits & HAS_DEAL_INLINE) !== 0) {
      const k1 = n[o + E_DEAL_K1] as number;
      if (!meetsDealBound(k1, n[o + E_DEAL_V1] as number, l.deal[k1] as number)) return false;
      const k2 = n[o + E_DEAL_K2] as number;
      if (k2 >= 0 && !meetsDealBound(k2, n[o + E_DEAL_V2] as number, l.deal[k2] as number)) return false;
    }
    if ((bits & HAS_STICKER_SLOT) !== 0 && !hasStickerAt(l, n[o + E_KEY] as number)) return false;
    if ((bits & (HAS_LISTS | HAS_DEAL)) === 0) return true;
    const slot = n[o + E_SLOT] as number;
    const x = this.lists[slot];
    if (x !== null && x !== undefined && !matchesLists(x, l)) return false;
    const d = this.deals[slot];
    return d === null || d === undefined || matchesDeal(d, l.deal);
  }

  /**
   * The ref (MatchIds) of the entry at offset o (a full entry in a list, or a rule's entry being
   * filed): its numeric id below REF_LIMIT, else -(slot + 1), read from the entry alone.
   */
  refOf(n: Float64Array, o: number): number {
    const id = n[o + E_ID] as number;
    return id >= 0 && id < REF_LIMIT ? id : -((n[o + E_SLOT] as number) + 1);
  }

  /** Deal bound k of the entry at offset o (NaN: not set), inline or from its slot. */
  dealBound(n: ArrayLike<number>, o: number, k: number): number {
    if (n[o + E_DEAL_K1] === k) return n[o + E_DEAL_V1] as number;
    if (n[o + E_DEAL_K2] === k) return n[o + E_DEAL_V2] as number;
    return this.deals[n[o + E_SLOT] as number]?.[k] ?? NaN;
  }

  /** The key of the rule in a slot (a string id's, for entries that hold -1 for it). */
  keyAt(slot: number): number | string {
    return this.keys[slot] as number | string;
  }

  /** The rule's ref (refOf's form) from its slot: a numeric id below REF_LIMIT, else -(slot + 1). */
  pureIdOf(slot: number): number {
    const key = this.keys[slot];
    return typeof key === "number" && key < REF_LIMIT ? key : -(slot + 1);
  }

  /** The owner of the rule in a slot. */
  ownerOf(slot: number): string {
    return this.users[this.owners[slot] as number] as string;
  }

  private newSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.keys.length;
    if (slot >= this.owners.length) {
      const owners = new Int32Array(Math.ceil(this.owners.length * 1.5));
      owners.set(this.owners);
      this.owners = owners;
    }
    this.keys.push(FREE);
    this.lists.push(null);
    this.deals.push(null);
    return slot;
  }

  /** Points an id at slot + 1 (0: no slot). */
  private mapId(key: number | string, slotPlusOne: number): void {
    if (typeof key === "number" && key < MAX_DENSE_ID) {
      if (key >= this.slotOfId.length) {
        if (slotPlusOne === 0) return;
        const grown = new Int32Array(Math.max(key + 1, Math.ceil(this.slotOfId.length * 1.5)));
        grown.set(this.slotOfId);
        this.slotOfId = grown;
      }
      this.slotOfId[key] = slotPlusOne;
    } else if (slotPlusOne === 0) this.byOtherId.delete(key);
    else this.byOtherId.set(key, slotPlusOne - 1);
  }

  /**
   * The owner's index, counting one more rule of theirs. Keyed as rule ids are (keyOf): a load
   * passes database ids as numbers, and needs no string per rule to find its owner; the string
   * ownerOf returns is made once per owner.
   */
  private internUser(userId: string | number): number {
    const key = keyOf(userId);
    let u = this.userIndex.get(key);
    if (u === undefined) {
      u = this.freeUsers.pop() ?? this.users.length;
      this.users[u] = String(userId);
      this.userRules[u] = 0;
      this.userIndex.set(key, u);
    }
    this.userRules[u] = (this.userRules[u] as number) + 1;
    return u;
  }

  private releaseUser(u: number): void {
    const left = (this.userRules[u] as number) - 1;
    this.userRules[u] = left;
    if (left > 0) return;
    this.userIndex.delete(keyOf(this.users[u] as string));
    this.users[u] = "";
    this.freeUsers.push(u);
  }
}

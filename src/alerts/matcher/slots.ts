// The matcher's rule storage: each rule is a slot of packed numbers, and the one per-slot match check.
import { matchesDeal } from "../dealFilters.ts";
import { meetsDiscount, type CompiledFilters, type ListingFacts } from "../ruleFilters.ts";

// At 1M rules, per-rule objects (an entry, its compiled filters, boxed doubles, id strings, map
// and set entries) would cost ~460 bytes a rule, and visiting them would miss the CPU cache at
// every rule. Here a rule's numeric filters, id and owner are one entry of E doubles packed into
// the list of the bucket it sits in (buckets.ts), in the order a scan reads them: a listing's
// scan runs through contiguous memory. The rest of a rule is a slot here: its id (a small integer
// when it is one, as database ids are: a dense table maps them to slots, no Map entry per rule),
// its seed/sticker/keychain lists (a minority of rules: one small array of integers) and its deal
// bounds (rarer still: a small Float64Array), read only for rules whose entry flags them.

/** Doubles per entry, and each one's offset. */
export const E = 10;
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
const OWNER_UNIT = 512;
/** The HAS_*, type and category bits of an E_BITS value (ToInt32 keeps the low bits exact). */
export const flagsOf = (bits: number): number => bits & (OWNER_UNIT - 1);
export const HAS_FLOAT = 1;
export const HAS_DISCOUNT = 2;
export const HAS_REF_QTY = 4;
const HAS_LISTS = 8;
const HAS_DEAL = 16;

/** A free slot's key. */
const FREE = -1;
/** Ids above this stay out of the dense table (it would be mostly empty). */
const MAX_DENSE_ID = 1 << 26;

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

/** A canonical non-negative integer id is kept as a number (no string per rule); others as given. */
export function keyOf(id: string): number | string {
  const n = Number(id);
  return Number.isInteger(n) && n >= 0 && n <= 0x7fffffff && String(n) === id ? n : id;
}

/** What a match returns: enough to queue an alert. */
export interface RuleRef {
  readonly id: string;
  readonly userId: string;
}

export class RuleSlots {
  /** Per slot: the rule's id (see keyOf; FREE when the slot is free), lists and deal bounds. */
  readonly keys: Array<number | string> = [];
  readonly lists: Array<number[] | null> = [];
  /** Per slot: the rule's deal bounds (compileDeal), null without any. */
  readonly deals: Array<Float64Array | null> = [];
  /**
   * Per slot: the rule's RuleRef, made the first time the rule matches and reused after: a
   * listing matching hundreds of rules then allocates nothing per match. Only rules that matched
   * hold one (at most ~50 bytes each); a freed slot drops its own.
   */
  private readonly refs: Array<RuleRef | undefined> = [];
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
  private readonly userIndex = new Map<string, number>();
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
  put(key: number | string, userId: string, c: CompiledFilters, entry: Float64Array): number {
    const slot = this.newSlot();
    this.keys[slot] = key;
    this.mapId(key, slot + 1);
    this.count++;
    const owner = this.internUser(userId);
    this.owners[slot] = owner;
    const lists = listsOf(c);
    this.lists[slot] = lists;
    this.deals[slot] = c.deal;
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
      (c.deal !== null ? HAS_DEAL : 0) |
      (c.type << 5) |
      (c.category << 7) |
      0;
    entry[E_BITS] = (entry[E_BITS] as number) + owner * OWNER_UNIT;
    entry[E_SLOT] = slot;
    entry[E_ID] = typeof key === "number" ? key : -1;
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
    this.refs[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /** Seeds of a slot's lists without repeats; null without a seed filter. */
  seedsOf(slot: number): number[] | null {
    const x = this.lists[slot] ?? null;
    if (x === null) return null;
    const n = x[0] as number;
    return n < 0 ? null : [...new Set(x.slice(1, 1 + n))];
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
    const type = (bits >> 5) & 3;
    if (type !== 0 && type !== l.type) return false;
    switch ((bits >> 7) & 3) {
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
      !(l.float >= (n[o + E_MIN_FLOAT] as number) && l.float <= (n[o + E_MAX_FLOAT] as number))
    )
      return false;
    if ((bits & HAS_DISCOUNT) !== 0 && !meetsDiscount(l.discount, n[o + E_MIN_DISCOUNT] as number))
      return false;
    if ((bits & HAS_REF_QTY) !== 0 && !(l.refQty >= (n[o + E_MIN_REF_QTY] as number))) return false;
    if ((bits & (HAS_LISTS | HAS_DEAL)) === 0) return true;
    const slot = n[o + E_SLOT] as number;
    const x = this.lists[slot];
    if (x !== null && x !== undefined && !matchesLists(x, l)) return false;
    const d = this.deals[slot];
    return d === null || d === undefined || matchesDeal(d, l.deal);
  }

  /** The rule of the entry at offset o of a bucket's list. */
  refOf(n: Float64Array, o: number): RuleRef {
    const slot = n[o + E_SLOT] as number;
    const known = this.refs[slot];
    if (known !== undefined) return known;
    const id = n[o + E_ID] as number;
    const ref: RuleRef = Object.freeze({
      id: id >= 0 ? String(id) : (this.keys[slot] as string),
      userId: this.users[Math.floor((n[o + E_BITS] as number) / OWNER_UNIT)] as string,
    });
    this.refs[slot] = ref;
    return ref;
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
    // Grown with the others: a store far past its length would turn it into a slow dictionary.
    this.refs.push(undefined);
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

  private internUser(userId: string): number {
    let u = this.userIndex.get(userId);
    if (u === undefined) {
      u = this.freeUsers.pop() ?? this.users.length;
      this.users[u] = userId;
      this.userRules[u] = 0;
      this.userIndex.set(userId, u);
    }
    this.userRules[u] = (this.userRules[u] as number) + 1;
    return u;
  }

  private releaseUser(u: number): void {
    const left = (this.userRules[u] as number) - 1;
    this.userRules[u] = left;
    if (left > 0) return;
    this.userIndex.delete(this.users[u] as string);
    this.users[u] = "";
    this.freeUsers.push(u);
  }
}

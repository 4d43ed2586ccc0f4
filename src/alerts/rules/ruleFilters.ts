// Watch-rule filters: the stored JSON schema and the one definition of what each filter means (ruleOptions.ts builds them from options).
import { z } from "zod";
import { discountPercent, MAX_CENTS } from "../../money.ts";
import type { Listing, ListingType } from "../../market/schemas.ts";
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import { dealOf } from "./deal.ts";
import {
  compileDeal,
  DEAL_FILTER_SHAPE,
  dealValuesOf,
  matchesDeal,
  NARROWING_DEAL_FILTERS,
} from "./dealFilters.ts";
import {
  MAX_SEEDS,
  MAX_SMALL_ID,
  MAX_STICKER_SELECTORS,
  SEED_MAX,
  STICKER_SLOT_MAX,
} from "../../input/parse.ts";

export const MAX_ITEM_NAME = 128;
export const MAX_KEYCHAINS = 4;
export const MAX_REF_QTY = 1_000_000_000;

const SmallId = z.number().int().min(0).max(MAX_SMALL_ID);
const FloatBound = z.number().min(0).max(1);

export const RuleCategory = z.enum(["any", "normal", "statcounter", "souvenir"]);
export type RuleCategory = z.infer<typeof RuleCategory>;

export const StickerSelectorSchema = z.strictObject({
  id: SmallId,
  slot: z.number().int().min(0).max(STICKER_SLOT_MAX).optional(),
});

/** Filters that select a part of the market; type and category alone would select all of it. */
export const NARROWING_FILTERS = [
  "item",
  "def_index",
  "paint_index",
  "paint_seeds",
  "min_float",
  "max_float",
  "max_price",
  "min_discount",
  "stickers",
  "keychains",
  ...NARROWING_DEAL_FILTERS,
] as const;

/**
 * A watch rule's filters as stored (JSON column). Strict: an unknown key is a filter this build
 * does not understand, and ignoring it would silently widen the rule, so such a row fails to
 * parse and is skipped (and logged) by whoever loads it.
 */
export const RuleFilters = z
  .strictObject({
    /** market_hash_name; exact, case-insensitive. */
    item: z.string().trim().min(1).max(MAX_ITEM_NAME).optional(),
    def_index: SmallId.optional(),
    paint_index: SmallId.optional(),
    /** Any of these seeds. */
    paint_seeds: z.array(z.number().int().min(0).max(SEED_MAX)).min(1).max(MAX_SEEDS).optional(),
    min_float: FloatBound.optional(),
    max_float: FloatBound.optional(),
    /** Cents, inclusive. */
    max_price: z.number().int().min(0).max(MAX_CENTS).optional(),
    /** Percent below the reference price, inclusive. */
    min_discount: z.number().min(0).max(100).optional(),
    /** Minimum reference-price sample quantity. */
    min_ref_qty: z.number().int().min(0).max(MAX_REF_QTY).optional(),
    type: z.enum(["buy_now", "auction"]).optional(),
    category: RuleCategory.optional(),
    stickers: z.array(StickerSelectorSchema).min(1).max(MAX_STICKER_SELECTORS).optional(),
    keychains: z.array(SmallId).min(1).max(MAX_KEYCHAINS).optional(),
    ...DEAL_FILTER_SHAPE,
  })
  .refine((f) => f.min_float === undefined || f.max_float === undefined || f.min_float <= f.max_float, {
    message: "min_float must not be above max_float",
    path: ["min_float"],
  })
  .refine((f) => f.min_fade === undefined || f.max_fade === undefined || f.min_fade <= f.max_fade, {
    message: "min_fade must not be above max_fade",
    path: ["min_fade"],
  })
  .refine((f) => f.tier === undefined || f.paint_seeds !== undefined, {
    message: "a tier rule carries its tier's seeds",
    path: ["tier"],
  })
  .refine((f) => NARROWING_FILTERS.some((k) => f[k] !== undefined), {
    message: "a rule needs at least one narrowing filter",
  });
export type RuleFilters = z.infer<typeof RuleFilters>;

// ---------------------------------------------------------------------------------------------
// Matching: the meaning of every filter lives below, and only here.

const TYPE_ANY = 0;
const TYPE_CODE: Record<ListingType, number> = { buy_now: 1, auction: 2 };
const CATEGORY_CODE: Record<RuleCategory, number> = { any: 0, normal: 1, statcounter: 2, souvenir: 3 };
/** Binary fractions make 29% come out as 28.999999999999996%; a rule at exactly 29% must still match. */
const DISCOUNT_EPSILON = 1e-9;

/** discount >= minDiscount, inclusive and tolerant of binary fractions; a NaN discount never meets it. */
export function meetsDiscount(discount: number, minDiscount: number): boolean {
  return discount >= discountFloor(minDiscount);
}

/** The lowest discount meeting a minimum (meetsDiscount's margin applied). */
export const discountFloor = (minDiscount: number): number => minDiscount - DISCOUNT_EPSILON;

/**
 * What the filters need from a listing, computed once per listing rather than once per rule.
 * Absent numbers are NaN: NaN compares false with everything, so a filter on an absent value
 * cannot match.
 */
export interface ListingFacts {
  listed: boolean;
  /** market_hash_name lowercased (the matcher may swap in an equal, interned string). */
  nameLower: string;
  defIndex: number;
  paintIndex: number;
  paintSeed: number;
  float: number;
  price: number;
  /** Percent below the reference price; NaN without a usable reference. */
  discount: number;
  refQty: number;
  type: number;
  statcounter: boolean;
  souvenir: boolean;
  /**
   * The rule kinds the listing meets: bit `type + 4 * category` (CompiledFilters' codes) is set
   * when a rule of that type and category accepts it (the matcher checks both in one shift).
   */
  kinds: number;
  /** Parallel arrays: stickerSlots[i] is NaN when the listing does not say. */
  stickerIds: number[];
  stickerSlots: number[];
  keychainIds: number[];
  /** Deal values (profit after fees, fade, blue gem, ...) in dealFilters.ts' order; NaN when absent. */
  deal: readonly number[];
}

/**
 * The reference price a discount is measured against: the listing's own reference (it accounts
 * for this item's float and stickers, hence predicted_price first), else the item-level one;
 * within each, predicted_price before base_price. Absent or <= 0: no reference.
 */
export function referencePriceOf(listing: Listing): number | undefined {
  const ref =
    listing.reference?.predicted_price ??
    listing.reference?.base_price ??
    listing.item.reference?.predicted_price ??
    listing.item.reference?.base_price;
  return ref !== undefined && Number.isFinite(ref) && ref > 0 ? ref : undefined;
}

/** Reference sample quantity, from the same places (listing first, then item). */
export function referenceQuantityOf(listing: Listing): number | undefined {
  return listing.reference?.quantity ?? listing.item.reference?.quantity;
}

const num = (v: number | undefined): number => (v === undefined ? NaN : v);

/** ListingFacts.kinds: per category code the listing meets, rule type "any" and its own type. */
function kindsOf(type: number, statcounter: boolean, souvenir: boolean): number {
  // Categories met (CATEGORY_CODE's bits): any, then normal, statcounter or souvenir.
  const met = 1 | (!statcounter && !souvenir ? 2 : 0) | (statcounter ? 4 : 0) | (souvenir ? 8 : 0);
  let kinds = 0;
  for (let category = 0; category < 4; category++)
    if ((met & (1 << category)) !== 0)
      kinds |= (1 << (4 * category + TYPE_ANY)) | (1 << (4 * category + type));
  return kinds;
}

/** `fees`: the seller fee that profit filters count (the configured one in the running bot). */
export function prepareListing(listing: Listing, fees: FeeModel = DEFAULT_FEES): ListingFacts {
  const item = listing.item;
  const stickers = item.stickers ?? [];
  const keychains = item.keychains ?? [];
  const type = TYPE_CODE[listing.type];
  const statcounter = item.is_statcounter === true;
  const souvenir = item.is_souvenir === true;
  return {
    listed: listing.state === "listed",
    nameLower: item.market_hash_name.toLowerCase(),
    defIndex: num(item.def_index),
    paintIndex: num(item.paint_index),
    paintSeed: num(item.paint_seed),
    float: num(item.float_value),
    price: listing.price,
    discount: num(discountPercent(listing.price, referencePriceOf(listing))),
    refQty: num(referenceQuantityOf(listing)),
    type,
    statcounter,
    souvenir,
    kinds: kindsOf(type, statcounter, souvenir),
    stickerIds: stickers.map((s) => s.stickerId),
    stickerSlots: stickers.map((s) => num(s.slot)),
    keychainIds: keychains.map((k) => k.stickerId),
    deal: dealValuesOf(dealOf(listing, fees, referencePriceOf)),
  };
}

/**
 * Filters in a flat, fixed shape for fast repeated matching (one hidden class, no closures,
 * sentinels instead of absent keys). "Not set" is: "" for the name, -1 for indexes and slots,
 * null for lists, a has* flag for bounds whose absence differs from any value.
 */
export interface CompiledFilters {
  readonly itemLower: string;
  readonly defIndex: number;
  readonly paintIndex: number;
  readonly seeds: readonly number[] | null;
  readonly hasFloat: boolean;
  readonly minFloat: number;
  readonly maxFloat: number;
  readonly maxPrice: number;
  readonly hasDiscount: boolean;
  readonly minDiscount: number;
  readonly hasRefQty: boolean;
  readonly minRefQty: number;
  readonly type: number;
  readonly category: number;
  readonly stickerIds: readonly number[] | null;
  readonly stickerSlots: readonly number[] | null;
  readonly keychainIds: readonly number[] | null;
  /** Deal bounds (dealFilters.ts' order, NaN: not set); null when the rule has none. */
  readonly deal: Float64Array | null;
}

/** intern lets an index hand back one shared string per item name (saves memory, speeds compares). */
export function compileFilters(
  f: RuleFilters,
  intern: (nameLower: string) => string = (s) => s,
): CompiledFilters {
  return {
    itemLower: f.item === undefined ? "" : intern(f.item.toLowerCase()),
    defIndex: f.def_index ?? -1,
    paintIndex: f.paint_index ?? -1,
    seeds: f.paint_seeds ?? null,
    hasFloat: f.min_float !== undefined || f.max_float !== undefined,
    minFloat: f.min_float ?? -Infinity,
    maxFloat: f.max_float ?? Infinity,
    maxPrice: f.max_price ?? Infinity,
    hasDiscount: f.min_discount !== undefined,
    minDiscount: f.min_discount ?? 0,
    hasRefQty: f.min_ref_qty !== undefined,
    minRefQty: f.min_ref_qty ?? 0,
    type: f.type === undefined ? TYPE_ANY : TYPE_CODE[f.type],
    category: CATEGORY_CODE[f.category ?? "any"],
    stickerIds: f.stickers ? f.stickers.map((s) => s.id) : null,
    stickerSlots: f.stickers ? f.stickers.map((s) => s.slot ?? -1) : null,
    keychainIds: f.keychains ?? null,
    deal: compileDeal(f),
  };
}

/** Whether the listing carries the sticker, in that slot (-1: in any). */
export function hasSticker(l: ListingFacts, id: number, slot: number): boolean {
  for (let j = 0; j < l.stickerIds.length; j++)
    if (l.stickerIds[j] === id && (slot === -1 || l.stickerSlots[j] === slot)) return true;
  return false;
}

/**
 * THE definition of a match. Cheap and selective checks come first.
 * - only listings in state "listed";
 * - item: exact market_hash_name, case-insensitive; def_index, paint_index: equal;
 * - paint_seeds: the listing's seed is any of them;
 * - max_price: price <= max_price (inclusive);
 * - type: equal; category: normal = neither statcounter nor souvenir, statcounter/souvenir = that flag true;
 * - min_float/max_float: inclusive bounds; a listing without a float cannot match a float rule;
 * - min_discount: (ref - price) / ref * 100 >= min_discount, ref from referencePriceOf(); no reference -> no match;
 * - min_ref_qty: reference quantity >= min_ref_qty; no quantity -> no match;
 * - stickers: each selector is carried (at its slot when given); keychains: each id is carried.
 *   Selectors are checked independently, so "123, 123" means one copy; "123|0, 123|1" asks for two.
 * - deal filters (min_profit, fade, blue gem, float rank, sticker value...): matchesDeal in
 *   dealFilters.ts, a listing without the value meets none of them; tier: only its copied seeds
 *   count; min_sales_per_day: not here (it needs the price history; listingAlerts.ts applies it).
 * The index (matcher/slots.ts, RuleSlots.matches) runs these same checks on its packed copy of the filters:
 * change both together (test/alerts/matcher/matcher.test.ts compares the index with this function).
 */
export function matchesFacts(c: CompiledFilters, l: ListingFacts): boolean {
  if (!l.listed) return false;
  if (c.itemLower !== "" && c.itemLower !== l.nameLower) return false;
  if (l.price > c.maxPrice) return false;
  if (c.defIndex >= 0 && c.defIndex !== l.defIndex) return false;
  if (c.paintIndex >= 0 && c.paintIndex !== l.paintIndex) return false;
  if (c.type !== TYPE_ANY && c.type !== l.type) return false;
  switch (c.category) {
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
  if (c.hasFloat && !(l.float >= c.minFloat && l.float <= c.maxFloat)) return false;
  if (c.hasDiscount && !meetsDiscount(l.discount, c.minDiscount)) return false;
  if (c.hasRefQty && !(l.refQty >= c.minRefQty)) return false;
  if (c.seeds !== null && !c.seeds.includes(l.paintSeed)) return false;
  if (c.stickerIds !== null && c.stickerSlots !== null) {
    for (let i = 0; i < c.stickerIds.length; i++)
      if (!hasSticker(l, c.stickerIds[i] as number, c.stickerSlots[i] as number)) return false;
  }
  if (c.keychainIds !== null) {
    for (const id of c.keychainIds) if (!l.keychainIds.includes(id)) return false;
  }
  if (c.deal !== null && !matchesDeal(c.deal, l.deal)) return false;
  return true;
}

/** Whether a listing satisfies every filter of a rule (see matchesFacts for each filter's meaning). */
export function matchesListing(
  filters: RuleFilters,
  listing: Listing,
  fees: FeeModel = DEFAULT_FEES,
): boolean {
  return matchesFacts(compileFilters(filters), prepareListing(listing, fees));
}

// Watch-rule filters as stored (the RuleFilters schema, built from the filter registry), a listing's facts, and the fast compiled match.
import { referencePriceOf } from "../market/reference.ts";
import { z } from "zod";
import { discountPercent } from "../money.ts";
import type { Listing } from "../market/schemas.ts";
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import { dealOf } from "./deal.ts";
import { compileDeal, dealValuesOf, matchesDeal } from "./dealFilters.ts";
import {
  emptyCompiled,
  hasSticker,
  meetsDiscount,
  TYPE_ANY,
  TYPE_CODE,
  type CompiledFilters,
  type ListingFacts,
} from "./filters/facts.ts";
import { NARROWING_KEYS, PACKER_OF, REFINES, RULE_FILTER_SHAPE, ruleMatches } from "./filters/registry.ts";

// Each filter (its option, schema, parsing, words, meaning and packing) is one entry of the
// filter registry, src/watch/filters/registry.ts; this module gathers what they store and
// keeps the compiled form the matcher reads.
export { MAX_ITEM_NAME } from "./filters/identity.ts";
export { MAX_KEYCHAINS, StickerSelectorSchema } from "./filters/attachments.ts";
export { MAX_REF_QTY } from "./filters/bounds.ts";
export { RuleCategory } from "./filters/kinds.ts";
export {
  discountFloor,
  hasSticker,
  meetsDiscount,
  type CompiledFilters,
  type ListingFacts,
} from "./filters/facts.ts";

/** Filters that select a part of the market; type and category alone would select all of it. */
export const NARROWING_FILTERS: readonly (keyof RuleFilters)[] = NARROWING_KEYS;

/**
 * A watch rule's filters as stored (JSON column): every filter's stored keys (the registry's
 * entries, each with its schema). Strict: an unknown key is a filter this build does not
 * understand, and ignoring it would silently widen the rule, so such a row fails to parse and is
 * skipped (and logged) by whoever loads it.
 */
export const RuleFilters = z.strictObject(RULE_FILTER_SHAPE).superRefine((f, ctx) => {
  for (const r of REFINES) {
    if (!r.check(f)) ctx.addIssue({ code: "custom", path: [...r.path], message: r.message });
  }
  if (!NARROWING_KEYS.some((k) => f[k] !== undefined))
    ctx.addIssue({ code: "custom", path: [], message: "a rule needs at least one narrowing filter" });
});
export type RuleFilters = z.infer<typeof RuleFilters>;

// ---------------------------------------------------------------------------------------------
// A listing's facts, once per listing

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

// ---------------------------------------------------------------------------------------------
// The compiled match: the registry's meaning (ruleMatches) in a flat shape for fast repeated
// matching, the reference the matcher index is held to.

/**
 * The rule's filters in CompiledFilters' flat shape: each stored key the rule has is packed by its
 * filter's `pack` (the registry), its deal bounds by position. intern lets an index hand back one
 * shared string per item name (saves memory, speeds compares).
 */
export function compileFilters(
  f: RuleFilters,
  intern: (nameLower: string) => string = (s) => s,
): CompiledFilters {
  const c = emptyCompiled();
  // The keys a rule has (a few) are visited, not every filter: rules come in many shapes, and
  // asking each for every filter by name cost more than the packing (see compileDeal).
  for (const key in f) {
    const filter = PACKER_OF[key];
    if (filter !== undefined) filter.pack?.(f, c);
  }
  if (c.itemLower !== "") c.itemLower = intern(c.itemLower);
  c.deal = compileDeal(f);
  return c;
}

/**
 * The registry's meaning of a match (ruleMatches: each filter's `matches`, the deal filters'
 * bounds) over compiled filters, cheap and selective checks first: the linear scan the matcher
 * index is compared with, and the one the benchmarks time. The index (matcher/slots.ts,
 * RuleSlots.matches) runs these same checks on its packed copy of the filters: change them
 * together (test/alerts/rules/filterRegistry.test.ts holds both to the registry, filter by filter;
 * test/alerts/matcher/matcher.test.ts the index to this function on random rules).
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

/** Whether a listing satisfies every filter of a rule: the registry's meaning of each (ruleMatches). */
export function matchesListing(
  filters: RuleFilters,
  listing: Listing,
  fees: FeeModel = DEFAULT_FEES,
): boolean {
  return ruleMatches(filters, prepareListing(listing, fees));
}

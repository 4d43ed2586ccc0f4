// The control panel's "matches my rule": a sandbox listing template that a watch rule's filters accept.
import type { RuleFilters } from "../alerts/ruleFilters.ts";
import type { ListingTemplate } from "../sandbox/index.ts";

/** Used when a rule names no item: any invented name in the catalog's pattern works in the sandbox. */
export const DEFAULT_ITEM = "Falcon Rifle | Ember Tide (Field Worn)";
const DEFAULT_PRICE_CENTS = 1500;
const MIN_PRICE_CENTS = 3;

/**
 * A listing every filter of `filters` accepts: under the price cap, inside the float range, at a
 * discount deep enough against a reference set just for it, carrying the stickers asked for.
 */
export function listingMatching(filters: RuleFilters): ListingTemplate {
  // 10% under the cap, so the alert reads as a deal rather than a listing at the exact limit.
  const price =
    filters.max_price === undefined
      ? DEFAULT_PRICE_CENTS
      : Math.max(MIN_PRICE_CENTS, Math.min(filters.max_price, Math.floor(filters.max_price * 0.9)));
  const template: ListingTemplate = {
    market_hash_name: filters.item ?? DEFAULT_ITEM,
    price,
    type: filters.type ?? "buy_now",
  };
  if (filters.def_index !== undefined) template.def_index = filters.def_index;
  if (filters.paint_index !== undefined) template.paint_index = filters.paint_index;
  const seed = filters.paint_seeds?.[0];
  if (seed !== undefined) template.paint_seed = seed;
  if (filters.min_float !== undefined || filters.max_float !== undefined) {
    const low = filters.min_float ?? 0;
    const high = filters.max_float ?? 1;
    template.float_value = Number(((low + high) / 2).toFixed(6));
  }
  if (filters.min_discount !== undefined) {
    // Five points deeper than asked, so rounding of the reference can never tip it under.
    const discount = Math.min(99, filters.min_discount + 5);
    template.reference_price = Math.ceil(price / (1 - discount / 100));
  }
  if (filters.min_ref_qty !== undefined) {
    template.reference_quantity = filters.min_ref_qty + 10;
    template.reference_price ??= Math.ceil(price * 1.2);
  }
  if (filters.category === "statcounter") template.is_statcounter = true;
  if (filters.category === "souvenir") template.is_souvenir = true;
  if (filters.category === "normal") {
    template.is_statcounter = false;
    template.is_souvenir = false;
  }
  if (filters.stickers) {
    template.stickers = filters.stickers.map((s) =>
      s.slot === undefined ? s.id : { stickerId: s.id, slot: s.slot },
    );
  }
  const keychain = filters.keychains?.[0];
  if (keychain !== undefined) template.keychains = [keychain];
  if (template.type === "auction") template.reserve_price = price;
  return template;
}

// The control panel's "matches my rule": a sandbox listing template that a watch rule's filters accept.
import type { RuleFilters } from "../alerts/rules/ruleFilters.ts";
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
  dealValues(filters, price, template);
  if (template.type === "auction") template.reserve_price = price;
  return template;
}

/** Fee margin for profit filters: references are set as if the seller fee were 10%. */
const FEE_SLACK = 0.9;

/**
 * The deal filters the sandbox can show: profit (a reference high enough to clear it after the
 * fee), fade, blue gem and float rank. Instant exit and sticker value depend on other users'
 * buy orders and sticker prices, which a single listing cannot set.
 */
function dealValues(filters: RuleFilters, price: number, template: ListingTemplate): void {
  const f = filters as RuleFilters & {
    min_profit?: number;
    min_profit_pct?: number;
    min_fade?: number;
    max_fade?: number;
    min_playside_blue?: number;
    min_backside_blue?: number;
    max_float_rank?: number;
  };
  const profit = Math.max(
    f.min_profit ?? 0,
    f.min_profit_pct === undefined ? 0 : (price * f.min_profit_pct) / 100,
  );
  if (f.min_profit !== undefined || f.min_profit_pct !== undefined) {
    const resale = Math.ceil((price + profit + 100) / FEE_SLACK);
    template.reference_price = Math.max(template.reference_price ?? 0, resale);
  }
  if (f.min_fade !== undefined || f.max_fade !== undefined) {
    const low = f.min_fade ?? 80;
    const high = f.max_fade ?? 100;
    template.fade = { percentage: Number(((low + high) / 2).toFixed(1)), rank: 3 };
  }
  if (f.min_playside_blue !== undefined || f.min_backside_blue !== undefined) {
    template.blue_gem = {
      playside_blue: Math.min(100, (f.min_playside_blue ?? 50) + 5),
      backside_blue: Math.min(100, (f.min_backside_blue ?? 30) + 5),
    };
  }
  if (f.max_float_rank !== undefined) template.low_rank = Math.max(1, Math.floor(f.max_float_rank / 2));
}

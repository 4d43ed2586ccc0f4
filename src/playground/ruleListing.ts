// The control panel's "matches my rule": a sandbox listing template that a watch rule's filters accept, each filter setting what it needs (the filter registry's samples).
import type { RuleFilters } from "../watch/ruleFilters.ts";
import type { ListingSample } from "../watch/filters/filter.ts";
import { sampleListing } from "../watch/filters/registry.ts";
import type { ListingTemplate } from "../sandbox/index.ts";

/** Used when a rule names no item: any invented name in the catalog's pattern works in the sandbox. */
export const DEFAULT_ITEM = "Falcon Rifle | Ember Tide (Field Worn)";
const DEFAULT_PRICE_CENTS = 1500;

/**
 * A listing every filter of `filters` accepts: under the price cap, inside the float range, at a
 * discount deep enough against a reference set just for it, carrying the stickers asked for.
 * Instant exit and sticker value depend on other users' buy orders and sticker prices, which a
 * single listing cannot set.
 */
export function listingMatching(filters: RuleFilters): ListingTemplate {
  const template: ListingSample = {
    market_hash_name: DEFAULT_ITEM,
    price: DEFAULT_PRICE_CENTS,
    type: "buy_now",
  };
  sampleListing(filters, template);
  if (template.type === "auction") template.reserve_price = template.price;
  return template;
}

// What a listing is worth to a trader who buys it: resale at the reference price and an instant
// exit to the best standing buy order, each after the marketplace's seller fee.
import type { FeeModel } from "../market/fees.ts";
import type { Listing } from "../market/schemas.ts";
import { referencePriceOf } from "../alerts/ruleFilters.ts";

export interface DealValue {
  referenceCents: number | undefined;
  /** The highest buy order's price for the item (spec 2.4 `reference.buy_order.max_price`). */
  exitPriceCents: number | undefined;
  netResaleCents: number | undefined;
  exitNetCents: number | undefined;
}

/** The best buy order's price, listing's reference first, then the item's. */
export function exitPriceOf(listing: Listing): number | undefined {
  const p = listing.reference?.buy_order?.max_price ?? listing.item.reference?.buy_order?.max_price;
  return p !== undefined && Number.isFinite(p) && p > 0 ? Math.round(p) : undefined;
}

export function dealValueOf(listing: Listing, fees: FeeModel): DealValue {
  const ref = referencePriceOf(listing);
  const referenceCents = ref === undefined ? undefined : Math.round(ref);
  const exitPriceCents = exitPriceOf(listing);
  return {
    referenceCents,
    exitPriceCents,
    netResaleCents: referenceCents === undefined ? undefined : fees.profit(listing.price, referenceCents),
    exitNetCents: exitPriceCents === undefined ? undefined : fees.profit(listing.price, exitPriceCents),
  };
}

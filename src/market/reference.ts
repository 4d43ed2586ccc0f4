// The reference price of a listing: the one a rule's discount is measured against, the one an
// alert, /listing, a quote and the portfolio show. Defined once so they never disagree.
import type { Listing } from "./schemas.ts";

/**
 * The listing-level reference when it carries one (it is the marketplace's estimate for this
 * item's float and stickers, hence predicted_price first), else the item-level one; within each,
 * predicted_price before base_price. Absent, not finite or <= 0: no reference.
 */
export function referencePriceOf(listing: Pick<Listing, "reference" | "item">): number | undefined {
  const ref =
    listing.reference?.predicted_price ??
    listing.reference?.base_price ??
    listing.item.reference?.predicted_price ??
    listing.item.reference?.base_price;
  return ref !== undefined && Number.isFinite(ref) && ref > 0 ? ref : undefined;
}

/** The same reference, in whole cents, for people. */
export function referenceCentsOf(listing: Pick<Listing, "reference" | "item">): number | undefined {
  const ref = referencePriceOf(listing);
  return ref === undefined ? undefined : Math.round(ref);
}

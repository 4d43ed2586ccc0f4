// Marketplace rules read off records: auction bid increments, the next bid, the lowest offer accepted.
import type { AuctionRec, ListingRec } from "./records.ts";

/** Auction bid increment: the step above the standing price a competing bid must reach. */
export function bidIncrement(price: number): number {
  if (price < 1_000) return 10;
  if (price < 10_000) return 50;
  if (price < 100_000) return 100;
  return 500;
}

/** Lowest offer the seller accepts: price less the allowed discount, rounded up to a cent. */
export function minOfferPrice(l: ListingRec): number {
  return Math.ceil((l.price * (10_000 - l.maxOfferDiscount)) / 10_000);
}

export function minNextBid(a: AuctionRec, standing: number): number {
  return a.leader ? standing + bidIncrement(standing) : a.reservePrice;
}

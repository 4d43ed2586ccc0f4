// Marketplace rules read off records: auction bid increments, the next bid, the lowest offer accepted.
import type { AuctionRec, ListingRec } from "./records.ts";

/**
 * Auction steps by standing price (cents): [below this price, the step]. Consistent with every step
 * recorded live (docs/live-service.md): +5c at $0.15, +$1 at $54, +$2.50 at $245, +$5 at
 * $318-478, +$10 at $796-962, +$25 at $1,455; the bands between are the usual ladder.
 */
export const BID_STEPS: readonly (readonly [below: number, step: number])[] = [
  [100, 5],
  [500, 25],
  [2_500, 50],
  [10_000, 100],
  [25_000, 250],
  [50_000, 500],
  [100_000, 1_000],
  [250_000, 2_500],
  [500_000, 5_000],
];
const TOP_STEP = 10_000;

/** Auction bid increment: the step above the standing price a competing bid must reach. */
export function bidIncrement(price: number): number {
  for (const [below, step] of BID_STEPS) if (price < below) return step;
  return TOP_STEP;
}

/** Lowest offer the seller accepts: price less the allowed discount, rounded up to a cent. */
export function minOfferPrice(l: ListingRec): number {
  return Math.ceil((l.price * (10_000 - l.maxOfferDiscount)) / 10_000);
}

export function minNextBid(a: AuctionRec, standing: number): number {
  return a.leader ? standing + bidIncrement(standing) : a.reservePrice;
}

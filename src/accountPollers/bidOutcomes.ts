// What one read of an auction means for a tracked bid: who leads, and the alerts an outcome sends.
import { centsFromDb } from "../db/types.ts";
import type { Bid, Listing } from "../market/schemas.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { NewAlert } from "../outbox/store.ts";
import type { PollUser } from "./accounts.ts";

export type BidStatus = "active" | "outbid" | "won" | "lost" | "cancelled";

export type TrackedWithUser = {
  id: number;
  userId: number;
  listingId: string;
  maxPriceCents: bigint;
  status: BidStatus;
  /** When the auction ends, as last read (null until read). */
  expiresAt: Date | null;
  user: PollUser & { alertOutbid: boolean };
};

/** What became of one tracked bid after a read; undefined: not known yet, nothing changes. */
export type Outcome = { status: BidStatus; spentCents?: number; alert?: NewAlert };

export function toDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Who leads a running auction, from its standing price: above our ceiling a rival leads, below it
 * we do (proxy bidding never raises the price past the leader's ceiling). At exactly our ceiling
 * the earlier of two equal ceilings leads, which the price cannot tell: what was known stands.
 */
export function leadStatus(previous: BidStatus, top: Bid | undefined, max: number): "active" | "outbid" {
  if (top === undefined || top.price < max) return "active";
  if (top.price > max) return "outbid";
  return previous === "outbid" ? "outbid" : "active";
}

export const FINAL: ReadonlySet<BidStatus> = new Set(["won", "lost", "cancelled"]);

/** Whether this read shows the user leading; null when it cannot tell (no bid, or a tie). */
export function topIsUser(status: BidStatus, top: Bid | undefined, max: number): boolean | null {
  if (top === undefined) return null;
  if (status === "won") return true;
  if (status === "outbid" || status === "lost") return false;
  return top.price < max ? true : top.price > max ? false : null;
}

export function endedAlert(
  bid: TrackedWithUser,
  listingId: string,
  itemName: string,
  won: boolean,
  finalPriceCents: number | undefined,
): NewAlert {
  return {
    userId: bid.userId,
    kind: won ? "auction_won" : "auction_lost",
    subjectId: listingId,
    version: won ? "won" : "lost",
    dedupeKey: dedupeKey.auctionEnded(bid.userId, listingId),
    destination: "dm",
    alert: {
      kind: "auction_ended",
      outcome: won ? "won" : "lost",
      listingId,
      itemName,
      yourMaxCents: centsFromDb(bid.maxPriceCents),
      ...(finalPriceCents === undefined ? {} : { finalPriceCents }),
    },
  };
}

export function outbidAlert(
  bid: TrackedWithUser,
  listing: Listing,
  top: Bid,
  expiresAt: Date | undefined,
): NewAlert {
  const details = listing.auction_details;
  return {
    userId: bid.userId,
    kind: "outbid",
    subjectId: listing.id,
    version: String(top.price),
    dedupeKey: dedupeKey.outbid(bid.userId, listing.id, top.id),
    destination: "dm",
    alert: {
      kind: "outbid",
      listingId: listing.id,
      itemName: listing.item.market_hash_name,
      yourMaxCents: centsFromDb(bid.maxPriceCents),
      topBidCents: top.price,
      ...(details?.min_next_bid === undefined ? {} : { minNextBidCents: details.min_next_bid }),
      ...(expiresAt === undefined ? {} : { expiresAt: expiresAt.toISOString() }),
    },
  };
}

// Plain views of marketplace resources handed to command handlers: cents, ids and Dates only.
import { toDate } from "../util/dates.ts";
import { referenceCentsOf } from "../market/reference.ts";
import type { Cents } from "../money.ts";
import type { Bid, Listing, ListingType, Offer, Trade } from "../market/schemas.ts";

/** Parses an API timestamp; an unparsable one is treated as absent rather than as "Invalid Date". */

/**
 * An empty page ends the walk even when the service still hands out a cursor; a short page
 * does not (filtered pages may come back short while more remain).
 */
export function nextCursor(cursor: string | undefined, received: number): string | undefined {
  return cursor && received > 0 ? cursor : undefined;
}

export interface AuctionView {
  topBidCents: Cents | undefined;
  minNextBidCents: Cents | undefined;
  reservePriceCents: Cents | undefined;
  expiresAt: Date | undefined;
}

export interface ListingSummary {
  listingId: string;
  type: ListingType;
  /** listed, sold, delisted, refunded (kept open for states the service adds). */
  state: string;
  priceCents: Cents;
  itemName: string;
  floatValue: number | undefined;
  paintSeed: number | undefined;
  paintIndex: number | undefined;
  sellerPlatformId: string | undefined;
  sellerName: string | undefined;
  isSeller: boolean;
  /** The service's estimate of the item's worth, rounded to cents (it may send fractions). */
  referencePriceCents: Cents | undefined;
  maxOfferDiscountBps: number | undefined;
  minOfferPriceCents: Cents | undefined;
  auction: AuctionView | undefined;
  createdAt: Date | undefined;
  soldAt: Date | undefined;
}

export function auctionViewOf(listing: Listing): AuctionView | undefined {
  if (listing.type !== "auction") return undefined;
  const details = listing.auction_details;
  return {
    topBidCents: details?.top_bid?.price,
    minNextBidCents: minNextBidOf(listing),
    reservePriceCents: details?.reserve_price,
    expiresAt: toDate(details?.expires_at),
  };
}

/**
 * The least a new bid must offer. The service states it as min_next_bid; before the first bid
 * some answers carry only the reserve price, which is then the floor.
 */
export function minNextBidOf(listing: Listing): Cents | undefined {
  const details = listing.auction_details;
  return details?.min_next_bid ?? (details?.top_bid ? undefined : details?.reserve_price);
}

export function toListingSummary(listing: Listing): ListingSummary {
  return {
    listingId: listing.id,
    type: listing.type,
    state: listing.state,
    priceCents: listing.price,
    itemName: listing.item.market_hash_name,
    floatValue: listing.item.float_value,
    paintSeed: listing.item.paint_seed,
    paintIndex: listing.item.paint_index,
    sellerPlatformId: listing.seller?.platform_id,
    sellerName: listing.seller?.username,
    isSeller: listing.is_seller === true,
    referencePriceCents: referenceCentsOf(listing),
    maxOfferDiscountBps: listing.max_offer_discount,
    minOfferPriceCents: listing.min_offer_price,
    auction: auctionViewOf(listing),
    createdAt: toDate(listing.created_at),
    soldAt: toDate(listing.sold_at),
  };
}

export interface BidView {
  bidId: string;
  priceCents: Cents;
  state: string | undefined;
  bidder: string | undefined;
  createdAt: Date | undefined;
}

export function toBidView(bid: Bid): BidView {
  return {
    bidId: bid.id,
    priceCents: bid.price,
    state: bid.state,
    bidder: bid.obfuscated_buyer_id,
    createdAt: toDate(bid.created_at),
  };
}

export interface OfferView {
  offerId: string;
  listingId: string;
  priceCents: Cents;
  listingPriceCents: Cents | undefined;
  state: string | undefined;
  type: string | undefined;
  itemName: string | undefined;
  buyerName: string | undefined;
  createdAt: Date | undefined;
  expiresAt: Date | undefined;
}

export function toOfferView(offer: Offer): OfferView {
  return {
    offerId: offer.id,
    listingId: offer.contract_id,
    priceCents: offer.price,
    listingPriceCents: offer.contract_price ?? offer.contract?.price,
    state: offer.state,
    type: offer.type,
    itemName: offer.contract?.item.market_hash_name,
    buyerName: offer.buyer?.username,
    createdAt: toDate(offer.created_at),
    expiresAt: toDate(offer.expires_at),
  };
}

/**
 * A trade as callers may see it. Built field by field from an allow-list, so the trade token
 * and trade URL (secret-like: they let anyone send the transfer offer) can never reach a
 * handler, a message or a log line through this type.
 */
export interface TradeView {
  tradeId: string;
  /** queued (waiting on the seller), pending, verified, failed, cancelled. */
  state: string;
  listingId: string | undefined;
  itemName: string | undefined;
  priceCents: Cents | undefined;
  buyerId: string | undefined;
  sellerId: string | undefined;
  buyerName: string | undefined;
  sellerName: string | undefined;
  verificationMode: string | undefined;
  createdAt: Date | undefined;
  acceptedAt: Date | undefined;
  verifiedAt: Date | undefined;
  /** When the trade lapses if nobody acts (for a queued trade: the seller's time to accept). */
  expiresAt: Date | undefined;
  /** Deadline for the item transfer offer on the platform, once one exists. */
  transferDeadlineAt: Date | undefined;
  transferSentAt: Date | undefined;
  tradeProtectionEndsAt: Date | undefined;
  isSettlementPeriod: boolean | undefined;
}

/**
 * Until when a verified trade can still be reversed: the trade's own trade_protection_ends_at
 * (spec 2.8), else its verification plus `fallbackMs` (REVERSAL_WINDOW_HOURS). Undefined for a
 * trade that is not verified.
 */
export function reversalWindowEnd(t: TradeView, fallbackMs: number): Date | undefined {
  if (t.state !== "verified") return undefined;
  if (t.tradeProtectionEndsAt) return t.tradeProtectionEndsAt;
  return t.verifiedAt ? new Date(t.verifiedAt.getTime() + fallbackMs) : undefined;
}

export function toTradeView(trade: Trade): TradeView {
  return {
    tradeId: trade.id,
    state: trade.state,
    listingId: trade.contract_id ?? trade.contract?.id,
    itemName: trade.contract?.item.market_hash_name,
    priceCents: trade.contract?.price,
    buyerId: trade.buyer_id ?? trade.buyer?.platform_id,
    sellerId: trade.seller_id ?? trade.seller?.platform_id,
    buyerName: trade.buyer?.username,
    sellerName: trade.seller?.username,
    verificationMode: trade.verification_mode,
    createdAt: toDate(trade.created_at),
    acceptedAt: toDate(trade.accepted_at),
    verifiedAt: toDate(trade.verified_at),
    expiresAt: toDate(trade.expires_at),
    transferDeadlineAt: toDate(trade.platform_offer?.deadline_at),
    transferSentAt: toDate(trade.platform_offer?.sent_at),
    tradeProtectionEndsAt: toDate(trade.trade_protection_ends_at),
    isSettlementPeriod: trade.is_settlement_period,
  };
}

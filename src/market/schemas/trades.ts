// Schemas of offers and trades (spec section 2): an offer on a listing, a trade with its platform
// offer, trade states, and the trade and offer pages and envelopes.
import { z } from "zod";
import { Listing, UserSummary } from "./listings.ts";
import { Cents, Id, LooseInt, LooseNumber, Timestamp, lenient, opt, tolerantArray } from "./primitives.ts";

export const Offer = z.object({
  id: Id,
  contract_id: Id,
  buyer_id: opt(z.string()),
  message_id: opt(z.string()),
  created_at: opt(Timestamp),
  expires_at: opt(Timestamp),
  contract_price: opt(Cents),
  price: Cents,
  type: opt(z.string()),
  state: opt(z.string()),
  buyer: lenient(UserSummary, "offer.buyer"),
  contract: lenient(Listing, "offer.contract"),
});
export type Offer = z.infer<typeof Offer>;

export const TradeState = z.string();
export const PlatformOffer = z.object({
  id: opt(z.string()),
  state: opt(LooseNumber),
  is_from_seller: opt(z.boolean()),
  sent_at: opt(Timestamp),
  updated_at: opt(Timestamp),
  deadline_at: opt(Timestamp),
  can_cancel_at: opt(Timestamp),
});

export const Trade = z.object({
  id: Id,
  buyer_id: opt(z.string()),
  seller_id: opt(z.string()),
  contract_id: opt(Id),
  created_at: opt(Timestamp),
  accepted_at: opt(Timestamp),
  verified_at: opt(Timestamp),
  expires_at: opt(Timestamp),
  buyer: lenient(UserSummary, "trade.buyer"),
  seller: lenient(UserSummary, "trade.seller"),
  contract: lenient(Listing, "trade.contract"),
  /** queued (waiting on the seller), pending, verified, failed, cancelled (docs/live-service.md). */
  state: TradeState,
  verification_mode: opt(z.string()),
  /** Sensitive: never logged or shown. */
  trade_token: opt(z.string()),
  trade_url: opt(z.string()),
  platform_offer: lenient(PlatformOffer, "trade.platform_offer"),
  inventory_check_status: opt(LooseNumber),
  verify_sale_at: opt(Timestamp),
  trade_protection_ends_at: opt(Timestamp),
  seller_blocked_buyer_at: opt(Timestamp),
  wait_for_cancel_ping: opt(z.boolean()),
  is_settlement_period: opt(z.boolean()),
  sent_to_different_user_id: opt(z.string()),
});
export type Trade = z.infer<typeof Trade>;

export const TRADE_STATES = ["queued", "pending", "verified", "failed", "cancelled"] as const;

export const TradesEnvelope = z.preprocess(
  // Bulk accept's envelope is not in the spec: take `{ data }`, `{ trades }` or a bare array.
  (v) =>
    Array.isArray(v)
      ? { data: v }
      : typeof v === "object" && v !== null && !("data" in v) && "trades" in v
        ? { data: v.trades }
        : v,
  z.object({ data: tolerantArray(Trade, "trade") }),
);
export const OffersTimelinePage = z.object({ offers: tolerantArray(Offer, "offer") });
export type OffersTimelinePage = z.infer<typeof OffersTimelinePage>;
export const TradesPage = z.object({ trades: tolerantArray(Trade, "trade"), count: opt(LooseInt) });
export type TradesPage = z.infer<typeof TradesPage>;

/**
 * The answer to POST /listings/buy (2xx): the trades it opened, or live only a message (a
 * live-tested SDK: `{ "message": "all listings purchased" }`), read as a success with no trades.
 */
export const PurchaseAnswer = z.union([
  TradesEnvelope.transform((e) => e.data),
  z.object({ message: z.string() }).transform((): Trade[] => []),
]);

// zod schemas for every marketplace resource (spec section 2). The reading policy (ADR 011):
// tolerant where the live service varies (unknown fields ignored, numeric strings read as
// numbers, null read as absent, one unreadable list element dropped and counted instead of
// failing the page), strict where a wrong value would mislead the user (ids, the prices of what
// is bought or bid on). Types are derived from the schemas.
import { z } from "zod";
import { Item, Listing, ReferencePrice, UserSummary } from "./schemas/listings.ts";
import {
  Cents,
  Id,
  LooseInt,
  LooseNumber,
  LooseString,
  SignedAmount,
  Timestamp,
  lenient,
  opt,
  tolerantArray,
} from "./schemas/primitives.ts";

export {
  Cents,
  ErrorBody,
  Id,
  LooseInt,
  LooseNumber,
  LooseString,
  SignedAmount,
  Timestamp,
  collectDropped,
  tolerantArray,
} from "./schemas/primitives.ts";
export type { DroppedElement } from "./schemas/primitives.ts";
export * from "./schemas/listings.ts";
export * from "./schemas/buyOrders.ts";

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

export const TransactionType = z.enum([
  "deposit",
  "withdrawal",
  "fine",
  "bid_posted",
  "trade_verified",
  "contract_purchased",
  "contract_sold",
  "contract_purchase_refund",
  "contract_sale_refund",
  "rollback",
]);
export type TransactionType = z.infer<typeof TransactionType>;

export const Transaction = z.object({
  id: LooseString,
  user_id: opt(z.string()),
  created_at: opt(Timestamp),
  type: z.string(),
  balance_offset: opt(SignedAmount),
  pending_offset: opt(SignedAmount),
  details: lenient(
    z.object({
      bid_id: opt(LooseString),
      listing_id: opt(LooseString),
      contract_id: opt(LooseString),
      trade_id: opt(LooseString),
      original_tx: opt(LooseString),
      session_id: opt(LooseString),
      type: opt(LooseString),
      reason: opt(LooseString),
      grantor: opt(LooseString),
      fee: opt(LooseString),
      exchange_rate: opt(LooseString),
      payment_method: opt(LooseString),
      payment_processor: opt(LooseString),
      fee_amount: opt(LooseNumber),
      /** Not in the spec; a live-tested client decodes it as a string. */
      float_fee: opt(LooseString),
    }),
    "transaction.details",
  ),
});
export type Transaction = z.infer<typeof Transaction>;

export const HistoryPoint = z.object({
  day: z.string(),
  count: LooseNumber,
  /** Cents; may be fractional. */
  avg_price: LooseNumber,
});
export type HistoryPoint = z.infer<typeof HistoryPoint>;

/**
 * One past sale of GET /history/{name}/sales. The spec says "array of Listing"; public clients
 * model `{ price, sold_at, item, reference }` only, so everything but the price is optional.
 */
export const SaleEntry = z.object({
  id: opt(Id),
  price: Cents,
  sold_at: opt(Timestamp),
  created_at: opt(Timestamp),
  type: opt(z.string()),
  state: opt(z.string()),
  item: lenient(Item, "sale.item"),
  reference: lenient(ReferencePrice, "sale.reference"),
});
export type SaleEntry = z.infer<typeof SaleEntry>;
export const SaleEntries = tolerantArray(SaleEntry, "sale");

export const TRADE_STATES = ["queued", "pending", "verified", "failed", "cancelled"] as const;

// Response envelopes (spec section 4). Cursors: an absent or empty cursor means "no more pages".

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
export const TransactionsPage = z.object({
  transactions: tolerantArray(Transaction, "transaction"),
  count: opt(LooseInt),
});
export type TransactionsPage = z.infer<typeof TransactionsPage>;

/** GET /me (not in the spec): who the key belongs to and, when told, the balance in cents. */
export const Me = z.preprocess(
  (v) => {
    if (typeof v !== "object" || v === null) return v;
    // Seen shapes: { user, balance }, { user: { ..., balance } } and a bare user summary.
    const wrapped: Record<string, unknown> = "user" in v ? { ...v } : { user: v };
    const user = wrapped["user"];
    if (wrapped["balance"] === undefined && typeof user === "object" && user !== null && "balance" in user) {
      wrapped["balance"] = user.balance;
    }
    return wrapped;
  },
  z.object({ user: UserSummary, balance: opt(LooseNumber) }),
);
export type Me = z.infer<typeof Me>;

/** Bare lists of the spec, read element by element. */
export const HistoryPoints = tolerantArray(HistoryPoint, "history point");

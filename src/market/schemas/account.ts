// Schemas of the account's own records (spec section 2): the ledger's transactions, price history
// and past sales, and who a key belongs to (GET /me).
import { z } from "zod";
import { Item, ReferencePrice, UserSummary } from "./listings.ts";
import {
  Cents,
  Id,
  LooseInt,
  LooseNumber,
  LooseString,
  Timestamp,
  lenient,
  opt,
  signedCents,
  tolerantArray,
} from "./primitives.ts";

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
  /** Signed integer cents; any other form reads as unreadable, never guessed (docs/live-service.md). */
  balance_offset: signedCents("transaction.balance_offset"),
  pending_offset: signedCents("transaction.pending_offset"),
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
export const HistoryPoints = tolerantArray(HistoryPoint, "history point");

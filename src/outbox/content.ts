// The dedupe keys that make each alert unique, and the trade alert's payload (plain data) from a trade.
// A listing alert's payload is the watch feature's (src/watch/listingAlertContent.ts).
import type { Trade } from "../market/schemas.ts";
import type { TradeAlert } from "./payload.ts";

/** Dedupe keys: one place, so two pollers (or two replicas) can never spell one alert two ways. */
export const dedupeKey = {
  /**
   * One alert per listing, user and destination (the user's matching rules share it): DMs have
   * no channel, a channel alert names its channel.
   */
  listing: (userId: number, listingId: string, channelId?: string | null) =>
    `listing:u${userId}:${listingId}${channelId == null ? "" : `:c${channelId}`}`,
  /** One armed match: what the rule did (or would have done) with the listing. */
  autoBuy: (ruleId: number | string, listingId: string) => `autobuy:${ruleId}:${listingId}`,
  outbid: (userId: number, listingId: string, topBid: string) => `outbid:${userId}:${listingId}:${topBid}`,
  auctionEnded: (userId: number, listingId: string) => `auction:${userId}:${listingId}`,
  /**
   * The nth time a trade reaches `state` (a trade can come back to an earlier state): the first
   * keeps the plain key, later ones add their number.
   */
  trade: (userId: number, tradeId: string, state: string, nth = 1) =>
    `trade:${userId}:${tradeId}:${state}${nth > 1 ? `:${nth}` : ""}`,
  /** Per deadline: a trade back in a state with a new deadline is reminded again. */
  tradeReminder: (userId: number, tradeId: string, state: string, step: number, deadline: Date) =>
    `trade_reminder:${userId}:${tradeId}:${state}:${step}:${Math.floor(deadline.getTime() / 1000)}`,
  buyOrderFill: (userId: number, orderId: string, boughtCount: number) =>
    `buyorder:${userId}:${orderId}:${boughtCount}`,
  keyRevoked: (userId: number, n: number | string) => `key_revoked:${userId}:${n}`,
  /** One notice per user and gap, the gap named by the listings either side of it. */
  feedGap: (userId: number, afterId: string, beforeId: string) => `feed_gap:${userId}:${afterId}:${beforeId}`,
  /** One missed-deal report per user and ISO week ("2026-W48"). */
  weeklyReport: (userId: number, isoWeek: string) => `weekly_report:${userId}:${isoWeek}`,
  /** One automatic accept per sale, and once more when an unknown outcome is found out. */
  autoAccept: (userId: number, tradeId: string, which: "first" | "settled" = "first") =>
    `auto_accept:${userId}:${tradeId}${which === "settled" ? ":settled" : ""}`,
  /** A guard digest, named by the newest event it carries (each event is told once). */
  guardDigest: (userId: number, lastEventId: number) => `guard_digest:${userId}:${lastEventId}`,
  /** One alert per reversing ledger entry, ever. */
  reversal: (userId: number, transactionId: string) => `reversal:${userId}:${transactionId}`,
};

/**
 * The deadline a trade's user must act by: the transfer offer's deadline once the trade is
 * accepted, else the trade's own expiry (for a queued trade: the time left to accept).
 */
export function tradeDeadline(trade: Trade): Date | undefined {
  const raw =
    trade.state === "pending" ? (trade.platform_offer?.deadline_at ?? trade.expires_at) : trade.expires_at;
  if (raw === undefined) return undefined;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? undefined : new Date(t);
}

export function tradeAlertOf(
  trade: Trade,
  role: "buyer" | "seller",
  extra: { previousState?: string | undefined; reminderMinutes?: number | undefined } = {},
): TradeAlert {
  const deadline = tradeDeadline(trade);
  const a: TradeAlert = { kind: "trade", tradeId: trade.id, role, state: trade.state };
  if (extra.previousState !== undefined) a.previousState = extra.previousState;
  if (extra.reminderMinutes !== undefined) a.reminderMinutes = extra.reminderMinutes;
  if (trade.contract?.item.market_hash_name !== undefined) a.itemName = trade.contract.item.market_hash_name;
  if (trade.contract?.price !== undefined) a.priceCents = trade.contract.price;
  if (deadline !== undefined && (trade.state === "queued" || trade.state === "pending")) {
    a.deadline = deadline.toISOString();
  }
  return a;
}

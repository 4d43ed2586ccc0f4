// Builds alert payloads (plain data) from marketplace resources, and the dedupe keys that make each alert unique.
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import { itemLinksOf } from "../../market/links.ts";
import type { Listing, Trade } from "../../market/schemas.ts";
import { discountPercent } from "../../money.ts";
import { dealOf } from "../rules/deal.ts";
import type { AppliedExtra, ListingAlert, TradeAlert } from "./payload.ts";
import { describeFilters } from "../rules/describeFilters.ts";
import { referencePriceOf, type RuleFilters } from "../rules/ruleFilters.ts";

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

function isoOrUndefined(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

function extras(
  list: ReadonlyArray<{
    name?: string | undefined;
    slot?: number | undefined;
    wear?: number | undefined;
    stickerId: number;
  }>,
): AppliedExtra[] {
  return list.map((s) => ({
    name: s.name ?? `#${s.stickerId}`,
    ...(s.slot === undefined ? {} : { slot: s.slot }),
    ...(s.wear === undefined ? {} : { wear: s.wear }),
  }));
}

const oneDecimal = (x: number) => Math.round(x * 10) / 10;

/** Deal-quality fields of a listing alert; each only when the listing has its data. */
function dealFieldsOf(listing: Listing, fees: FeeModel): Partial<ListingAlert> {
  const d = dealOf(listing, fees, referencePriceOf);
  const a: Partial<ListingAlert> = {};
  if (d.netResaleCents !== undefined) a.netResaleCents = d.netResaleCents;
  if (d.netResalePercent !== undefined) a.netResalePercent = oneDecimal(d.netResalePercent);
  if (d.exitCents !== undefined && d.exitBuyOrderCents !== undefined) {
    a.exitCents = d.exitCents;
    a.exitBuyOrderCents = d.exitBuyOrderCents;
  }
  if (a.netResaleCents !== undefined || a.exitCents !== undefined) a.sellerFeeBps = fees.sellerFeeBps;
  if (d.fadePercent !== undefined) {
    a.fade = {
      percent: d.fadePercent,
      ...(d.fadeRank !== undefined && Number.isInteger(d.fadeRank) ? { rank: d.fadeRank } : {}),
    };
  }
  if (d.playsideBlue !== undefined || d.backsideBlue !== undefined) {
    a.blueGem = {
      ...(d.playsideBlue === undefined ? {} : { playside: d.playsideBlue }),
      ...(d.backsideBlue === undefined ? {} : { backside: d.backsideBlue }),
    };
  }
  if (d.floatRank !== undefined && Number.isInteger(d.floatRank)) a.floatRank = d.floatRank;
  // No stickers, or none with a price: nothing worth a field.
  if (d.stickerValueCents !== undefined && d.stickerValueCents > 0) {
    a.stickerValueCents = d.stickerValueCents;
    if (d.stickerPercent !== undefined) a.stickerPercent = oneDecimal(d.stickerPercent);
  }
  return a;
}

/** `fees`: the seller fee the profit figures assume (the configured one in the running bot). */
export function listingAlertOf(
  listing: Listing,
  rule: { id: number; name: string; filters: RuleFilters },
  fees: FeeModel = DEFAULT_FEES,
  screenshotTemplate?: string,
): ListingAlert {
  const item = listing.item;
  const ref = referencePriceOf(listing);
  const discount = discountPercent(listing.price, ref);
  const auction = listing.auction_details;
  const a: ListingAlert = {
    kind: "listing",
    ruleId: String(rule.id),
    ruleName: rule.name,
    ruleSummary: describeFilters(rule.filters),
    listingId: listing.id,
    listingType: listing.type,
    itemName: item.market_hash_name,
    priceCents: listing.price,
    stickers: extras(item.stickers ?? []),
    keychains: extras(item.keychains ?? []),
    ...dealFieldsOf(listing, fees),
    ...itemLinksOf(listing, screenshotTemplate),
  };
  if (item.float_value !== undefined) a.floatValue = item.float_value;
  if (item.paint_seed !== undefined) a.paintSeed = item.paint_seed;
  if (item.paint_index !== undefined) a.paintIndex = item.paint_index;
  if (ref !== undefined) a.referenceCents = Math.round(ref);
  if (discount !== undefined) a.discountPercent = Math.round(discount * 10) / 10;
  if (item.icon_url !== undefined) a.iconUrl = item.icon_url;
  if (listing.seller?.username !== undefined) a.sellerName = listing.seller.username;
  const listedAt = isoOrUndefined(listing.created_at);
  if (listedAt !== undefined) a.listedAt = listedAt;
  if (listing.type === "auction") {
    const expiresAt = isoOrUndefined(auction?.expires_at);
    a.auction = {
      ...(auction?.top_bid?.price === undefined ? {} : { topBidCents: auction.top_bid.price }),
      ...(auction?.min_next_bid === undefined ? {} : { minNextBidCents: auction.min_next_bid }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }
  return a;
}

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

// What an outbox row carries: the facts of one alert as plain data (zod), rendered to Discord at send time.
import { z } from "zod";

/**
 * Payloads are data, not Discord messages: the Discord side (src/discord/render/alerts/alerts.ts)
 * turns them into embeds and buttons when the row is sent, so buttons get fresh custom ids
 * from the codec and a rendering fix reaches alerts already queued. See ADR 004.
 */
export const PAYLOAD_VERSION = 1;

const Id = z.string().regex(/^\d+$/);
const Cents = z.number().int().min(0);
/** A profit: negative for a loss. */
const SignedCents = z.number().int();
/** ISO 8601 instant; kept as text so the payload survives JSON unchanged. */
const Instant = z.iso.datetime({ offset: true });

export const AppliedExtra = z.object({
  name: z.string(),
  slot: z.number().int().optional(),
  wear: z.number().optional(),
});
export type AppliedExtra = z.infer<typeof AppliedExtra>;

/** Most rules a listing alert names besides its first; the rest are counted ("+N more"). */
export const MAX_OTHER_RULES = 10;

export const RuleRef = z.object({ ruleId: z.string().min(1), ruleName: z.string() });
export type RuleRef = z.infer<typeof RuleRef>;

/**
 * One listing for one user and destination: every rule of theirs it matched is named here (the
 * oldest as ruleId/ruleName, the others in otherRules), the listing's figures once.
 */
export const ListingAlert = z.object({
  kind: z.literal("listing"),
  ruleId: z.string().min(1),
  ruleName: z.string(),
  /** describeFilters() of the rule when it matched, so the user sees why. */
  ruleSummary: z.string(),
  /** The user's other rules that matched the same listing, oldest first (absent: none). */
  otherRules: z.array(RuleRef).max(MAX_OTHER_RULES).optional(),
  /** Matched rules beyond otherRules, counted, not named. */
  otherRulesOmitted: z.number().int().min(0).optional(),
  listingId: Id,
  listingType: z.enum(["buy_now", "auction"]),
  itemName: z.string(),
  priceCents: Cents,
  floatValue: z.number().min(0).max(1).optional(),
  paintSeed: z.number().int().optional(),
  paintIndex: z.number().int().optional(),
  stickers: z.array(AppliedExtra).default([]),
  keychains: z.array(AppliedExtra).default([]),
  referenceCents: Cents.optional(),
  /** Percent below the reference (negative: above it). */
  discountPercent: z.number().optional(),
  iconUrl: z.string().optional(),
  /** The game's inspect link of the item, when the listing carries one. */
  inspectLink: z.string().max(512).optional(),
  /** The marketplace's screenshot of the item (an id the market client turns into a link). */
  screenshotUrl: z.string().max(512).optional(),
  sellerName: z.string().optional(),
  auction: z
    .object({
      topBidCents: Cents.optional(),
      minNextBidCents: Cents.optional(),
      expiresAt: Instant.optional(),
    })
    .optional(),
  listedAt: Instant.optional(),
  // Deal quality (absent in payloads queued before it existed, and when the listing lacks the data).
  /** Profit of a resale at the reference after the seller fee, and as a percent of the price. */
  netResaleCents: SignedCents.optional(),
  netResalePercent: z.number().optional(),
  /** Profit of selling at once to the highest buy order (exitBuyOrderCents) after the fee. */
  exitCents: SignedCents.optional(),
  exitBuyOrderCents: Cents.optional(),
  /** The seller fee the profits assume, basis points (200 = 2%). */
  sellerFeeBps: z.number().int().min(0).max(10_000).optional(),
  fade: z.object({ percent: z.number(), rank: z.number().int().optional() }).optional(),
  blueGem: z.object({ playside: z.number().optional(), backside: z.number().optional() }).optional(),
  /** item.low_rank: 1 is the lowest float of its kind. */
  floatRank: z.number().int().min(1).optional(),
  stickerValueCents: Cents.optional(),
  stickerPercent: z.number().optional(),
});
export type ListingAlert = z.infer<typeof ListingAlert>;

export const OutbidAlert = z.object({
  kind: z.literal("outbid"),
  listingId: Id,
  itemName: z.string(),
  yourMaxCents: Cents,
  topBidCents: Cents,
  minNextBidCents: Cents.optional(),
  expiresAt: Instant.optional(),
});
export type OutbidAlert = z.infer<typeof OutbidAlert>;

export const AuctionEndedAlert = z.object({
  kind: z.literal("auction_ended"),
  outcome: z.enum(["won", "lost"]),
  listingId: Id,
  itemName: z.string(),
  yourMaxCents: Cents,
  finalPriceCents: Cents.optional(),
});
export type AuctionEndedAlert = z.infer<typeof AuctionEndedAlert>;

export const TradeAlert = z.object({
  kind: z.literal("trade"),
  tradeId: Id,
  role: z.enum(["buyer", "seller"]),
  /** queued, pending, verified, failed, cancelled (kept open for new states). */
  state: z.string(),
  previousState: z.string().optional(),
  itemName: z.string().optional(),
  priceCents: Cents.optional(),
  /** When the user must act by (accept, or send the transfer offer). */
  deadline: Instant.optional(),
  /** Set on reminders: minutes left when the reminder was due. */
  reminderMinutes: z.number().int().positive().optional(),
});
export type TradeAlert = z.infer<typeof TradeAlert>;

export const BuyOrderFillAlert = z.object({
  kind: z.literal("buy_order_fill"),
  orderId: Id,
  /** Absent on advanced orders made on the website, which carry `expression` instead. */
  itemName: z.string().optional(),
  /** An advanced order's filter, as the marketplace sent it. */
  expression: z.string().optional(),
  priceCents: Cents,
  boughtCount: z.number().int().min(0),
  newlyBought: z.number().int().positive(),
  quantity: z.number().int().min(0),
});
export type BuyOrderFillAlert = z.infer<typeof BuyOrderFillAlert>;

/**
 * The real outcome of an action whose answer was lost (a timeout, a restart mid-request), found
 * out later from the marketplace's records.
 */
export const SettlementAlert = z.object({
  kind: z.literal("settlement"),
  action: z.enum(["buy", "bid", "buy_order", "offer"]),
  /**
   * went_through: money was spent; stands: the bid, order or offer is in place; ended: it landed
   * but no longer stands (outbid, closed); did_not_go_through: nothing happened.
   */
  outcome: z.enum(["went_through", "stands", "ended", "did_not_go_through"]),
  amountCents: Cents,
  /** The listing, or the buy order once known. */
  subjectId: Id.optional(),
  /** What settled it, e.g. "trade 9001" or "sold to another buyer". */
  detail: z.string(),
  /** When the action was taken. */
  since: Instant,
});
export type SettlementAlert = z.infer<typeof SettlementAlert>;

export const KeyRevokedAlert = z.object({
  kind: z.literal("key_revoked"),
  /** The automation the refusal stopped, in words (src/automation/describe.ts). */
  stopped: z.string().max(1000).optional(),
});
export type KeyRevokedAlert = z.infer<typeof KeyRevokedAlert>;

/**
 * New listings the feed could not read (more arrived than the rate budget let it read in time,
 * or the service dropped its place): the user's rules may have missed a match among them.
 */
export const FeedGapAlert = z.object({
  kind: z.literal("feed_gap"),
  /** The skipped listings were created after this instant... */
  after: Instant.optional(),
  /** ...and before this one, as far as the marketplace's timestamps tell. */
  before: Instant.optional(),
  reason: z.enum(["too_slow", "cursor_expired"]),
  /** The user's enabled rules that existed then. */
  ruleCount: z.number().int().positive(),
});
export type FeedGapAlert = z.infer<typeof FeedGapAlert>;

/** The week's missed deals: listing alerts whose listing left the market before the user bought it. */
export const WeeklyReportAlert = z.object({
  kind: z.literal("weekly_report"),
  /** ISO week the report was made in, e.g. "2026-W48"; it covers the 7 days before. */
  week: z.string().regex(/^\d{4}-W\d{2}$/),
  /** Distinct listings alerted. */
  alerted: z.number().int().min(0),
  missed: z.number().int().min(0),
  /** Median time from the alert to the listing leaving the market, over the missed ones. */
  medianGoneAfterMs: z.number().int().min(0).optional(),
  /** What the missed deals would have netted, resold at their reference price after the seller fee. */
  netCents: Cents,
});
export type WeeklyReportAlert = z.infer<typeof WeeklyReportAlert>;

/**
 * What an armed rule did with a match (src/snipe/autoBuyer.ts): in shadow mode what it would
 * have done, in live mode what happened to the purchase.
 */
export const AutoBuyAlert = z.object({
  kind: z.literal("auto_buy"),
  mode: z.enum(["shadow", "live"]),
  outcome: z.enum([
    "would_buy",
    "would_refuse",
    "bought",
    "lost",
    "cap_refused",
    "key_refused",
    "unknown",
    "failed",
  ]),
  ruleId: z.string().min(1),
  ruleName: z.string(),
  listingId: Id,
  itemName: z.string(),
  priceCents: Cents,
  referenceCents: Cents.optional(),
  /** What resale at the reference would net after the seller fee (negative: a loss). */
  netResaleCents: z.number().int().optional(),
  /** What selling at once to the best buy order would net after the fee. */
  exitNetCents: z.number().int().optional(),
  /** Why, in words, when the outcome needs one (the cap message, the refusal). */
  detail: z.string().optional(),
  /** This match was buy `buyNumber` of `maxBuys` since the rule was armed. */
  buyNumber: z.number().int().min(0),
  maxBuys: z.number().int().min(1),
  /** The rule is no longer armed after this match (its buys are used up, or the key was refused). */
  disarmed: z.boolean(),
  /** From the feed reading the listing to the purchase request leaving. */
  reactionMs: z.number().int().min(0).optional(),
});
export type AutoBuyAlert = z.infer<typeof AutoBuyAlert>;

/**
 * A sale accepted with no press (/trades autoaccept): accepted (send the item by the deadline),
 * failed (accept it by hand before the deadline) or unknown (the answer was lost and the trade
 * could not be read back).
 */
export const AutoAcceptAlert = z.object({
  kind: z.literal("auto_accept"),
  outcome: z.enum(["accepted", "failed", "unknown"]),
  tradeId: Id,
  itemName: z.string().optional(),
  priceCents: Cents.optional(),
  /** accepted: send the item by then; failed: accept it by then. */
  deadline: Instant.optional(),
  detail: z.string().optional(),
});
export type AutoAcceptAlert = z.infer<typeof AutoAcceptAlert>;

/** One thing a guard did: a price change, the daily limit reached, or a stop (and why). */
export const GuardDigestEntry = z.object({
  guardId: z.string().regex(/^\d+$/),
  guard: z.enum(["buy_order", "listing"]),
  subjectId: Id,
  itemName: z.string().optional(),
  event: z.enum(["change", "limit", "stopped"]),
  fromCents: Cents.optional(),
  toCents: Cents.optional(),
  /** The rival price the change answered. */
  rivalCents: Cents.optional(),
  /** The guard's ceiling (buy order) or floor (listing). */
  limitCents: Cents,
  detail: z.string().optional(),
  at: Instant,
});
export type GuardDigestEntry = z.infer<typeof GuardDigestEntry>;

/** A period's guard activity in one DM rather than one DM per change. */
export const GuardDigestAlert = z.object({
  kind: z.literal("guard_digest"),
  entries: z.array(GuardDigestEntry).min(1),
  /** Entries beyond what fits in one message (counted, not listed). */
  omitted: z.number().int().min(0).default(0),
  /** Guards still running after these events (their ids), for the Turn off buttons. */
  activeGuardIds: z.array(z.string().regex(/^\d+$/)).default([]),
});
export type GuardDigestAlert = z.infer<typeof GuardDigestAlert>;

/**
 * A `rollback` in the user's ledger that undoes a trade or a charge (src/portfolio/ledgerEntry.ts
 * isReversal): a sale's proceeds taken back (negative amount) or a purchase refunded (positive).
 */
export const ReversalAlert = z.object({
  kind: z.literal("reversal"),
  transactionId: z.string().min(1).max(40),
  /** Signed change of the balance, cents; absent when the ledger's amount could not be read as cents. */
  amountCents: z.number().int().optional(),
  tradeId: Id.optional(),
  listingId: Id.optional(),
  itemName: z.string().optional(),
  reason: z.string().max(300).optional(),
  at: Instant.optional(),
});
export type ReversalAlert = z.infer<typeof ReversalAlert>;

/** One alert; every kind the pollers write. */
export const SingleAlert = z.discriminatedUnion("kind", [
  ListingAlert,
  OutbidAlert,
  AuctionEndedAlert,
  TradeAlert,
  BuyOrderFillAlert,
  KeyRevokedAlert,
  SettlementAlert,
  FeedGapAlert,
  WeeklyReportAlert,
  AutoBuyAlert,
  AutoAcceptAlert,
  GuardDigestAlert,
  ReversalAlert,
]);
export type SingleAlert = z.infer<typeof SingleAlert>;

/** The one message sent when quiet hours end, standing for the alerts held during them. */
export const DigestAlert = z.object({
  kind: z.literal("digest"),
  items: z.array(SingleAlert),
  /** Held alerts beyond what fits in one message (counted, not listed). */
  omitted: z.number().int().min(0).default(0),
});
export type DigestAlert = z.infer<typeof DigestAlert>;

export const AlertContent = z.discriminatedUnion("kind", [...SingleAlert.options, DigestAlert]);
export type AlertContent = z.infer<typeof AlertContent>;

/** The stored shape of an outbox payload. */
export const OutboxPayload = z.object({
  v: z.literal(PAYLOAD_VERSION),
  alert: AlertContent,
});
export type OutboxPayload = z.infer<typeof OutboxPayload>;

export function toOutboxPayload(alert: AlertContent): OutboxPayload {
  // Parse on the way in too: a bad payload should fail the poller that built it, not the sender.
  return OutboxPayload.parse({ v: PAYLOAD_VERSION, alert });
}

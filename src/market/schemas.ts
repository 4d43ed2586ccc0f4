// zod schemas for every marketplace resource (spec section 2): lenient to unknown and absent
// optional fields, strict on the fields the bot uses. Types are derived from the schemas.
import { z } from "zod";

export const Id = z.string().regex(/^\d+$/, "must be a numeric id string");
/** Integer cents, >= 0. */
export const Cents = z.number().int().min(0);
/** Signed money change (ledger offsets); the live service may send fractions. */
export const SignedAmount = z.number();
export const Timestamp = z.string().min(1);

const opt = <T extends z.ZodType>(s: T) => s.nullish().transform((v) => v ?? undefined);

export const UserStatistics = z.object({
  median_trade_time: opt(z.number()),
  total_avoided_trades: opt(z.number()),
  total_failed_trades: opt(z.number()),
  total_trades: opt(z.number()),
  total_verified_trades: opt(z.number()),
});

export const UserSummary = z.object({
  platform_id: opt(Id),
  obfuscated_id: opt(z.string()),
  username: opt(z.string()),
  avatar: opt(z.string()),
  flags: opt(z.number()),
  online: opt(z.boolean()),
  away: opt(z.boolean()),
  stall_public: opt(z.boolean()),
  statistics: opt(UserStatistics),
});
export type UserSummary = z.infer<typeof UserSummary>;

export const ReferenceSample = z.object({
  price: opt(z.number()),
  quantity: opt(z.number()),
  updated_at: opt(Timestamp),
});

export const Sticker = z.object({
  stickerId: z.number(),
  slot: opt(z.number()),
  wear: opt(z.number()),
  name: opt(z.string()),
  icon_url: opt(z.string()),
  offset_x: opt(z.number()),
  offset_y: opt(z.number()),
  reference: opt(ReferenceSample),
});
export type Sticker = z.infer<typeof Sticker>;

export const Keychain = z.object({
  stickerId: z.number(),
  slot: opt(z.number()),
  pattern: opt(z.number()),
  wrapped_sticker: opt(z.number()),
  name: opt(z.string()),
  icon_url: opt(z.string()),
  offset_x: opt(z.number()),
  offset_y: opt(z.number()),
  offset_z: opt(z.number()),
  reference: opt(ReferenceSample),
});
export type Keychain = z.infer<typeof Keychain>;

export const ReferencePrice = z.object({
  base_price: opt(z.number()),
  predicted_price: opt(z.number()),
  keychain_price: opt(z.number()),
  float_factor: opt(z.number()),
  quantity: opt(z.number()),
  last_updated: opt(Timestamp),
  buy_order: opt(z.object({ max_price: opt(z.number()), quantity: opt(z.number()) })),
});
export type ReferencePrice = z.infer<typeof ReferencePrice>;

export const Item = z.object({
  asset_id: opt(z.string()),
  market_hash_name: z.string().min(1),
  item_name: opt(z.string()),
  type: opt(z.string()),
  type_name: opt(z.string()),
  wear_name: opt(z.string()),
  collection: opt(z.string()),
  description: opt(z.string()),
  def_index: opt(z.number().int()),
  paint_index: opt(z.number().int()),
  paint_seed: opt(z.number().int()),
  float_value: opt(z.number().min(0).max(1)),
  rarity: opt(z.number().int()),
  rarity_name: opt(z.string()),
  quality: opt(z.number().int()),
  is_statcounter: opt(z.boolean()),
  is_souvenir: opt(z.boolean()),
  is_commodity: opt(z.boolean()),
  tradable: opt(z.number()),
  icon_url: opt(z.string()),
  inspect_link: opt(z.string()),
  d_param: opt(z.string()),
  serialized_inspect: opt(z.string()),
  gs_sig: opt(z.string()),
  game_screenshot_id: opt(z.string()),
  game_screenshot_at: opt(Timestamp),
  phase: opt(z.string()),
  low_rank: opt(z.number()),
  high_rank: opt(z.number()),
  sticker_index: opt(z.number()),
  keychain_index: opt(z.number()),
  keychain_pattern: opt(z.number()),
  stickers: opt(z.array(Sticker)),
  keychains: opt(z.array(Keychain)),
  badges: opt(z.array(z.string())),
  reference: opt(ReferencePrice),
  fade: opt(
    z.object({
      percentage: opt(z.number()),
      rank: opt(z.number()),
      seed: opt(z.number()),
      type: opt(z.string()),
    }),
  ),
  blue_gem: opt(z.record(z.string(), z.number())),
});
export type Item = z.infer<typeof Item>;

export const Bid = z.object({
  id: Id,
  contract_id: opt(Id),
  obfuscated_buyer_id: opt(z.string()),
  price: Cents,
  state: opt(z.string()),
  created_at: opt(Timestamp),
});
export type Bid = z.infer<typeof Bid>;

export const ListingType = z.enum(["buy_now", "auction"]);
export type ListingType = z.infer<typeof ListingType>;

export const AuctionDetails = z.object({
  expires_at: opt(Timestamp),
  reserve_price: opt(Cents),
  min_next_bid: opt(Cents),
  top_bid: opt(Bid),
});

export const Listing = z.object({
  id: Id,
  created_at: opt(Timestamp),
  sold_at: opt(Timestamp),
  type: ListingType,
  price: Cents,
  /** listed, sold, delisted, refunded (api-notes); kept open for unknown states. */
  state: z.string(),
  description: opt(z.string()),
  seller: opt(UserSummary),
  item: Item,
  reference: opt(ReferencePrice),
  is_seller: opt(z.boolean()),
  min_offer_price: opt(Cents),
  /** Basis points: 1500 = 15%. */
  max_offer_discount: opt(z.number()),
  is_watchlisted: opt(z.boolean()),
  watchers: opt(z.number().int()),
  auction_details: opt(AuctionDetails),
});
export type Listing = z.infer<typeof Listing>;

export const HybridProperties = z.object({
  min_float: opt(z.number()),
  max_float: opt(z.number()),
  paint_index: opt(z.number().int()),
  paint_seeds: opt(z.array(z.number().int())),
  applied_stickers: opt(z.array(z.object({ sId: z.number().int() }))),
  applied_keychains: opt(z.array(z.object({ sId: z.number().int() }))),
  min_keychain_pattern: opt(z.number().int()),
  max_keychain_pattern: opt(z.number().int()),
});
export type HybridProperties = z.infer<typeof HybridProperties>;

export const BuyOrder = z.object({
  id: Id,
  created_at: opt(Timestamp),
  market_hash_name: z.string(),
  price: Cents,
  qty: z.number().int(),
  bought_item_count: opt(z.number().int()),
  hybrid_properties: opt(HybridProperties),
});
export type BuyOrder = z.infer<typeof BuyOrder>;

export const BuyOrderAggregate = z.object({
  market_hash_name: z.string(),
  price: Cents,
  qty: z.number().int(),
  hybrid_properties: opt(HybridProperties),
});
export type BuyOrderAggregate = z.infer<typeof BuyOrderAggregate>;

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
  buyer: opt(UserSummary),
  contract: opt(Listing),
});
export type Offer = z.infer<typeof Offer>;

export const TradeState = z.string();
export const PlatformOffer = z.object({
  id: opt(z.string()),
  state: opt(z.number()),
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
  buyer: opt(UserSummary),
  seller: opt(UserSummary),
  contract: opt(Listing),
  /** queued (waiting on the seller), pending, verified, failed, cancelled (api-notes). */
  state: TradeState,
  verification_mode: opt(z.string()),
  /** Sensitive: never logged or shown. */
  trade_token: opt(z.string()),
  trade_url: opt(z.string()),
  platform_offer: opt(PlatformOffer),
  inventory_check_status: opt(z.number()),
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
  id: z.string(),
  user_id: opt(z.string()),
  created_at: opt(Timestamp),
  type: z.string(),
  balance_offset: opt(SignedAmount),
  pending_offset: opt(SignedAmount),
  details: opt(
    z.object({
      bid_id: opt(z.string()),
      listing_id: opt(z.string()),
      contract_id: opt(z.string()),
      trade_id: opt(z.string()),
      original_tx: opt(z.string()),
      session_id: opt(z.string()),
      type: opt(z.string()),
      reason: opt(z.string()),
      grantor: opt(z.string()),
      fee: opt(z.string()),
      exchange_rate: opt(z.string()),
      payment_method: opt(z.string()),
      payment_processor: opt(z.string()),
      fee_amount: opt(z.number()),
    }),
  ),
});
export type Transaction = z.infer<typeof Transaction>;

export const HistoryPoint = z.object({
  day: z.string(),
  count: z.number(),
  /** Cents; may be fractional. */
  avg_price: z.number(),
});
export type HistoryPoint = z.infer<typeof HistoryPoint>;

export const ErrorBody = z.object({ code: opt(z.number()), message: opt(z.string()) });

/** Sort orders of GET /listings, in the spec's order. */
export const SortBy = z.enum([
  "lowest_price",
  "highest_price",
  "most_recent",
  "expires_soon",
  "lowest_float",
  "highest_float",
  "best_deal",
  "highest_discount",
  "float_rank",
  "num_bids",
]);
export type SortBy = z.infer<typeof SortBy>;

/** category query value: 0 any, 1 normal, 2 statcounter, 3 souvenir. */
export const CATEGORY = { any: 0, normal: 1, statcounter: 2, souvenir: 3 } as const;
export type CategoryName = keyof typeof CATEGORY;

export const TRADE_STATES = ["queued", "pending", "verified", "failed", "cancelled"] as const;

// Response envelopes (spec section 4). Cursors: an absent or empty cursor means "no more pages".

/** GET /listings: `{ data, cursor }`, or a bare array from older service versions (api-notes). */
export const ListingPage = z.preprocess(
  (v) => (Array.isArray(v) ? { data: v } : v),
  z.object({ data: z.array(Listing), cursor: opt(z.string()) }),
);
export type ListingPage = z.infer<typeof ListingPage>;

export const StallPage = z.object({
  data: z.array(Listing),
  cursor: opt(z.string()),
  total_count: z.number().int(),
  /** Cents. */
  total_price: z.number(),
});
export type StallPage = z.infer<typeof StallPage>;

export const ListingsEnvelope = z.object({ data: z.array(Listing) });
export const TradesEnvelope = z.preprocess(
  // Bulk accept's envelope is not in the spec: take `{ data }`, `{ trades }` or a bare array.
  (v) =>
    Array.isArray(v)
      ? { data: v }
      : typeof v === "object" && v !== null && !("data" in v) && "trades" in v
        ? { data: v.trades }
        : v,
  z.object({ data: z.array(Trade) }),
);
export const BuyOrderAggregatesEnvelope = z.object({ data: z.array(BuyOrderAggregate) });

export const MyBuyOrdersPage = z.object({ orders: z.array(BuyOrder), count: opt(z.number().int()) });
export type MyBuyOrdersPage = z.infer<typeof MyBuyOrdersPage>;
export const OffersTimelinePage = z.object({ offers: z.array(Offer) });
export type OffersTimelinePage = z.infer<typeof OffersTimelinePage>;
export const TradesPage = z.object({ trades: z.array(Trade), count: opt(z.number().int()) });
export type TradesPage = z.infer<typeof TradesPage>;
export const TransactionsPage = z.object({
  transactions: z.array(Transaction),
  count: opt(z.number().int()),
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
  z.object({ user: UserSummary, balance: opt(z.number()) }),
);
export type Me = z.infer<typeof Me>;

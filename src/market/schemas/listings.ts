// Schemas of listings and what they show (spec section 2): items with their stickers, keychains
// and reference prices, sellers, auction bids, and the listing pages, sorts and categories.
import { z } from "zod";
import {
  Cents,
  Id,
  LooseInt,
  LooseNumber,
  Timestamp,
  lenient,
  lenientCents,
  opt,
  tolerantArray,
} from "./primitives.ts";

export const UserStatistics = z.object({
  median_trade_time: opt(LooseNumber),
  total_avoided_trades: opt(LooseNumber),
  total_failed_trades: opt(LooseNumber),
  total_trades: opt(LooseNumber),
  total_verified_trades: opt(LooseNumber),
});

export const UserSummary = z.object({
  platform_id: opt(Id),
  obfuscated_id: opt(z.string()),
  username: opt(z.string()),
  avatar: opt(z.string()),
  flags: opt(LooseNumber),
  online: opt(z.boolean()),
  away: opt(z.boolean()),
  stall_public: opt(z.boolean()),
  statistics: opt(UserStatistics),
});
export type UserSummary = z.infer<typeof UserSummary>;

export const ReferenceSample = z.object({
  price: opt(LooseNumber),
  quantity: opt(LooseNumber),
  updated_at: opt(Timestamp),
});

export const Sticker = z.object({
  stickerId: LooseNumber,
  slot: opt(LooseNumber),
  wear: opt(LooseNumber),
  name: opt(z.string()),
  icon_url: opt(z.string()),
  offset_x: opt(LooseNumber),
  offset_y: opt(LooseNumber),
  reference: opt(ReferenceSample),
});
export type Sticker = z.infer<typeof Sticker>;

export const Keychain = z.object({
  stickerId: LooseNumber,
  slot: opt(LooseNumber),
  pattern: opt(LooseNumber),
  wrapped_sticker: opt(LooseNumber),
  name: opt(z.string()),
  icon_url: opt(z.string()),
  offset_x: opt(LooseNumber),
  offset_y: opt(LooseNumber),
  offset_z: opt(LooseNumber),
  reference: opt(ReferenceSample),
});
export type Keychain = z.infer<typeof Keychain>;

export const ReferencePrice = z.object({
  base_price: opt(LooseNumber),
  predicted_price: opt(LooseNumber),
  keychain_price: opt(LooseNumber),
  float_factor: opt(LooseNumber),
  quantity: opt(LooseNumber),
  last_updated: opt(Timestamp),
  buy_order: opt(z.object({ max_price: opt(LooseNumber), quantity: opt(LooseNumber) })),
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
  def_index: opt(LooseInt),
  paint_index: opt(LooseInt),
  paint_seed: opt(LooseInt),
  float_value: opt(LooseNumber.pipe(z.number().min(0).max(1))),
  rarity: opt(LooseInt),
  rarity_name: opt(z.string()),
  quality: opt(LooseInt),
  is_statcounter: opt(z.boolean()),
  is_souvenir: opt(z.boolean()),
  is_commodity: opt(z.boolean()),
  tradable: opt(LooseNumber),
  icon_url: opt(z.string()),
  inspect_link: opt(z.string()),
  d_param: opt(z.string()),
  serialized_inspect: opt(z.string()),
  gs_sig: opt(z.string()),
  game_screenshot_id: opt(z.string()),
  game_screenshot_at: opt(Timestamp),
  phase: opt(z.string()),
  low_rank: opt(LooseNumber),
  high_rank: opt(LooseNumber),
  sticker_index: opt(LooseNumber),
  keychain_index: opt(LooseNumber),
  keychain_pattern: opt(LooseNumber),
  stickers: opt(tolerantArray(Sticker, "sticker")),
  keychains: opt(tolerantArray(Keychain, "keychain")),
  badges: opt(tolerantArray(z.string(), "badge")),
  reference: opt(ReferencePrice),
  fade: opt(
    z.object({
      percentage: opt(LooseNumber),
      rank: opt(LooseNumber),
      seed: opt(LooseNumber),
      type: opt(z.string()),
    }),
  ),
  /** Null values are read as absent (a live shape). */
  blue_gem: opt(
    z
      .record(z.string(), LooseNumber.nullish())
      .transform(
        (r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v != null)) as Record<string, number>,
      ),
  ),
});
export type Item = z.infer<typeof Item>;

/** A standing bid as listings and the bid history show it: its price is what leads the auction. */
export const Bid = z.object({
  id: Id,
  contract_id: opt(Id),
  obfuscated_buyer_id: opt(z.string()),
  price: Cents,
  state: opt(z.string()),
  created_at: opt(Timestamp),
});
export type Bid = z.infer<typeof Bid>;

/**
 * The answer to placing a bid. Live it is `{ id, created_at, max_price, contract_id }`: no
 * price and no state, and a re-bid gets a new id. Who leads is read from the listing.
 */
export const BidReceipt = z.object({
  id: Id,
  contract_id: opt(Id),
  max_price: opt(Cents),
  price: opt(Cents),
  state: opt(z.string()),
  obfuscated_buyer_id: opt(z.string()),
  created_at: opt(Timestamp),
});
export type BidReceipt = z.infer<typeof BidReceipt>;

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
  /** listed, sold, delisted, refunded (docs/live-service.md); kept open for unknown states. */
  state: z.string(),
  description: opt(z.string()),
  seller: lenient(UserSummary, "listing.seller"),
  item: Item,
  reference: opt(ReferencePrice),
  is_seller: opt(z.boolean()),
  min_offer_price: opt(Cents),
  /** Basis points: 1500 = 15%. */
  max_offer_discount: opt(LooseNumber),
  is_watchlisted: opt(z.boolean()),
  watchers: opt(LooseInt),
  auction_details: opt(AuctionDetails),
});
export type Listing = z.infer<typeof Listing>;

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

// Response envelopes (spec section 4). Cursors: an absent or empty cursor means "no more pages".

/** GET /listings: `{ data, cursor }`, or a bare array from older service versions (docs/live-service.md). */
export const ListingPage = z.preprocess(
  (v) => (Array.isArray(v) ? { data: v } : v),
  z.object({ data: tolerantArray(Listing, "listing"), cursor: opt(z.string()) }),
);
export type ListingPage = z.infer<typeof ListingPage>;

/** Where a listing stands on a page: what orders it and tells pages apart, read before the rest. */
export const ListingPlace = z.object({ id: Id, created_at: opt(Timestamp) });
export type ListingPlace = z.infer<typeof ListingPlace>;

/** GET /listings with its listings left unread: the feed reads each one only when it is new (ADR 042). */
export const ListingPageEnvelope = z.preprocess(
  (v) => (Array.isArray(v) ? { data: v } : v),
  z.object({ data: z.array(z.unknown()), cursor: opt(z.string()) }),
);

/**
 * A page of GET /listings read place first. `places` are in the page's order (an element whose
 * id or created_at does not read is left out and reported); `listings` decodes the listings at
 * the places asked for, in that order, leaving out and reporting those that do not read, as the
 * tolerant list of ListingPage would. Places of another page are ignored.
 */
export interface ListingPlaces {
  readonly places: readonly ListingPlace[];
  readonly cursor: string | undefined;
  listings(at: readonly ListingPlace[]): Listing[];
}

/** A stall page; its totals may be absent (an SDK types them optional, docs/live-service.md). */
export const StallPage = z.object({
  data: tolerantArray(Listing, "listing"),
  cursor: opt(z.string()),
  total_count: opt(LooseInt),
  /** Integer cents; another form reads as absent (reported), never guessed. */
  total_price: lenientCents("stall.total_price"),
});
export type StallPage = z.infer<typeof StallPage>;

export const ListingsEnvelope = z.object({ data: tolerantArray(Listing, "listing") });

/** Bare lists of the spec, read element by element. */
export const Listings = tolerantArray(Listing, "listing");
export const Bids = tolerantArray(Bid, "bid");

// The sandbox's records: users and their assets, items, listings and auctions, bids, offers, trades,
// buy orders and ledger entries, with the states each can be in.
export type ListingState = "listed" | "sold" | "delisted" | "refunded";
export type TradeState = "queued" | "pending" | "verified" | "failed" | "cancelled";
export type OfferState = "active" | "countered" | "accepted" | "declined" | "cancelled" | "expired";
/** replaced: the bidder posted again; live, every post makes a new bid record with a new id. */
export type BidState = "active" | "outbid" | "won" | "replaced";
export type TxType =
  | "deposit"
  | "withdrawal"
  | "fine"
  | "bid_posted"
  | "trade_verified"
  | "contract_purchased"
  | "contract_sold"
  | "contract_purchase_refund"
  | "contract_sale_refund"
  | "rollback";

export interface UserRec {
  platformId: string;
  name: string;
  apiKey: string;
  revoked: boolean;
  /** demo: printed keys, never acts on its own; seller: seeded seller; synthetic: a background party. */
  kind: "demo" | "seller" | "synthetic";
  balance: number;
  pending: number;
  stallPublic: boolean;
  /** Sandbox ms after which this user accepts trades waiting on them; undefined: a person decides. */
  autoAcceptMs: number | undefined;
  obfuscatedId: string;
  avatar: string;
  online: boolean;
  away: boolean;
  totalTrades: number;
  verifiedTrades: number;
  failedTrades: number;
  /** Unlisted assets by asset id. */
  inventory: Map<string, AssetRec>;
  /** Watched listing id -> order of addition (for a stable cursor). */
  watchlist: Map<string, number>;
}

export interface StickerRec {
  stickerId: number;
  slot: number;
  wear: number;
  name: string;
  price: number;
  offsetX: number;
  offsetY: number;
}

export interface KeychainRec {
  stickerId: number;
  slot: number;
  pattern: number;
  name: string;
  price: number;
}

export interface ItemRec {
  marketHashName: string;
  weapon: string;
  finish: string;
  wearName: string;
  type: string;
  defIndex: number;
  paintIndex: number;
  paintSeed: number;
  floatValue: number;
  rarity: number;
  rarityName: string;
  collection: string;
  isStatcounter: boolean;
  isSouvenir: boolean;
  stickers: StickerRec[];
  keychains: KeychainRec[];
  inspectLink: string;
  dParam: string;
  gsSig: string;
  lowRank: number | undefined;
  highRank: number | undefined;
  /** Spec 2.3 `fade` (percentage, rank, seed, type); only fade finishes have one. */
  fade?: { percentage: number; rank?: number | undefined; seed: number; type: string } | undefined;
  /** Spec 2.3 `blue_gem` percentages (playside_blue, backside_blue, ...). */
  blueGem?: Record<string, number> | undefined;
}

export interface AssetRec {
  assetId: string;
  item: ItemRec;
}

export interface ReferenceRec {
  basePrice: number;
  predictedPrice: number;
  quantity: number;
  lastUpdated: number;
}

export interface ProxyBid {
  userId: string;
  ceiling: number;
}

export interface AuctionRec {
  expiresAt: number;
  reservePrice: number;
  bids: BidRec[];
  leader: ProxyBid | undefined;
  /** Control only: the auction stays listed past its end until released (a late settlement). */
  settlementHeld?: boolean;
}

export interface ListingRec {
  id: string;
  seq: number;
  /**
   * How its JSON deviates, as the live service's sometimes does (control surface only): "odd"
   * (field types that vary between clients' models, still readable) or "unreadable" (a price no
   * client could read), so the bot's tests see one bad element in a page.
   */
  quirk?: "odd" | "unreadable" | undefined;
  createdAt: number;
  soldAt: number | undefined;
  type: "buy_now" | "auction";
  /** Buy-now: the asking price. Auction: the standing price (reserve until the first bid). */
  price: number;
  state: ListingState;
  description: string;
  sellerId: string;
  buyerId: string | undefined;
  asset: AssetRec;
  /** Basis points; 0 disables offers. */
  maxOfferDiscount: number;
  private: boolean;
  watchers: Set<string>;
  auction: AuctionRec | undefined;
  /** Seeded history sales carry no trade. */
  tradeId: string | undefined;
}

export interface BidRec {
  id: string;
  seq: number;
  listingId: string;
  bidderId: string;
  price: number;
  state: BidState;
  createdAt: number;
}

export interface OfferRec {
  id: string;
  seq: number;
  listingId: string;
  buyerId: string;
  /** Who proposed this price: the buyer, or the seller answering with a counter-offer. */
  authorId: string;
  price: number;
  contractPrice: number;
  type: "buyer_offer" | "seller_counter_offer" | "buyer_counter_offer";
  state: OfferState;
  createdAt: number;
  expiresAt: number;
  messageId: string;
}

export interface TradeRec {
  id: string;
  seq: number;
  listingId: string;
  buyerId: string;
  sellerId: string;
  price: number;
  state: TradeState;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | undefined;
  verifiedAt: number | undefined;
  verifyAt: number | undefined;
  closedAt: number | undefined;
  tradeToken: string;
  platformOfferId: string | undefined;
  /** The seller fee kept from this sale (cents); the seller's proceeds are price - fee. */
  fee: number;
  /** When the trade was reversed within its protection window (a rollback on both sides). */
  reversedAt?: number | undefined;
}

/** Buy-order constraints; a key is present only when the constraint is set. */
export interface HybridRec {
  min_float?: number;
  max_float?: number;
  paint_index?: number;
  paint_seeds?: number[];
  applied_stickers?: { sId: number }[];
  applied_keychains?: { sId: number }[];
  min_keychain_pattern?: number;
  max_keychain_pattern?: number;
}

export interface BuyOrderRec {
  id: string;
  seq: number;
  userId: string;
  marketHashName: string;
  price: number;
  qty: number;
  bought: number;
  hybrid: HybridRec;
  createdAt: number;
  /**
   * Orders made on the website can be "advanced": a filter in the site's expression language, and
   * no market_hash_name in what the API sends (docs/live-service.md). marketHashName still files the order
   * for matching here.
   */
  expression?: string | undefined;
  /**
   * Placed through POST /buy-orders: every answer carries the zero time `0001-01-01T00:00:00Z` as
   * its created_at, as the live create reply was seen to (docs/live-service.md); its id still
   * tells the time. Seeded, rival and website orders carry their real time.
   */
  timeUnrecorded?: boolean | undefined;
}

export interface TxRec {
  id: string;
  seq: number;
  userId: string;
  createdAt: number;
  type: TxType;
  balanceOffset: number;
  pendingOffset: number;
  details: Record<string, string | number>;
}

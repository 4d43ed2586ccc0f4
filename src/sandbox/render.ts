// Turns sandbox records into the spec's JSON resources, as seen by one caller (is_seller, is_watchlisted).
import type {
  BidRec,
  BuyOrderRec,
  HybridRec,
  ListingRec,
  OfferRec,
  ReferenceRec,
  Store,
  TradeRec,
  TxRec,
  UserRec,
} from "./state.ts";
import { minNextBid, minOfferPrice, HOUR } from "./state.ts";
import { protectionEndsAt } from "./trades.ts";

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface UserSummaryJson {
  platform_id: string;
  obfuscated_id: string;
  username: string;
  avatar: string;
  flags: number;
  online: boolean;
  away: boolean;
  stall_public: boolean;
  statistics: {
    median_trade_time: number;
    total_avoided_trades: number;
    total_failed_trades: number;
    total_trades: number;
    total_verified_trades: number;
  };
}

export interface ReferenceJson {
  base_price: number;
  predicted_price: number;
  float_factor: number;
  quantity: number;
  last_updated: string;
  buy_order?: { max_price: number; quantity: number };
}

export interface BidJson {
  id: string;
  contract_id: string;
  obfuscated_buyer_id: string;
  price: number;
  state: string;
  created_at: string;
}

export interface ListingJson {
  id: string;
  created_at: string;
  sold_at?: string;
  type: "buy_now" | "auction";
  price: number;
  state: string;
  description: string;
  seller: UserSummaryJson;
  item: ItemJson;
  reference?: ReferenceJson;
  is_seller: boolean;
  min_offer_price: number;
  max_offer_discount: number;
  is_watchlisted: boolean;
  watchers: number;
  private: boolean;
  auction_details?: {
    expires_at: string;
    reserve_price: number;
    min_next_bid: number;
    top_bid?: BidJson;
  };
}

export interface StickerJson {
  stickerId: number;
  slot: number;
  wear: number;
  name: string;
  icon_url: string;
  offset_x: number;
  offset_y: number;
  reference: { price: number; quantity: number; updated_at: string };
}

export interface KeychainJson {
  stickerId: number;
  slot: number;
  pattern: number;
  wrapped_sticker: number;
  name: string;
  icon_url: string;
  offset_x: number;
  offset_y: number;
  offset_z: number;
  reference: { price: number; quantity: number; updated_at: string };
}

export interface ItemJson {
  asset_id: string;
  market_hash_name: string;
  item_name: string;
  type: string;
  type_name: string;
  wear_name: string;
  collection: string;
  description: string;
  def_index: number;
  paint_index: number;
  paint_seed: number;
  float_value: number;
  rarity: number;
  rarity_name: string;
  quality: number;
  is_statcounter: boolean;
  is_souvenir: boolean;
  is_commodity: boolean;
  tradable: number;
  icon_url: string;
  inspect_link: string;
  d_param: string;
  gs_sig: string;
  sticker_index: number;
  stickers: StickerJson[];
  keychains: KeychainJson[];
  badges: string[];
  keychain_index?: number;
  keychain_pattern?: number;
  low_rank?: number;
  high_rank?: number;
  reference?: ReferenceJson;
  fade?: { percentage: number; rank?: number; seed: number; type: string };
  blue_gem?: Record<string, number>;
}

export interface TradeJson {
  id: string;
  buyer_id: string;
  seller_id: string;
  contract_id: string;
  created_at: string;
  accepted_at?: string;
  verified_at?: string;
  expires_at: string;
  buyer: UserSummaryJson;
  seller: UserSummaryJson;
  contract: ListingJson;
  state: string;
  verification_mode: string;
  trade_token: string;
  trade_url: string;
  platform_offer?: {
    id: string;
    state: number;
    is_from_seller: boolean;
    sent_at: string;
    updated_at: string;
    deadline_at: string;
    can_cancel_at: string;
  };
  inventory_check_status: number;
  verify_sale_at?: string;
  trade_protection_ends_at?: string;
  wait_for_cancel_ping: boolean;
  is_settlement_period: boolean;
}

export interface OfferJson {
  id: string;
  contract_id: string;
  buyer_id: string;
  message_id: string;
  created_at: string;
  expires_at: string;
  contract_price: number;
  price: number;
  type: string;
  state: string;
  buyer: UserSummaryJson;
  contract: ListingJson;
}

export interface BuyOrderJson {
  id: string;
  created_at: string;
  /** Absent on advanced orders made on the website, which carry `expression` instead. */
  market_hash_name?: string;
  expression?: string;
  price: number;
  qty: number;
  bought_item_count: number;
  hybrid_properties?: HybridRec;
}

export interface BuyOrderAggregateJson {
  market_hash_name?: string;
  expression?: string;
  price: number;
  qty: number;
  hybrid_properties?: HybridRec;
}

export interface TransactionJson {
  id: string;
  user_id: string;
  created_at: string;
  type: string;
  balance_offset: number;
  pending_offset: number;
  details: Record<string, string | number>;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function userSummary(u: UserRec): UserSummaryJson {
  return {
    platform_id: u.platformId,
    obfuscated_id: u.obfuscatedId,
    username: u.name,
    avatar: u.avatar,
    flags: 0,
    online: u.online,
    away: u.away,
    stall_public: u.stallPublic,
    statistics: {
      median_trade_time: 1800,
      total_avoided_trades: 0,
      total_failed_trades: u.failedTrades,
      total_trades: u.totalTrades,
      total_verified_trades: u.verifiedTrades,
    },
  };
}

export function referenceJson(store: Store, name: string, floatValue?: number): ReferenceJson | undefined {
  const r: ReferenceRec | undefined = store.references.get(name);
  if (!r) return undefined;
  const out: ReferenceJson = {
    base_price: r.basePrice,
    predicted_price: r.predictedPrice,
    float_factor: floatValue === undefined ? 1 : Math.round((1 + (0.5 - floatValue) * 0.04) * 1000) / 1000,
    quantity: r.quantity,
    last_updated: iso(r.lastUpdated),
  };
  const top = topBuyOrder(store, name);
  if (top) out.buy_order = top;
  return out;
}

function topBuyOrder(store: Store, name: string): { max_price: number; quantity: number } | undefined {
  const orders = store.buyOrdersByName.get(name);
  if (!orders) return undefined;
  let best: { max_price: number; quantity: number } | undefined;
  for (const o of orders) {
    const left = o.qty - o.bought;
    if (left <= 0) continue;
    if (!best || o.price > best.max_price) best = { max_price: o.price, quantity: left };
    else if (o.price === best.max_price) best.quantity += left;
  }
  return best;
}

/**
 * The answer to placing a bid, as the live service sends it: `{ id, created_at, max_price,
 * contract_id }`, with no price and no state (a live-tested SDK and a typed client agree).
 */
export function bidReceiptJson(b: BidRec, maxPrice: number): BidReceiptJson {
  return { id: b.id, created_at: iso(b.createdAt), max_price: maxPrice, contract_id: b.listingId };
}

export interface BidReceiptJson {
  id: string;
  created_at: string;
  max_price: number;
  contract_id: string;
}

export function bidJson(store: Store, b: BidRec): BidJson {
  const bidder = store.users.get(b.bidderId);
  return {
    id: b.id,
    contract_id: b.listingId,
    obfuscated_buyer_id: bidder?.obfuscatedId ?? "0",
    price: b.price,
    state: b.state,
    created_at: iso(b.createdAt),
  };
}

export function itemJson(store: Store, l: ListingRec): ItemJson {
  const it = l.asset.item;
  const ref = referenceJson(store, it.marketHashName, it.floatValue);
  const item: ItemJson = {
    asset_id: l.asset.assetId,
    market_hash_name: it.marketHashName,
    item_name: `${it.weapon} | ${it.finish}`,
    type: "skin",
    type_name: it.type,
    wear_name: it.wearName,
    collection: it.collection,
    description: `${it.rarityName} ${it.type}`,
    def_index: it.defIndex,
    paint_index: it.paintIndex,
    paint_seed: it.paintSeed,
    float_value: it.floatValue,
    rarity: it.rarity,
    rarity_name: it.rarityName,
    quality: it.isStatcounter ? 9 : it.isSouvenir ? 12 : 4,
    is_statcounter: it.isStatcounter,
    is_souvenir: it.isSouvenir,
    is_commodity: false,
    tradable: 1,
    icon_url: `sandbox-icon-${it.defIndex}-${it.paintIndex}`,
    inspect_link: it.inspectLink,
    d_param: it.dParam,
    gs_sig: it.gsSig,
    sticker_index: it.stickers.length,
    stickers: it.stickers.map((s) => ({
      stickerId: s.stickerId,
      slot: s.slot,
      wear: s.wear,
      name: s.name,
      icon_url: `sandbox-sticker-${s.stickerId}`,
      offset_x: s.offsetX,
      offset_y: s.offsetY,
      reference: { price: s.price, quantity: 25, updated_at: iso(l.createdAt) },
    })),
    keychains: it.keychains.map((k) => ({
      stickerId: k.stickerId,
      slot: k.slot,
      pattern: k.pattern,
      wrapped_sticker: 0,
      name: k.name,
      icon_url: `sandbox-keychain-${k.stickerId}`,
      offset_x: 0,
      offset_y: 0,
      offset_z: 0,
      reference: { price: k.price, quantity: 12, updated_at: iso(l.createdAt) },
    })),
    badges: [],
  };
  if (it.keychains[0]) {
    item.keychain_index = it.keychains[0].stickerId;
    item.keychain_pattern = it.keychains[0].pattern;
  }
  if (it.lowRank !== undefined) item.low_rank = it.lowRank;
  if (it.highRank !== undefined) item.high_rank = it.highRank;
  if (it.fade !== undefined) {
    const { rank, ...fade } = it.fade;
    item.fade = rank === undefined ? fade : { ...fade, rank };
  }
  if (it.blueGem !== undefined) item.blue_gem = { ...it.blueGem };
  if (ref) item.reference = ref;
  return item;
}

export function listingJson(store: Store, l: ListingRec, viewerId?: string): ListingJson {
  const seller = store.user(l.sellerId);
  const out: ListingJson = {
    id: l.id,
    created_at: iso(l.createdAt),
    type: l.type,
    price: l.price,
    state: l.state,
    description: l.description,
    seller: userSummary(seller),
    item: itemJson(store, l),
    is_seller: viewerId === l.sellerId,
    min_offer_price: minOfferPrice(l),
    max_offer_discount: l.maxOfferDiscount,
    is_watchlisted: viewerId !== undefined && l.watchers.has(viewerId),
    watchers: l.watchers.size,
    private: l.private,
  };
  if (l.soldAt !== undefined) out.sold_at = iso(l.soldAt);
  const ref = referenceJson(store, l.asset.item.marketHashName, l.asset.item.floatValue);
  if (ref) out.reference = ref;
  const a = l.auction;
  if (a) {
    const top = a.bids.find((b) => b.state !== "outbid" && b.state !== "replaced");
    out.auction_details = {
      expires_at: iso(a.expiresAt),
      reserve_price: a.reservePrice,
      min_next_bid: minNextBid(a, l.price),
      ...(top ? { top_bid: bidJson(store, top) } : {}),
    };
  }
  return l.quirk === undefined ? out : withQuirk(out, l.quirk);
}

/**
 * The shapes clients report from the live service (docs/live-service.md, "Items"): an
 * `odd` listing has `sticker_index` as a string, nulls inside `blue_gem` and `fade` and a sticker
 * without `wear`; an `unreadable` one has a price no client could read.
 */
function withQuirk(listing: ListingJson, quirk: "odd" | "unreadable"): ListingJson {
  const json = structuredClone(listing) as unknown as Record<string, unknown> & {
    item: Record<string, unknown>;
  };
  if (quirk === "unreadable") {
    json["price"] = "abc";
    return json as unknown as ListingJson;
  }
  const item = json.item;
  item["sticker_index"] = String(item["sticker_index"] ?? 0);
  item["blue_gem"] = { playside_blue: 12.5, playside_gold: null, backside_blue: 30.25, backside_gold: null };
  item["fade"] = { percentage: null, rank: null, seed: item["paint_seed"] ?? 0, type: null };
  const stickers = Array.isArray(item["stickers"]) ? (item["stickers"] as Record<string, unknown>[]) : [];
  item["stickers"] =
    stickers.length > 0
      ? stickers.map(({ wear: _wear, ...rest }) => rest)
      : [{ stickerId: 4_021, slot: 0, name: "Sandbox Crest", icon_url: "https://icons.invalid/4021.png" }];
  return json as unknown as ListingJson;
}

/** The trade link the seller sends the item to: the buyer's, carrying the secret token. */
export function tradeUrl(buyer: UserRec, token: string): string {
  return `https://platform.invalid/tradeoffer/new/?partner=${buyer.platformId}&token=${token}`;
}

export function tradeJson(store: Store, t: TradeRec, viewerId?: string): TradeJson {
  const buyer = store.user(t.buyerId);
  const seller = store.user(t.sellerId);
  const listing = store.listings.get(t.listingId);
  if (!listing) throw new Error(`trade ${t.id} lost its listing`);
  const out: TradeJson = {
    id: t.id,
    buyer_id: t.buyerId,
    seller_id: t.sellerId,
    contract_id: t.listingId,
    created_at: iso(t.createdAt),
    expires_at: iso(t.expiresAt),
    buyer: userSummary(buyer),
    seller: userSummary(seller),
    contract: listingJson(store, listing, viewerId),
    state: t.state,
    verification_mode: "inventory",
    trade_token: t.tradeToken,
    trade_url: tradeUrl(buyer, t.tradeToken),
    inventory_check_status: t.state === "verified" ? 2 : 1,
    wait_for_cancel_ping: false,
    is_settlement_period: t.state === "pending",
  };
  if (t.acceptedAt !== undefined) {
    out.accepted_at = iso(t.acceptedAt);
    out.platform_offer = {
      id: t.platformOfferId ?? "0",
      state: t.state === "verified" ? 3 : t.state === "pending" ? 2 : 7,
      is_from_seller: true,
      sent_at: iso(t.acceptedAt),
      updated_at: iso(t.verifiedAt ?? t.closedAt ?? t.acceptedAt),
      deadline_at: iso(t.expiresAt),
      can_cancel_at: iso(t.acceptedAt + HOUR / 2),
    };
  }
  if (t.verifyAt !== undefined) out.verify_sale_at = iso(t.verifyAt);
  if (t.verifiedAt !== undefined) {
    out.verified_at = iso(t.verifiedAt);
    out.trade_protection_ends_at = iso(protectionEndsAt(t) ?? t.verifiedAt);
  }
  return out;
}

export function offerJson(store: Store, o: OfferRec, viewerId?: string): OfferJson {
  const listing = store.listings.get(o.listingId);
  if (!listing) throw new Error(`offer ${o.id} lost its listing`);
  return {
    id: o.id,
    contract_id: o.listingId,
    buyer_id: o.buyerId,
    message_id: o.messageId,
    created_at: iso(o.createdAt),
    expires_at: iso(o.expiresAt),
    contract_price: o.contractPrice,
    price: o.price,
    type: o.type,
    state: o.state,
    buyer: userSummary(store.user(o.buyerId)),
    contract: listingJson(store, listing, viewerId),
  };
}

export function buyOrderJson(o: BuyOrderRec): BuyOrderJson {
  if (o.expression !== undefined) {
    // As live: the expression, no item name, no constraints.
    return {
      id: o.id,
      created_at: iso(o.createdAt),
      expression: o.expression,
      price: o.price,
      qty: o.qty,
      bought_item_count: o.bought,
    };
  }
  return {
    id: o.id,
    created_at: iso(o.createdAt),
    market_hash_name: o.marketHashName,
    price: o.price,
    qty: o.qty,
    bought_item_count: o.bought,
    hybrid_properties: { ...o.hybrid },
  };
}

export function transactionJson(t: TxRec): TransactionJson {
  return {
    id: t.id,
    user_id: t.userId,
    created_at: iso(t.createdAt),
    type: t.type,
    balance_offset: t.balanceOffset,
    pending_offset: t.pendingOffset,
    details: { ...t.details },
  };
}

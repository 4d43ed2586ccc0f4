// Selling and buying: create, reprice and remove listings; buy-now purchases; proxy bidding and settlement.
import { badRequest, ErrorCode, notFound, SandboxError } from "./errors.ts";
import {
  bidIncrement,
  DAY,
  minNextBid,
  type BidRec,
  type ListingRec,
  type Store,
  type TradeRec,
  type UserRec,
} from "./state/index.ts";
import { createTrade } from "./trades.ts";

export const MIN_PRICE = 3;
export const AUCTION_DAYS = [1, 3, 5, 7, 14] as const;
/** Offers allowed by default up to this discount (basis points) when a seller does not say. */
export const DEFAULT_MAX_OFFER_DISCOUNT = 1000;

export interface NewListing {
  assetId: string;
  type: "buy_now" | "auction";
  price: number | undefined;
  reservePrice: number | undefined;
  /** Auction length; wins over durationDays (control surface only). */
  durationMs: number | undefined;
  durationDays: number | undefined;
  maxOfferDiscount: number | undefined;
  description: string | undefined;
  private: boolean | undefined;
}

/** Checks a listing request without changing anything, so bulk listing can be all or nothing. */
export function validateNewListing(seller: UserRec, input: NewListing): void {
  if (!seller.inventory.has(input.assetId)) {
    throw badRequest(`asset ${input.assetId} is not in your inventory or is already listed`);
  }
  if (input.type === "buy_now") {
    if (input.price === undefined) throw badRequest("price is required for a buy_now listing");
    if (input.price < MIN_PRICE) throw badRequest(`price must be at least ${MIN_PRICE} cents`);
  } else {
    const start = input.reservePrice ?? input.price;
    if (start === undefined) throw badRequest("reserve_price is required for an auction");
    if (start < MIN_PRICE) throw badRequest(`reserve_price must be at least ${MIN_PRICE} cents`);
    // Live, auctions need duration_days (the service's own docs, docs/live-service.md); the control
    // surface may give a duration in ms instead.
    if (input.durationMs === undefined && input.durationDays === undefined) {
      throw badRequest(`duration_days is required for auctions: one of ${AUCTION_DAYS.join(", ")}`);
    }
    if (
      input.durationMs === undefined &&
      input.durationDays !== undefined &&
      !(AUCTION_DAYS as readonly number[]).includes(input.durationDays)
    ) {
      throw badRequest(`duration_days must be one of ${AUCTION_DAYS.join(", ")}`);
    }
  }
}

export function createListing(store: Store, seller: UserRec, input: NewListing, at: number): ListingRec {
  validateNewListing(seller, input);
  const asset = seller.inventory.get(input.assetId);
  if (!asset) throw badRequest(`asset ${input.assetId} is not in your inventory`);
  seller.inventory.delete(input.assetId);
  const { id, seq } = store.nextId(at);
  const isAuction = input.type === "auction";
  const start = isAuction ? (input.reservePrice ?? input.price ?? MIN_PRICE) : (input.price ?? MIN_PRICE);
  const l: ListingRec = {
    id,
    seq,
    createdAt: at,
    soldAt: undefined,
    type: input.type,
    price: start,
    state: "listed",
    description: input.description ?? "",
    sellerId: seller.platformId,
    buyerId: undefined,
    asset,
    // Offers do not apply to auctions.
    maxOfferDiscount: isAuction ? 0 : (input.maxOfferDiscount ?? DEFAULT_MAX_OFFER_DISCOUNT),
    private: input.private ?? false,
    watchers: new Set(),
    auction: isAuction
      ? {
          expiresAt: at + (input.durationMs ?? (input.durationDays ?? 7) * DAY),
          reservePrice: start,
          bids: [],
          leader: undefined,
        }
      : undefined,
    tradeId: undefined,
  };
  store.listings.set(id, l);
  store.activate(l);
  if (l.auction) {
    store.schedule(l.auction.expiresAt, (when) => {
      if (l.state === "listed" && l.auction?.settlementHeld !== true) settleAuction(store, l, when);
    });
  }
  return l;
}

export function listingOf(store: Store, id: string): ListingRec {
  const l = store.listings.get(id);
  if (!l) throw notFound("listing");
  return l;
}

function ownListing(store: Store, seller: UserRec, id: string): ListingRec {
  const l = listingOf(store, id);
  if (l.sellerId !== seller.platformId) {
    throw badRequest("you are not the seller of this listing", ErrorCode.notOwner);
  }
  return l;
}

export interface ListingPatch {
  price?: number | undefined;
  description?: string | undefined;
  max_offer_discount?: number | undefined;
  private?: boolean | undefined;
}

/** Checks an update without applying it (bulk-modify is all or nothing). */
export function validatePatch(store: Store, seller: UserRec, id: string, patch: ListingPatch): ListingRec {
  const l = ownListing(store, seller, id);
  if (l.state !== "listed") {
    throw badRequest(
      `listing ${id} is ${l.state}; only an active listing can be updated`,
      ErrorCode.invalidState,
    );
  }
  if (l.auction) {
    if (l.auction.bids.length > 0) {
      throw badRequest("an auction cannot be changed once bidding has opened", ErrorCode.invalidState);
    }
    if (patch.price !== undefined && patch.price !== l.price) {
      throw badRequest("only a buy_now listing can be repriced", ErrorCode.invalidState);
    }
    if (patch.max_offer_discount !== undefined && patch.max_offer_discount !== 0) {
      throw badRequest("offers do not apply to auctions");
    }
  }
  if (patch.price !== undefined && patch.price < MIN_PRICE) {
    throw badRequest(`price must be at least ${MIN_PRICE} cents`);
  }
  return l;
}

export function updateListing(store: Store, seller: UserRec, id: string, patch: ListingPatch): ListingRec {
  const l = validatePatch(store, seller, id, patch);
  if (patch.price !== undefined) l.price = patch.price;
  if (patch.description !== undefined) l.description = patch.description;
  if (patch.max_offer_discount !== undefined) l.maxOfferDiscount = patch.max_offer_discount;
  if (patch.private !== undefined) l.private = patch.private;
  return l;
}

export function validateDelist(store: Store, seller: UserRec, id: string): ListingRec {
  const l = ownListing(store, seller, id);
  if (l.state !== "listed") {
    throw badRequest(
      `listing ${id} is ${l.state}; only an active listing can be removed`,
      ErrorCode.invalidState,
    );
  }
  if (l.auction && l.auction.bids.length > 0) {
    throw badRequest("an auction with bids cannot be removed", ErrorCode.invalidState);
  }
  return l;
}

/** Removes an active listing: its asset returns to the seller's inventory. */
export function delist(store: Store, seller: UserRec, id: string, at: number): ListingRec {
  const l = validateDelist(store, seller, id);
  endListing(store, l, "delisted", at);
  seller.inventory.set(l.asset.assetId, l.asset);
  return l;
}

/** Takes a listing off the market; open offers on it end. */
function endListing(store: Store, l: ListingRec, state: "sold" | "delisted", at: number): void {
  l.state = state;
  store.deactivate(l);
  if (state === "sold") {
    l.soldAt = at;
    store.recordSale(l);
  }
  for (const o of store.offersByListing.get(l.id) ?? []) {
    if (o.state === "active") o.state = "cancelled";
  }
}

/**
 * Completes a sale at `price` (buy-now, accepted offer, won auction, filled buy order): buyer
 * pays, the seller's proceeds wait as pending until the trade is verified.
 */
export function completeSale(
  store: Store,
  l: ListingRec,
  buyerId: string,
  price: number,
  at: number,
): TradeRec {
  const details = { contract_id: l.id, listing_id: l.id };
  const purchase = store.post(buyerId, "contract_purchased", -price, 0, details, at);
  // Live, money-like detail fields arrive as numeric strings (a Go client decodes fee_amount, fee
  // and float_fee as strings, "0.00"). The seller's pending proceeds are net of the fee;
  // fee_amount is in cents like every money field of the spec, fee the rate in percent.
  const fee = Math.round((price * store.sellerFeeBps) / 10_000);
  store.post(
    l.sellerId,
    "contract_sold",
    0,
    price - fee,
    {
      ...details,
      fee_amount: fee.toFixed(2),
      fee: String(store.sellerFeeBps / 100),
      float_fee: "0",
      original_tx: Number(purchase.id),
    },
    at,
  );
  l.price = price;
  l.buyerId = buyerId;
  endListing(store, l, "sold", at);
  return createTrade(store, l, buyerId, price, fee, at);
}

/** All-or-nothing purchase of buy-now listings at an exact expected total. */
export function buyListings(
  store: Store,
  buyer: UserRec,
  contractIds: readonly string[],
  totalPrice: number,
  at: number,
): TradeRec[] {
  if (new Set(contractIds).size !== contractIds.length) throw badRequest("contract_ids contains duplicates");
  const listings = contractIds.map((id) => {
    const l = store.listings.get(id);
    if (!l) throw badRequest(`listing ${id} does not exist`, ErrorCode.notFound);
    if (l.state !== "listed") {
      // Live: a stale or sold listing answers 422 with code 6 (a Go client's error constants).
      throw new SandboxError(
        422,
        ErrorCode.stalePrice,
        `listing ${id} is no longer available (${l.state}); nothing was bought`,
      );
    }
    if (l.type !== "buy_now") throw badRequest(`listing ${id} is an auction; bid on it instead`);
    if (l.sellerId === buyer.platformId)
      throw badRequest(`listing ${id} is your own listing`, ErrorCode.notOwner);
    return l;
  });
  const current = listings.reduce((sum, l) => sum + l.price, 0);
  if (current !== totalPrice) {
    // Live: code 15, the price changed, answered 422.
    throw new SandboxError(
      422,
      ErrorCode.priceChanged,
      `total_price ${totalPrice} does not match the current total ${current}; a price changed, nothing was bought`,
    );
  }
  if (buyer.balance < current) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
  return listings.map((l) => completeSale(store, l, buyer.platformId, l.price, at));
}

function newBid(store: Store, l: ListingRec, bidderId: string, price: number, at: number): BidRec {
  const { id, seq } = store.nextId(at);
  const b: BidRec = { id, seq, listingId: l.id, bidderId, price, state: "active", createdAt: at };
  const a = l.auction;
  if (!a) throw new SandboxError(500, ErrorCode.internal, "not an auction");
  for (const old of a.bids) if (old.state === "active") old.state = "outbid";
  // Most recent first, as GET /listings/{id}/bids answers.
  a.bids.unshift(b);
  store.bids.set(id, b);
  return b;
}

function releaseHold(
  store: Store,
  userId: string,
  amount: number,
  l: ListingRec,
  at: number,
  reason: string,
): void {
  if (amount > 0)
    store.post(userId, "rollback", amount, -amount, { contract_id: l.id, listing_id: l.id, reason }, at);
}

/**
 * Proxy bidding: `maxPrice` is a ceiling; the standing price rises only as far as the runner-up
 * requires (their ceiling plus one increment), never beyond the leader's ceiling. Only the leader's
 * ceiling is held from their balance; an outbid leader's hold is released at once.
 */
export function placeBid(
  store: Store,
  bidder: UserRec,
  listingId: string,
  maxPrice: number,
  at: number,
): BidRec {
  const l = listingOf(store, listingId);
  const a = l.auction;
  if (!a) throw badRequest("only auctions take bids; buy this listing instead");
  if (l.state !== "listed") {
    throw badRequest(`auction ${listingId} is ${l.state}`, ErrorCode.unavailable);
  }
  if (l.sellerId === bidder.platformId)
    throw badRequest("you cannot bid on your own auction", ErrorCode.notOwner);
  const leader = a.leader;
  const details = { contract_id: l.id, listing_id: l.id };

  if (leader && leader.userId === bidder.platformId) {
    // The leader replaces their own ceiling; the standing price does not move.
    if (maxPrice < l.price) throw badRequest(`max_price must be at least the standing price ${l.price}`);
    const delta = maxPrice - leader.ceiling;
    const top = a.bids.find((b) => b.state === "active") as BidRec;
    if (delta > 0) {
      if (bidder.balance < delta) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
      store.post(bidder.platformId, "bid_posted", -delta, delta, { ...details, bid_id: top.id }, at);
    } else {
      releaseHold(store, bidder.platformId, -delta, l, at, "ceiling lowered");
    }
    leader.ceiling = maxPrice;
    // Live, posting again creates a new bid record with a new id (docs/live-service.md); the standing
    // price does not move.
    const again = newBid(store, l, bidder.platformId, l.price, at);
    top.state = "replaced";
    return again;
  }

  const floor = minNextBid(a, l.price);
  if (maxPrice < floor) throw badRequest(`max_price must be at least the minimum next bid ${floor}`);
  if (!leader) {
    if (bidder.balance < maxPrice) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
    l.price = a.reservePrice;
    const b = newBid(store, l, bidder.platformId, l.price, at);
    store.post(bidder.platformId, "bid_posted", -maxPrice, maxPrice, { ...details, bid_id: b.id }, at);
    a.leader = { userId: bidder.platformId, ceiling: maxPrice };
    return b;
  }
  if (maxPrice > leader.ceiling) {
    if (bidder.balance < maxPrice) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
    releaseHold(store, leader.userId, leader.ceiling, l, at, "outbid");
    // The old leader's automatic bid went up to their ceiling before being beaten.
    if (leader.ceiling > l.price) newBid(store, l, leader.userId, leader.ceiling, at).state = "outbid";
    l.price = Math.min(maxPrice, leader.ceiling + bidIncrement(leader.ceiling));
    const b = newBid(store, l, bidder.platformId, l.price, at);
    store.post(bidder.platformId, "bid_posted", -maxPrice, maxPrice, { ...details, bid_id: b.id }, at);
    a.leader = { userId: bidder.platformId, ceiling: maxPrice };
    return b;
  }
  // The leader's ceiling covers this bid: record it as outbid and raise the leader automatically.
  const mine = newBid(store, l, bidder.platformId, maxPrice, at);
  l.price = Math.min(leader.ceiling, maxPrice + bidIncrement(maxPrice));
  newBid(store, l, leader.userId, l.price, at);
  mine.state = "outbid";
  return mine;
}

/** At expiry the leader wins at the standing price; an auction without bids ends unsold. */
export function settleAuction(store: Store, l: ListingRec, at: number): TradeRec | undefined {
  const a = l.auction;
  if (!a || l.state !== "listed") return undefined;
  const leader = a.leader;
  if (!leader) {
    endListing(store, l, "delisted", at);
    store.user(l.sellerId).inventory.set(l.asset.assetId, l.asset);
    return undefined;
  }
  releaseHold(store, leader.userId, leader.ceiling, l, at, "auction settled");
  const top = a.bids.find((b) => b.state === "active");
  if (top) top.state = "won";
  return completeSale(store, l, leader.userId, l.price, at);
}

export function watch(l: ListingRec, user: UserRec, order: number): void {
  if (!user.watchlist.has(l.id)) user.watchlist.set(l.id, order);
  l.watchers.add(user.platformId);
}

export function unwatch(l: ListingRec, user: UserRec): void {
  user.watchlist.delete(l.id);
  l.watchers.delete(user.platformId);
}

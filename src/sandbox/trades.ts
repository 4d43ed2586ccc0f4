// Trades after a sale: queued (waiting on the seller) -> pending -> verified, or cancelled with refunds.
import { randomBytes } from "node:crypto";
import { badRequest, ErrorCode } from "./errors.ts";
import { DAY, HOUR, pushTo, type ListingRec, type Store, type TradeRec } from "./state/index.ts";

/** How long a seller has to accept a queued trade (sandbox time). */
export const ACCEPT_WINDOW_MS = 12 * HOUR;
/** How long after acceptance the item transfer is verified (sandbox time). */
export const VERIFY_AFTER_MS = HOUR;
/** Deadline to send the item once accepted. */
export const SEND_WINDOW_MS = 12 * HOUR;
/**
 * Trade protection after verification: the item's sender can reverse the transfer on the
 * platform for this long (spec 2.8 trade_protection_ends_at); the marketplace then rolls the
 * sale back on both sides.
 */
export const PROTECTION_MS = 7 * DAY;

export function createTrade(
  store: Store,
  l: ListingRec,
  buyerId: string,
  price: number,
  fee: number,
  at: number,
): TradeRec {
  const { id, seq } = store.nextId(at);
  const t: TradeRec = {
    id,
    seq,
    listingId: l.id,
    buyerId,
    sellerId: l.sellerId,
    price,
    state: "queued",
    createdAt: at,
    expiresAt: at + ACCEPT_WINDOW_MS,
    acceptedAt: undefined,
    verifiedAt: undefined,
    verifyAt: undefined,
    closedAt: undefined,
    // A real secret: trade tokens must not be guessable even in a sandbox used by a browser.
    tradeToken: randomBytes(6).toString("hex"),
    platformOfferId: undefined,
    fee,
  };
  store.trades.set(id, t);
  pushTo(store.tradesByUser, buyerId, t);
  pushTo(store.tradesByUser, l.sellerId, t);
  l.tradeId = id;
  store.schedule(t.expiresAt, (when) => {
    if (t.state === "queued") cancelTrade(store, t, when, "expired");
  });
  const seller = store.user(l.sellerId);
  if (seller.autoAcceptMs !== undefined) {
    store.schedule(at + seller.autoAcceptMs, (when) => {
      if (t.state === "queued") acceptTrade(store, t, when);
    });
  }
  return t;
}

export function acceptTrade(store: Store, t: TradeRec, at: number): void {
  if (t.state !== "queued") {
    throw badRequest(
      `trade ${t.id} is ${t.state}; only a queued trade can be accepted`,
      ErrorCode.invalidState,
    );
  }
  t.state = "pending";
  t.acceptedAt = at;
  t.verifyAt = at + VERIFY_AFTER_MS;
  t.expiresAt = at + SEND_WINDOW_MS;
  t.platformOfferId = store.nextId(at).id;
  store.schedule(t.verifyAt, (when) => {
    if (t.state === "pending") verifyTrade(store, t, when);
  });
}

function verifyTrade(store: Store, t: TradeRec, at: number): void {
  t.state = "verified";
  t.verifiedAt = at;
  t.closedAt = at;
  const details = { trade_id: t.id, contract_id: t.listingId, listing_id: t.listingId };
  store.post(t.sellerId, "trade_verified", t.price - t.fee, -(t.price - t.fee), details, at);
  const seller = store.user(t.sellerId);
  const buyer = store.user(t.buyerId);
  seller.totalTrades += 1;
  seller.verifiedTrades += 1;
  buyer.totalTrades += 1;
  buyer.verifiedTrades += 1;
  // The item is the buyer's now: they can list it again (the sandbox keeps its asset id).
  const l = store.listings.get(t.listingId);
  if (l) buyer.inventory.set(l.asset.assetId, l.asset);
}

export const isCancellable = (t: TradeRec): boolean => t.state === "queued" || t.state === "pending";

/** Cancels a queued or pending trade: the buyer is refunded and the item stays with the seller. */
export function cancelTrade(store: Store, t: TradeRec, at: number, reason: string): void {
  if (!isCancellable(t)) {
    throw badRequest(`trade ${t.id} is ${t.state} and cannot be cancelled`, ErrorCode.invalidState);
  }
  const details = { trade_id: t.id, contract_id: t.listingId, listing_id: t.listingId, reason };
  store.post(t.buyerId, "contract_purchase_refund", t.price, 0, details, at);
  store.post(t.sellerId, "contract_sale_refund", 0, -(t.price - t.fee), details, at);
  t.state = "cancelled";
  t.closedAt = at;
  if (reason === "expired") store.user(t.sellerId).failedTrades += 1;
  const l = store.listings.get(t.listingId);
  if (l) {
    l.state = "refunded";
    store.user(l.sellerId).inventory.set(l.asset.assetId, l.asset);
  }
}

/** When a verified trade's protection (its reversal window) ends; undefined before verification. */
export function protectionEndsAt(t: TradeRec): number | undefined {
  if (t.verifiedAt === undefined) return undefined;
  return t.reversedAt ?? t.verifiedAt + PROTECTION_MS;
}

/**
 * Reverses a verified trade inside its protection window, as the platform's trade protection
 * allows: a `rollback` entry takes the seller's proceeds back and another refunds the buyer, each
 * naming the trade, the listing and the entry it reverses (details.original_tx). The item returns
 * to the seller. The trade's state stays `verified` (live states have no "reversed"); its
 * protection ends at the reversal.
 */
export function reverseTrade(store: Store, t: TradeRec, at: number, reason: string): void {
  const ends = protectionEndsAt(t);
  if (t.state !== "verified" || ends === undefined) {
    throw badRequest(
      `trade ${t.id} is ${t.state}; only a verified trade can be reversed`,
      ErrorCode.invalidState,
    );
  }
  if (t.reversedAt !== undefined)
    throw badRequest(`trade ${t.id} was already reversed`, ErrorCode.invalidState);
  if (at > ends) throw badRequest(`trade ${t.id} is past its protection window`, ErrorCode.invalidState);
  const net = t.price - t.fee;
  const seller = store.user(t.sellerId);
  // The platform recovers the proceeds even from a spent balance; the sandbox never goes negative.
  if (seller.balance < net)
    throw badRequest("the seller's balance cannot cover the reversal", ErrorCode.insufficientBalance);
  const txsOf = (userId: string) => store.txs.get(userId) ?? [];
  const originalOf = (userId: string, type: string) =>
    txsOf(userId).find((x) => x.type === type && x.details["contract_id"] === t.listingId)?.id;
  const details = (original: string | undefined) => ({
    trade_id: t.id,
    contract_id: t.listingId,
    listing_id: t.listingId,
    reason,
    ...(original === undefined ? {} : { original_tx: original }),
  });
  store.post(t.sellerId, "rollback", -net, 0, details(originalOf(t.sellerId, "trade_verified")), at);
  store.post(t.buyerId, "rollback", t.price, 0, details(originalOf(t.buyerId, "contract_purchased")), at);
  t.reversedAt = at;
  const l = store.listings.get(t.listingId);
  if (l) seller.inventory.set(l.asset.assetId, l.asset);
}

export interface TradeFilter {
  states: string[] | undefined;
  role: "buyer" | "seller" | undefined;
  page: number;
  limit: number;
}

/** The caller's trades, most recent first. */
export function myTrades(
  store: Store,
  userId: string,
  f: TradeFilter,
): { trades: TradeRec[]; count: number } {
  const all = (store.tradesByUser.get(userId) ?? []).filter(
    (t) =>
      (f.states === undefined || f.states.includes(t.state)) &&
      (f.role === undefined || (f.role === "buyer" ? t.buyerId : t.sellerId) === userId),
  );
  all.reverse();
  return { trades: all.slice(f.page * f.limit, (f.page + 1) * f.limit), count: all.length };
}

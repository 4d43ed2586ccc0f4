// The sandbox's in-memory world: records, indexes, the sandbox clock, the ledger and a scheduler
// that runs expiries and settlements lazily whenever a request or control call arrives.
import { SandboxError, ErrorCode } from "./errors.ts";
import type { Rng } from "./rng.ts";

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

interface Scheduled {
  at: number;
  seq: number;
  run: (at: number) => void;
}

/** A binary min-heap by (at, seq): thousands of pending expiries cost O(log n) each. */
class EventQueue {
  private heap: Scheduled[] = [];
  get size(): number {
    return this.heap.length;
  }
  push(e: Scheduled): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i] as Scheduled, h[p] as Scheduled)) break;
      [h[i], h[p]] = [h[p] as Scheduled, h[i] as Scheduled];
      i = p;
    }
  }
  peek(): Scheduled | undefined {
    return this.heap[0];
  }
  pop(): Scheduled | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l] as Scheduled, h[m] as Scheduled)) m = l;
        if (r < h.length && before(h[r] as Scheduled, h[m] as Scheduled)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Scheduled, h[i] as Scheduled];
        i = m;
      }
    }
    return top;
  }
}

const before = (a: Scheduled, b: Scheduled): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** First id handed out: just past 2^53, so clients that parse ids as numbers break visibly. */
export const FIRST_ID = 9007199254740993n;

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export class Store {
  private offsetMs = 0;
  private idCounter = FIRST_ID;
  private seqCounter = 0;
  private readonly events = new EventQueue();
  private ticking = false;

  readonly users = new Map<string, UserRec>();
  readonly usersByKey = new Map<string, UserRec>();
  readonly listings = new Map<string, ListingRec>();
  /** Listings in state `listed`, ascending by seq (creation order), for most_recent and keyset cursors. */
  readonly active: ListingRec[] = [];
  /** Sold listings per market hash name in sale order, for history. */
  readonly salesByName = new Map<string, ListingRec[]>();
  readonly bids = new Map<string, BidRec>();
  readonly offers = new Map<string, OfferRec>();
  /** Offers per party (buyer and seller both), creation order. */
  readonly offersByUser = new Map<string, OfferRec[]>();
  readonly offersByListing = new Map<string, OfferRec[]>();
  readonly trades = new Map<string, TradeRec>();
  readonly tradesByUser = new Map<string, TradeRec[]>();
  readonly buyOrders = new Map<string, BuyOrderRec>();
  readonly buyOrdersByName = new Map<string, BuyOrderRec[]>();
  readonly txs = new Map<string, TxRec[]>();
  readonly references = new Map<string, ReferenceRec>();
  readonly assetsByInspect = new Map<string, AssetRec>();
  /** Seller fee on every sale, basis points (control: setSellerFee); 0 until a test sets one. */
  sellerFeeBps = 0;

  /** Told when a scheduled event throws; the remaining events still run. */
  onEventError: (err: unknown) => void = () => {};

  constructor(
    readonly rng: Rng,
    private readonly clock: () => number,
  ) {}

  /** Wall-clock time without advanceClock offsets: rate-limit windows are real time. */
  realNow(): number {
    return this.clock();
  }

  now(): number {
    return this.clock() + this.offsetMs;
  }

  advance(ms: number): number {
    this.offsetMs += ms;
    this.tick();
    return this.now();
  }

  /** A fresh numeric id beyond 2^53 and its creation order. */
  nextId(): { id: string; seq: number } {
    const id = (this.idCounter++).toString();
    return { id, seq: ++this.seqCounter };
  }

  schedule(at: number, run: (at: number) => void): void {
    this.events.push({ at, seq: ++this.seqCounter, run });
  }

  /** Runs every scheduled event due by now, in time order, each at its own instant. */
  tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = this.now();
      for (let e = this.events.peek(); e && e.at <= now; e = this.events.peek()) {
        this.events.pop();
        try {
          e.run(e.at);
        } catch (err) {
          this.onEventError(err);
        }
      }
    } finally {
      this.ticking = false;
    }
  }

  user(platformId: string): UserRec {
    const u = this.users.get(platformId);
    if (!u) throw new SandboxError(404, ErrorCode.notFound, "user not found");
    return u;
  }

  addUser(u: UserRec): void {
    this.users.set(u.platformId, u);
    this.usersByKey.set(u.apiKey, u);
  }

  /**
   * Appends a ledger entry. Callers check funds first; this refusal is the last guard that keeps
   * balances from ever going negative.
   */
  post(
    userId: string,
    type: TxType,
    balanceOffset: number,
    pendingOffset: number,
    details: Record<string, string | number>,
    at: number = this.now(),
  ): TxRec {
    const u = this.user(userId);
    if (u.balance + balanceOffset < 0 || u.pending + pendingOffset < 0) {
      throw new SandboxError(400, ErrorCode.insufficientBalance, "insufficient balance");
    }
    u.balance += balanceOffset;
    u.pending += pendingOffset;
    const { id, seq } = this.nextId();
    const tx: TxRec = { id, seq, userId, createdAt: at, type, balanceOffset, pendingOffset, details };
    pushTo(this.txs, userId, tx);
    return tx;
  }

  /** Keeps `active` sorted by seq; new listings (highest seq) append in O(1). */
  activate(l: ListingRec): void {
    const a = this.active;
    if (a.length === 0 || (a[a.length - 1] as ListingRec).seq < l.seq) {
      a.push(l);
      return;
    }
    a.splice(lowerBound(a, l.seq), 0, l);
  }

  deactivate(l: ListingRec): void {
    const i = lowerBound(this.active, l.seq);
    if (this.active[i] === l) this.active.splice(i, 1);
  }

  recordSale(l: ListingRec): void {
    pushTo(this.salesByName, l.asset.item.marketHashName, l);
  }
}

/** Index of the first listing whose seq is >= seq. */
export function lowerBound(a: readonly ListingRec[], seq: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[mid] as ListingRec).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Auction bid increment: the step above the standing price a competing bid must reach. */
export function bidIncrement(price: number): number {
  if (price < 1_000) return 10;
  if (price < 10_000) return 50;
  if (price < 100_000) return 100;
  return 500;
}

/** Lowest offer the seller accepts: price less the allowed discount, rounded up to a cent. */
export function minOfferPrice(l: ListingRec): number {
  return Math.ceil((l.price * (10_000 - l.maxOfferDiscount)) / 10_000);
}

export function minNextBid(a: AuctionRec, standing: number): number {
  return a.leader ? standing + bidIncrement(standing) : a.reservePrice;
}

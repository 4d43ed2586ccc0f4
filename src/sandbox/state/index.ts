// The sandbox's in-memory world: records, indexes, the sandbox clock, the ledger and a scheduler
// that runs expiries and settlements lazily whenever a request or control call arrives.
// The record types, the event queue, the index helpers and the pricing rules live beside it in this folder.
import { SandboxError, ErrorCode } from "../errors.ts";
import type { Rng } from "../rng.ts";
import { lowerBound, pushTo } from "./collections.ts";
import { EventQueue } from "./events.ts";
import type {
  AssetRec,
  BidRec,
  BuyOrderRec,
  ListingRec,
  OfferRec,
  ReferenceRec,
  TradeRec,
  TxRec,
  TxType,
  UserRec,
} from "./records.ts";

export type {
  AssetRec,
  AuctionRec,
  BidRec,
  BidState,
  BuyOrderRec,
  HybridRec,
  ItemRec,
  KeychainRec,
  ListingRec,
  ListingState,
  OfferRec,
  OfferState,
  ProxyBid,
  ReferenceRec,
  StickerRec,
  TradeRec,
  TradeState,
  TxRec,
  TxType,
  UserRec,
} from "./records.ts";
export { lowerBound, pushTo } from "./collections.ts";
export { bidIncrement, minNextBid, minOfferPrice } from "./rules.ts";

/** No id is smaller: past 2^53, so clients that parse ids as numbers break visibly. */
export const FIRST_ID = 9007199254740993n;
/** Ids are snowflakes as live (docs/live-service.md): ms since this epoch, shifted left 22 bits. */
const SNOWFLAKE_EPOCH_MS = 1_546_300_800_000n;
const SNOWFLAKE_SHIFT = 22n;

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export class Store {
  private offsetMs = 0;
  private lastId = FIRST_ID - 1n;
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

  /**
   * A fresh id and its creation order. The id is a snowflake of `at` (the record's creation
   * time), so its time agrees with created_at to the millisecond, as live; never below the last
   * one, so a newer record always has a larger id (a back-dated seed record takes the next one).
   */
  nextId(at: number = this.now()): { id: string; seq: number } {
    const stamp = (BigInt(Math.max(0, Math.floor(at))) - SNOWFLAKE_EPOCH_MS) << SNOWFLAKE_SHIFT;
    this.lastId = stamp > this.lastId ? stamp : this.lastId + 1n;
    return { id: this.lastId.toString(), seq: ++this.seqCounter };
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
    const { id, seq } = this.nextId(at);
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

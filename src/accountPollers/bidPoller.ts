// Outbid and auction-result alerts: polls each tracked auction once per cycle, however many users bid on it.
import { isMarketError } from "../market/errors.ts";
import type { MarketApi } from "../market/client.ts";
import type { Priority } from "../market/scheduler.ts";
import type { Listing } from "../market/schemas.ts";
import { centsFromDb } from "../db/types.ts";
import { apiFor, forEachLimited, revokeAccount, type AccountPollerDeps, type PollUser } from "./accounts.ts";
import { endStanding } from "../spending/guard.ts";
import { openBidsWithOwners, recordBidState } from "../db/repos/pollers.ts";
import { writeAlerts } from "../outbox/store.ts";
import {
  endedAlert,
  FINAL,
  leadStatus,
  outbidAlert,
  toDate,
  topIsUser,
  type Outcome,
  type TrackedWithUser,
} from "./bidOutcomes.ts";
import { findPurchase, type Bought, type Lookup } from "./lookups.ts";

export interface BidPollerOptions extends AccountPollerDeps {
  /** Listings fetched at once. */
  concurrency?: number;
  /**
   * An auction still "listed" this long after its expiry is not ended (the service settles late):
   * its ceilings stay held, and the bidders' trades are looked at for a sale the listing does not
   * show yet. Past it, the auction is read in turn with the others instead of every cycle.
   */
  settleGraceMs?: number;
  /** How long after a sale a missing buyer trade of ours proves we did not win (a fresh trade may lag). */
  settleAfterMs?: number;
  /** Pages of trades and ledger read per outcome lookup. */
  maxPages?: number;
  now?: () => Date;
  /** The cycle (BID_POLL_INTERVAL_MS). */
  intervalMs?: number;
  /**
   * Requests per second the address budget leaves background reads (Infinity: no budget known,
   * every auction every cycle). With a budget, auctions ending within 10 minutes are read every
   * cycle at the deadline priority, the others in turn within a share of that rate.
   */
  backgroundRate?: () => number;
}

/** Auctions ending this soon are read every cycle. */
const ENDING_SOON_MS = 10 * 60_000;
/** Of the background rate, what reading auctions far from their end may use. */
const BID_SHARE = 0.3;

export interface BidCycleResult {
  listings: number;
  outbid: number;
  ended: number;
  /** Bids whose auction ended but whose outcome is not known yet (still listed, trade not shown). */
  unsettled: number;
  failed: number;
}

export interface BidPoller {
  runOnce(): Promise<BidCycleResult>;
}

export function createBidPoller(opts: BidPollerOptions): BidPoller {
  const log = opts.logger.child({ module: "alerts.bids" });
  const deps = { ...opts, logger: log };
  const now = opts.now ?? (() => new Date());
  const settleGraceMs = opts.settleGraceMs ?? 10 * 60_000;
  const settleAfterMs = opts.settleAfterMs ?? 60_000;
  const maxPages = opts.maxPages ?? 20;
  /** When a sale without a sold_at was first seen, per listing: the wait for a trade starts there. */
  const endSeen = new Map<string, number>();

  /**
   * Whether the bidder bought the auction: their buyer trade, or the purchase in their ledger.
   * Undefined when the lookup failed (retried next cycle).
   */
  async function purchaseBy(bid: TrackedWithUser, listingId: string): Promise<Lookup<Bought> | undefined> {
    const api: MarketApi | undefined = apiFor(deps, bid.user, "money");
    if (api === undefined) return undefined;
    try {
      const found = await findPurchase(api, listingId, bid.expiresAt ?? undefined, maxPages);
      if (found.kind === "unknown") {
        log.warn(
          { userId: bid.userId, listingId, maxPages },
          "auction outcome not found within the page limit; ceiling kept held, retried next cycle",
        );
      }
      return found;
    } catch (error) {
      if (isMarketError(error, "unauthorized")) await revokeAccount(deps, bid.user);
      else log.warn({ err: error, userId: bid.userId, listingId }, "auction outcome lookup failed; retried");
      return undefined;
    }
  }

  /** A sold auction: the buyer trade (or ledger) says who won, never the prices. */
  async function saleOutcome(bid: TrackedWithUser, listing: Listing): Promise<Outcome | undefined> {
    const top = listing.auction_details?.top_bid;
    const max = centsFromDb(bid.maxPriceCents);
    const itemName = listing.item.market_hash_name;
    // A final price above our ceiling cannot be ours.
    if (top !== undefined && top.price > max) {
      return { status: "lost", alert: endedAlert(bid, listing.id, itemName, false, top.price) };
    }
    const bought = await purchaseBy(bid, listing.id);
    if (bought === undefined || bought.kind === "unknown") return undefined;
    const finalPrice = top?.price ?? listing.price;
    if (bought.kind === "found") {
      const spentCents = bought.item.priceCents ?? finalPrice;
      return { status: "won", spentCents, alert: endedAlert(bid, listing.id, itemName, true, spentCents) };
    }
    const t = now().getTime();
    const endedAt = toDate(listing.sold_at)?.getTime() ?? endSeen.get(listing.id) ?? t;
    if (!endSeen.has(listing.id)) endSeen.set(listing.id, endedAt);
    if (t - endedAt < settleAfterMs) return undefined;
    return { status: "lost", alert: endedAlert(bid, listing.id, itemName, false, finalPrice) };
  }

  /** Ends the ceiling's hold as the new status requires, then stores the status (and the alert). */
  async function record(
    bid: TrackedWithUser,
    outcome: Outcome,
    seen: { topBidCents: number | undefined; topIsUser: boolean | null; expiresAt: Date | undefined },
  ): Promise<void> {
    const { status } = outcome;
    // The ceiling stops counting against the caps the moment it cannot win any more.
    if (status !== bid.status || status === "won") {
      const subject = { userId: bid.userId, kind: "bid" as const, subjectId: bid.listingId };
      if (status === "won" && outcome.spentCents !== undefined) {
        await endStanding(opts.prisma, subject, { spentCents: outcome.spentCents });
      } else if (status === "outbid" || status === "lost" || status === "cancelled") {
        await endStanding(opts.prisma, subject, { releasedBecause: status });
      }
    }
    const alerts = outcome.alert !== undefined && bid.user.alertOutbid ? [outcome.alert] : [];
    await writeAlerts(opts.prisma, alerts, (tx) => recordBidState(tx, bid, { status, ...seen }));
  }

  async function evaluate(listing: Listing, bids: TrackedWithUser[], result: BidCycleResult): Promise<void> {
    const top = listing.auction_details?.top_bid;
    const expiresAt = toDate(listing.auction_details?.expires_at);
    const t = now().getTime();
    const listed = listing.state === "listed";
    const sold = listing.state === "sold" || listing.state === "refunded";
    // Past its end but still listed: not ended. Whoever leads has not bought yet, and a wrong
    // "you lost" or a released ceiling is worse than waiting for the sale to show.
    const pastEnd = listed && expiresAt !== undefined && expiresAt.getTime() <= t;
    const overdue = pastEnd && expiresAt.getTime() + settleGraceMs <= t;
    if (overdue) log.info({ listingId: listing.id }, "auction past its end still listed; ceilings kept held");

    for (const bid of bids) {
      const max = centsFromDb(bid.maxPriceCents);
      let outcome: Outcome | undefined;
      if (listed) {
        const status = leadStatus(bid.status, top, max);
        outcome = { status };
        if (status === "outbid" && bid.status === "active" && top !== undefined && bid.user.alertOutbid) {
          // Once per outbid episode: a bidding war above the user's ceiling is not news each time.
          outcome.alert = outbidAlert(bid, listing, top, expiresAt);
          result.outbid += 1;
        }
        // The sale may have landed while the listing still shows the auction: a trade settles it.
        if (overdue && status === "active") {
          const bought = await purchaseBy(bid, listing.id);
          if (bought?.kind === "found") {
            const spentCents = bought.item.priceCents ?? top?.price ?? listing.price;
            const alert = endedAlert(bid, listing.id, listing.item.market_hash_name, true, spentCents);
            outcome = { status: "won", spentCents, alert };
          }
        }
      } else if (sold) {
        outcome = await saleOutcome(bid, listing);
      } else {
        // Ended unsold (no bid met the reserve, or withdrawn): no outcome to report.
        outcome = { status: "cancelled" };
      }
      const final = outcome !== undefined && FINAL.has(outcome.status);
      if (final) result.ended += 1;
      else if (!listed || pastEnd) result.unsettled += 1;
      if (outcome === undefined) continue;
      await record(bid, outcome, {
        topBidCents: top?.price,
        topIsUser: topIsUser(outcome.status, top, max),
        expiresAt,
      });
    }
  }

  /**
   * The listing answers 404: gone, perhaps after a sale. Each bidder's own trades and ledger say
   * whether they bought it; their ceiling is released only once it is proven they did not.
   */
  async function listingGone(
    listingId: string,
    bids: TrackedWithUser[],
    result: BidCycleResult,
  ): Promise<void> {
    for (const bid of bids) {
      const bought = await purchaseBy(bid, listingId);
      if (bought === undefined || bought.kind === "unknown") {
        result.unsettled += 1;
        continue;
      }
      result.ended += 1;
      if (bought.kind === "found") {
        const itemName = bought.item.trade?.contract?.item.market_hash_name ?? `listing ${listingId}`;
        // Without a readable price the ceiling counts as spent: the most it can have cost.
        const spentCents = bought.item.priceCents ?? centsFromDb(bid.maxPriceCents);
        await record(
          bid,
          { status: "won", spentCents, alert: endedAlert(bid, listingId, itemName, true, spentCents) },
          { topBidCents: spentCents, topIsUser: true, expiresAt: undefined },
        );
      } else {
        await record(
          bid,
          { status: "cancelled" },
          { topBidCents: undefined, topIsUser: null, expiresAt: undefined },
        );
      }
    }
  }

  const lastRead = new Map<string, number>();
  const backgroundRate = opts.backgroundRate ?? (() => Infinity);

  /** Which auctions to read this cycle, and at which priority (see BidPollerOptions). */
  function planReads(
    byListing: ReadonlyMap<string, TrackedWithUser[]>,
  ): Array<[string, TrackedWithUser[], Priority]> {
    const rate = backgroundRate();
    const all = [...byListing.entries()];
    if (!Number.isFinite(rate)) return all.map(([id, bids]) => [id, bids, "deadline"]);
    const t = now().getTime();
    const intervalMs = opts.intervalMs ?? 15_000;
    const endsSoon = (bids: TrackedWithUser[]) =>
      // An end not read yet is learnt in turn with the others (a bid placed through the bot
      // records it at once), so a backlog of unknown auctions is no burst of deadline reads.
      // One still listed long past its end (a late settlement) is read in turn too.
      bids.some(
        (b) =>
          b.expiresAt !== null &&
          b.expiresAt.getTime() - t < ENDING_SOON_MS &&
          t - b.expiresAt.getTime() < settleGraceMs,
      );
    const soon = all.filter(([, bids]) => endsSoon(bids));
    const later = all.filter(([, bids]) => !endsSoon(bids));
    const everyMs = Math.max(intervalMs, Math.ceil((later.length / (rate * BID_SHARE)) * 1000));
    const due = later
      .filter(([id]) => t - (lastRead.get(id) ?? -Infinity) >= everyMs * 0.8)
      .sort(([a], [b]) => (lastRead.get(a) ?? -Infinity) - (lastRead.get(b) ?? -Infinity))
      .slice(0, Math.max(1, Math.floor((rate * BID_SHARE * intervalMs) / 1000)));
    for (const id of lastRead.keys()) if (!byListing.has(id)) lastRead.delete(id);
    return [
      ...soon.map(([id, bids]): [string, TrackedWithUser[], Priority] => [id, bids, "deadline"]),
      ...due.map(([id, bids]): [string, TrackedWithUser[], Priority] => [id, bids, "background"]),
    ];
  }

  return {
    async runOnce() {
      const result: BidCycleResult = { listings: 0, outbid: 0, ended: 0, unsettled: 0, failed: 0 };
      const tracked: TrackedWithUser[] = await openBidsWithOwners(opts.prisma);
      const byListing = new Map<string, TrackedWithUser[]>();
      for (const t of tracked) byListing.set(t.listingId, [...(byListing.get(t.listingId) ?? []), t]);
      for (const id of endSeen.keys()) if (!byListing.has(id)) endSeen.delete(id);

      await forEachLimited(
        planReads(byListing),
        opts.concurrency ?? 4,
        async ([listingId, bids, priority]) => {
          lastRead.set(listingId, now().getTime());
          // One read per auction, with the key of one of its bidders (the listing is public, but
          // keyless reads are often refused); rotating by listing spreads the load over keys.
          const users = [...new Map(bids.map((b) => [b.userId, b.user])).values()];
          const user = users[Number(BigInt(listingId) % BigInt(users.length))] as PollUser;
          const api = apiFor(deps, user, priority);
          if (api === undefined) return;
          result.listings += 1;
          let listing: Listing;
          try {
            listing = await api.getListing(listingId);
          } catch (error) {
            result.failed += 1;
            if (isMarketError(error, "unauthorized")) {
              await revokeAccount(deps, user);
            } else if (isMarketError(error, "not_found")) {
              await listingGone(listingId, bids, result);
            } else {
              log.warn({ err: error, listingId }, "auction read failed; retried next cycle");
            }
            return;
          }
          await evaluate(listing, bids, result);
        },
      );
      if (result.outbid + result.ended + result.unsettled > 0) log.info(result, "bid cycle");
      return result;
    },
  };
}

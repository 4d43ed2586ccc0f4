// Outbid and auction-result alerts: polls each tracked auction once per cycle, however many users bid on it.
import { isMarketError } from "../../market/errors.ts";
import type { Priority } from "../../market/scheduler.ts";
import type { Listing } from "../../market/schemas.ts";
import { centsFromDb } from "../../db/types.ts";
import { apiFor, forEachLimited, revokeAccount, type AccountPollerDeps, type PollUser } from "./accounts.ts";
import { endStanding } from "../../spending/guard.ts";
import { dedupeKey } from "../delivery/content.ts";
import { cancelBidsOnListing, openBidsWithOwners, recordBidState } from "../../db/repos/pollers.ts";
import { writeAlerts, type NewAlert } from "../delivery/store.ts";

export interface BidPollerOptions extends AccountPollerDeps {
  /** Listings fetched at once. */
  concurrency?: number;
  /**
   * An auction still "listed" this long after its expiry is treated as ended without a winner
   * (the service settles late, or never tells): the tracked bid must not be polled forever.
   */
  settleGraceMs?: number;
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
  failed: number;
}

export interface BidPoller {
  runOnce(): Promise<BidCycleResult>;
}

type TrackedWithUser = {
  id: number;
  userId: number;
  listingId: string;
  maxPriceCents: bigint;
  status: "active" | "outbid" | "won" | "lost" | "cancelled";
  /** When the auction ends, as last read (null until read). */
  expiresAt: Date | null;
  user: PollUser & { alertOutbid: boolean };
};

export function createBidPoller(opts: BidPollerOptions): BidPoller {
  const log = opts.logger.child({ module: "alerts.bids" });
  const deps = { ...opts, logger: log };
  const now = opts.now ?? (() => new Date());
  const settleGraceMs = opts.settleGraceMs ?? 10 * 60_000;

  async function evaluate(listing: Listing, bids: TrackedWithUser[], result: BidCycleResult): Promise<void> {
    const details = listing.auction_details;
    const top = details?.top_bid;
    const expiresAt = details?.expires_at === undefined ? undefined : new Date(details.expires_at);
    const expired = expiresAt !== undefined && !Number.isNaN(expiresAt.getTime()) && expiresAt <= now();
    const overdue = expired && expiresAt.getTime() + settleGraceMs <= now().getTime();
    const ended = listing.state !== "listed" || overdue;
    const itemName = listing.item.market_hash_name;

    for (const bid of bids) {
      const max = centsFromDb(bid.maxPriceCents);
      const alerts: NewAlert[] = [];
      let status = bid.status;
      if (ended) {
        const sold = listing.state === "sold" || listing.state === "refunded";
        if (!sold) {
          // Ended unsold (no bid met the reserve, or withdrawn), or never settled within the
          // grace period: no outcome to report, and a wrong "you lost" is worse than none.
          status = "cancelled";
          if (listing.state === "listed")
            log.warn({ listingId: listing.id }, "auction past its end never settled; stopped tracking");
        } else {
          // Proxy bidding: whoever's ceiling stands at or above the final price led at the end.
          // (A tie at exactly our ceiling is read as ours: the marketplace does not say.)
          const won = top !== undefined && top.price <= max;
          status = won ? "won" : "lost";
          if (bid.user.alertOutbid) {
            alerts.push({
              userId: bid.userId,
              kind: won ? "auction_won" : "auction_lost",
              subjectId: listing.id,
              version: status,
              dedupeKey: dedupeKey.auctionEnded(bid.userId, listing.id),
              destination: "dm",
              alert: {
                kind: "auction_ended",
                outcome: won ? "won" : "lost",
                listingId: listing.id,
                itemName,
                yourMaxCents: max,
                ...(top === undefined ? {} : { finalPriceCents: top.price }),
              },
            });
          }
        }
        result.ended += 1;
      } else if (top !== undefined && top.price > max) {
        // Once per outbid episode: a bidding war above the user's ceiling is not news each time.
        if (bid.status === "active" && bid.user.alertOutbid) {
          alerts.push({
            userId: bid.userId,
            kind: "outbid",
            subjectId: listing.id,
            version: String(top.price),
            dedupeKey: dedupeKey.outbid(bid.userId, listing.id, top.id),
            destination: "dm",
            alert: {
              kind: "outbid",
              listingId: listing.id,
              itemName,
              yourMaxCents: max,
              topBidCents: top.price,
              ...(details?.min_next_bid === undefined ? {} : { minNextBidCents: details.min_next_bid }),
              ...(expiresAt === undefined || Number.isNaN(expiresAt.getTime())
                ? {}
                : { expiresAt: expiresAt.toISOString() }),
            },
          });
          result.outbid += 1;
        }
        status = "outbid";
      } else {
        status = "active";
      }

      // The ceiling stops counting against the caps the moment it cannot win any more.
      if (status !== bid.status || status === "won") {
        const subject = { userId: bid.userId, kind: "bid" as const, subjectId: listing.id };
        if (status === "won" && top !== undefined) {
          await endStanding(opts.prisma, subject, { spentCents: top.price });
        } else if (status === "outbid" || status === "lost" || status === "cancelled") {
          await endStanding(opts.prisma, subject, { releasedBecause: status });
        }
      }
      await writeAlerts(opts.prisma, alerts, (tx) =>
        recordBidState(tx, bid, {
          status,
          topBidCents: top?.price,
          topIsUser: top === undefined ? null : top.price <= max,
          expiresAt: expiresAt === undefined || Number.isNaN(expiresAt.getTime()) ? undefined : expiresAt,
        }),
      );
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
      bids.some((b) => b.expiresAt !== null && b.expiresAt.getTime() - t < ENDING_SOON_MS);
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
      const result: BidCycleResult = { listings: 0, outbid: 0, ended: 0, failed: 0 };
      const tracked: TrackedWithUser[] = await openBidsWithOwners(opts.prisma);
      const byListing = new Map<string, TrackedWithUser[]>();
      for (const t of tracked) byListing.set(t.listingId, [...(byListing.get(t.listingId) ?? []), t]);

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
              await cancelBidsOnListing(opts.prisma, listingId);
              for (const b of bids) {
                await endStanding(
                  opts.prisma,
                  { userId: b.userId, kind: "bid", subjectId: listingId },
                  { releasedBecause: "listing gone" },
                );
              }
            } else {
              log.warn({ err: error, listingId }, "auction read failed; retried next cycle");
            }
            return;
          }
          await evaluate(listing, bids, result);
        },
      );
      if (result.outbid + result.ended > 0) log.info(result, "bid cycle");
      return result;
    },
  };
}

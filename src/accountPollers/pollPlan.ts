// Who the per-user poller reads this cycle: by need, within what the address budget leaves for
// background work. A user with a trade waiting or an active bid is read every cycle, at the
// deadline priority; an idle user rarely, oldest-read first, so 10,000 idle users never crowd
// out the feed or a command.
import type { Priority } from "../market/scheduler.ts";
import {
  openTradeDeadlines,
  usersWithBidsEndingBy,
  usersWithTradesVerifiedSince,
} from "../db/repos/pollers.ts";
import type { Db } from "../db/types.ts";

export interface PollCandidate {
  id: number;
  /** The user's marketplace id: listings the feed reads name their seller by it. */
  platformId?: string | null;
}

export interface PlannedPoll<U> {
  user: U;
  priority: Priority;
}

export interface PollPlanOptions {
  /** The poller's cycle (TRADE_POLL_INTERVAL_MS). */
  intervalMs: number;
  /** An idle user is read at least this far apart (default 10 cycles). */
  idleEveryMs?: number;
  /** Requests one user's poll costs (trades, buy orders). */
  requestsPerUser?: number;
  /** Requests per second background polls may use (Infinity: no address budget known). */
  backgroundRate: () => number;
  now: () => number;
}

export interface PollPlanner {
  /**
   * The users to read now, most urgent first: `urgent` ones (a deadline close) every cycle at
   * the deadline priority, `hot` ones (a trade open, a bid standing) often, the rest rarely.
   */
  plan<U extends PollCandidate>(
    users: readonly U[],
    need: { urgent: ReadonlySet<number>; hot: ReadonlySet<number> },
  ): PlannedPoll<U>[];
  /** A user was read (successfully or not: either way not again before their turn). */
  polled(userId: number): void;
  /** How far apart hot and idle users are read now (stretched to fit the budget). */
  periods(hotCount: number, idleCount: number): { hotEveryMs: number; idleEveryMs: number };
  /**
   * Listings the feed read: their sellers have something to sell, so a sale may soon wait on
   * them (read often for a while).
   */
  noteListings(listings: readonly { id: string; sellerPlatformId: string | undefined }[]): void;
  /** Listings that left the market: their sellers are read at once (a sale likely waits on them). */
  noteGone(listingIds: readonly string[]): void;
}

/** A seller with a listing seen this recently counts as hot. */
const SELLING_FOR_MS = 7 * 24 * 60 * 60_000;
/** Listings remembered to map a departure back to its seller. */
const MAX_REMEMBERED_LISTINGS = 50_000;

/** Of what background polls may use, hot users get this share; idle ones the rest. */
const HOT_SHARE = 0.7;

export function createPollPlanner(opts: PollPlanOptions): PollPlanner {
  const lastPolled = new Map<number, number>();
  /** Seller platform id -> when a listing of theirs was last read by the feed. */
  const selling = new Map<string, number>();
  /** Listing id -> seller platform id, newest last (a Map keeps insertion order). */
  const sellerOf = new Map<string, string>();
  /** Sellers whose listing just left the market: read first, at the deadline priority. */
  const departed = new Set<string>();
  const perUser = opts.requestsPerUser ?? 2;
  const baseIdle = opts.idleEveryMs ?? opts.intervalMs * 10;

  function periods(hotCount: number, idleCount: number) {
    const rate = opts.backgroundRate();
    if (!Number.isFinite(rate)) return { hotEveryMs: opts.intervalMs, idleEveryMs: baseIdle };
    const hotRate = Math.min(rate * HOT_SHARE, (hotCount * perUser * 1000) / opts.intervalMs);
    const hotEveryMs = Math.max(
      opts.intervalMs,
      Math.ceil(((hotCount * perUser) / (rate * HOT_SHARE)) * 1000),
    );
    const left = Math.max(rate - hotRate, rate * (1 - HOT_SHARE));
    const idleEveryMs = Math.max(baseIdle, Math.ceil(((idleCount * perUser) / left) * 1000));
    return { hotEveryMs, idleEveryMs };
  }

  return {
    periods,
    noteListings(listings) {
      const t = opts.now();
      for (const l of listings) {
        if (l.sellerPlatformId === undefined) continue;
        selling.set(l.sellerPlatformId, t);
        sellerOf.delete(l.id);
        sellerOf.set(l.id, l.sellerPlatformId);
      }
      while (sellerOf.size > MAX_REMEMBERED_LISTINGS) {
        const oldest = sellerOf.keys().next().value;
        if (oldest === undefined) break;
        sellerOf.delete(oldest);
      }
    },
    noteGone(listingIds) {
      for (const id of listingIds) {
        const seller = sellerOf.get(id);
        if (seller !== undefined) departed.add(seller);
      }
    },
    polled(userId) {
      lastPolled.set(userId, opts.now());
    },
    plan(users, given) {
      const t = opts.now();
      // Sellers add to what the database says: departed ones are urgent, active ones hot.
      const need = { urgent: new Set(given.urgent), hot: new Set(given.hot) };
      for (const u of users) {
        const p = u.platformId;
        if (p === undefined || p === null) continue;
        if (departed.has(p)) {
          need.urgent.add(u.id);
          departed.delete(p);
        }
        const seen = selling.get(p);
        if (seen !== undefined && t - seen < SELLING_FOR_MS) need.hot.add(u.id);
      }
      const last = (u: PollCandidate) => lastPolled.get(u.id) ?? -Infinity;
      // A cycle may start a little early; a user read within the last 80% of the period waits.
      const due = (u: PollCandidate, every: number) => t - last(u) >= every * 0.8;
      const byAge = (a: PollCandidate, b: PollCandidate) => last(a) - last(b);
      const urgent = users.filter((u) => need.urgent.has(u.id));
      const hot = users.filter((u) => !need.urgent.has(u.id) && need.hot.has(u.id));
      const idle = users.filter((u) => !need.urgent.has(u.id) && !need.hot.has(u.id));
      const { hotEveryMs, idleEveryMs } = periods(hot.length + urgent.length, idle.length);
      const out: PlannedPoll<(typeof users)[number]>[] = urgent
        .filter((u) => due(u, opts.intervalMs))
        .map((user) => ({ user, priority: "deadline" as const }));
      const rest = [
        ...hot.filter((u) => due(u, hotEveryMs)).sort(byAge),
        ...idle.filter((u) => due(u, idleEveryMs)).sort(byAge),
      ];
      // Per cycle, at most what the background rate allows (urgent users already counted).
      const rate = opts.backgroundRate();
      const cap = Number.isFinite(rate)
        ? Math.max(0, Math.floor((rate * opts.intervalMs) / 1000 / perUser) - out.length)
        : rest.length;
      for (const user of rest.slice(0, cap)) out.push({ user, priority: "background" });
      return out;
    },
  };
}

/**
 * Who needs reading often: urgent, a trade waiting on them with its deadline within the hour (or
 * unknown); hot, any trade of theirs still open, or a bid on an auction ending within the hour.
 */
/**
 * How long after verification a trade keeps its user hot, and their rollback ledger read: the
 * usual protection window.
 */
export const REVERSIBLE_FOR_MS = 7 * 24 * 60 * 60_000;

export async function pollNeeds(prisma: Db, at: Date): Promise<{ urgent: Set<number>; hot: Set<number> }> {
  const soon = new Date(at.getTime() + 60 * 60_000);
  const [trades, reversible, bids] = await Promise.all([
    openTradeDeadlines(prisma),
    // A trade verified lately can still be reversed: its reversal alert should not wait (ADR 020).
    usersWithTradesVerifiedSince(prisma, new Date(at.getTime() - REVERSIBLE_FOR_MS)),
    // A bid matters to the trade poller when its auction is about to end (a win opens a trade).
    usersWithBidsEndingBy(prisma, soon),
  ]);
  const urgent = new Set<number>();
  const hot = new Set<number>();
  for (const t of trades) {
    hot.add(t.userId);
    if (t.expiresAt === null || t.expiresAt <= soon) urgent.add(t.userId);
  }
  for (const b of bids) hot.add(b.userId);
  for (const t of reversible) hot.add(t.userId);
  return { urgent, hot };
}

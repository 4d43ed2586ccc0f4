// The one feed for everyone: reads the newest listings, pages back to the persisted mark, hands each new listing on once.
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { Listing } from "../market/schemas.ts";
import { backoffDelayMs } from "../market/backoff.ts";

/** The newest listing already handed on; everything at or before it is old news. */
export interface FeedMark {
  listingId: string;
  /** created_at of that listing (ISO), when the service gave one. */
  createdAt?: string | undefined;
}

export interface FeedMarkStore {
  load(): Promise<FeedMark | undefined>;
  save(mark: FeedMark): Promise<void>;
}

export interface FeedPollerOptions {
  market: MarketClient;
  /** The operator key (MARKET_API_KEY) or none: the feed is the same for every user. */
  apiKey: string | undefined;
  logger: Logger;
  marks: FeedMarkStore;
  /**
   * Receives the new listings of one cycle, oldest first. Must have written every alert before
   * it resolves: the mark moves only afterwards, so a crash re-reads rather than skips.
   */
  handle(listings: Listing[]): Promise<void>;
  /** The nominal pause between cycles (POLL_INTERVAL_MS). */
  intervalMs: number;
  /** Fastest pace when the budget is generous; defaults to a quarter of intervalMs. */
  minIntervalMs?: number;
  /** Slowest pace after repeated failures. */
  maxIntervalMs?: number;
  /** Bounds one cycle's walk back (50 listings a page). */
  maxPages?: number;
  /** Requests kept back from the budget for the rest of the bot sharing the key. */
  reserve?: number;
  now?: () => number;
  random?: () => number;
}

export interface FeedCycleResult {
  /** first_run: the mark was set without alerting; gap: maxPages ran out before the mark. */
  outcome: "ok" | "first_run" | "gap" | "failed";
  pages: number;
  newListings: number;
  error?: unknown;
}

export interface FeedStats {
  cycles: number;
  failures: number;
  consecutiveFailures: number;
  lastCycleAt: Date | undefined;
  lastCycleMs: number | undefined;
  /** Age of the oldest new listing when the last cycle saw it: how late alerts go out. */
  lastLagMs: number | undefined;
  listingsHandled: number;
  pagesFetched: number;
  gaps: number;
  nextDelayMs: number;
  mark: FeedMark | undefined;
}

export interface FeedPoller {
  /** One cycle; never throws (failures are counted and slow the schedule). */
  runOnce(): Promise<FeedCycleResult>;
  /** Pause before the next cycle, from the last outcome and the reported rate-limit budget. */
  nextDelayMs(): number;
  stats(): FeedStats;
}

const PAGE_SIZE = 50;
const ENDPOINT = "GET /listings" as const;

export function createFeedPoller(opts: FeedPollerOptions): FeedPoller {
  const log = opts.logger.child({ module: "alerts.feed" });
  const api = opts.market.forKey(opts.apiKey);
  const now = opts.now ?? Date.now;
  const minIntervalMs = opts.minIntervalMs ?? Math.max(100, Math.floor(opts.intervalMs / 4));
  const maxIntervalMs = opts.maxIntervalMs ?? Math.max(60_000, opts.intervalMs * 10);
  const maxPages = opts.maxPages ?? 20;
  const reserve = opts.reserve ?? 1;

  let mark: FeedMark | undefined;
  let markLoaded = false;
  let lastPages = 1;
  let retryAfterMs: number | undefined;
  const stats: Omit<FeedStats, "nextDelayMs" | "mark"> = {
    cycles: 0,
    failures: 0,
    consecutiveFailures: 0,
    lastCycleAt: undefined,
    lastCycleMs: undefined,
    lastLagMs: undefined,
    listingsHandled: 0,
    pagesFetched: 0,
    gaps: 0,
  };

  async function cycle(): Promise<FeedCycleResult> {
    if (!markLoaded) {
      mark = await opts.marks.load();
      markLoaded = true;
    }
    const fresh: Listing[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let reachedMark = false;
    let newest: Listing | undefined;

    while (pages < maxPages) {
      const page = await api.searchListings({
        sort_by: "most_recent",
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      pages += 1;
      stats.pagesFetched += 1;
      newest ??= page.data[0];
      if (mark === undefined) {
        // First start: remember where the market is now; alerting on its whole history would flood.
        reachedMark = true;
        break;
      }
      for (const listing of page.data) {
        if (!isNewer(listing, mark)) {
          reachedMark = true;
          break;
        }
        // Pages shift while new listings arrive, so one listing can show up on two pages.
        if (!seen.has(listing.id)) {
          seen.add(listing.id);
          fresh.push(listing);
        }
      }
      const next = page.cursor;
      if (reachedMark || page.data.length === 0 || next === undefined || next === "" || next === cursor) {
        reachedMark ||= page.data.length === 0 || next === undefined || next === "";
        break;
      }
      cursor = next;
    }
    lastPages = Math.max(1, pages);

    if (mark === undefined) {
      if (newest !== undefined) {
        const first = markOf(newest);
        await opts.marks.save(first);
        mark = first;
        log.info({ mark: first }, "feed started: mark set to the newest listing, older ones not alerted");
      }
      return { outcome: "first_run", pages, newListings: 0 };
    }

    if (fresh.length > 0) {
      fresh.reverse(); // oldest first, so alerts go out in listing order
      const t = now();
      const lags = fresh.flatMap((l) => {
        const at = l.created_at === undefined ? NaN : Date.parse(l.created_at);
        return Number.isNaN(at) ? [] : [Math.max(0, t - at)];
      });
      stats.lastLagMs = lags.length > 0 ? Math.max(...lags) : stats.lastLagMs;
      await opts.handle(fresh);
      stats.listingsHandled += fresh.length;
      // After the alerts are written, never before: a crash in between re-reads these
      // listings and the alert dedupe keys turn the second pass into no-ops.
      const next = markOf(fresh[fresh.length - 1] as Listing);
      await opts.marks.save(next);
      mark = next;
    }
    if (!reachedMark) {
      stats.gaps += 1;
      log.warn(
        { pages, newListings: fresh.length },
        "feed walked maxPages without reaching its mark: some listings were skipped",
      );
      return { outcome: "gap", pages, newListings: fresh.length };
    }
    return { outcome: "ok", pages, newListings: fresh.length };
  }

  return {
    async runOnce() {
      const started = now();
      stats.cycles += 1;
      try {
        const result = await cycle();
        stats.consecutiveFailures = 0;
        retryAfterMs = undefined;
        return result;
      } catch (error) {
        stats.failures += 1;
        stats.consecutiveFailures += 1;
        retryAfterMs = isMarketError(error, "rate_limited") ? error.retryAfterMs : undefined;
        const kind = isMarketError(error) ? error.kind : "internal";
        log.warn({ err: error, kind, consecutiveFailures: stats.consecutiveFailures }, "feed cycle failed");
        return { outcome: "failed", pages: 0, newListings: 0, error };
      } finally {
        stats.lastCycleAt = new Date(started);
        stats.lastCycleMs = now() - started;
      }
    },

    nextDelayMs() {
      if (stats.consecutiveFailures > 0) {
        // Exponential backoff with jitter, but never sooner than the service asked.
        const backoff =
          opts.intervalMs +
          backoffDelayMs(
            stats.consecutiveFailures - 1,
            {
              baseDelayMs: opts.intervalMs,
              maxDelayMs: maxIntervalMs,
            },
            opts.random,
          );
        return Math.min(maxIntervalMs, Math.max(backoff, retryAfterMs ?? 0));
      }
      return pace();
    },

    stats() {
      return { ...stats, nextDelayMs: pace(), mark };
    },
  };

  /**
   * Spreads the remaining budget over the time left in the window: with plenty left, poll
   * faster than the nominal interval (down to minIntervalMs); with little left, slower; with
   * none, wait for the reset instead of collecting a 429.
   */
  function pace(): number {
    const state = opts.market.rateLimitState(opts.apiKey, ENDPOINT);
    if (state === undefined || state.remaining === undefined || state.resetAt === undefined) {
      return opts.intervalMs;
    }
    const untilReset = Math.max(0, state.resetAt - now());
    const usable = state.remaining - reserve;
    const cyclesLeft = Math.floor(usable / lastPages);
    if (cyclesLeft < 1) return Math.min(maxIntervalMs, untilReset + 100);
    const spread = untilReset / cyclesLeft;
    return Math.round(Math.min(maxIntervalMs, Math.max(minIntervalMs, spread)));
  }
}

/** Strictly after the mark: by created_at when both have one, then by numeric id. */
export function isNewer(listing: Listing, mark: FeedMark): boolean {
  if (listing.id === mark.listingId) return false;
  const a = listing.created_at === undefined ? NaN : Date.parse(listing.created_at);
  const b = mark.createdAt === undefined ? NaN : Date.parse(mark.createdAt);
  if (!Number.isNaN(a) && !Number.isNaN(b) && a !== b) return a > b;
  // Ids exceed 2^53, so compare them as big integers.
  return BigInt(listing.id) > BigInt(mark.listingId);
}

function markOf(listing: Listing): FeedMark {
  return { listingId: listing.id, createdAt: listing.created_at };
}

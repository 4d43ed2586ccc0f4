// What the feed poller offers and takes: its options and callbacks (handle, onGap, onGone), a
// cycle's result, its stats, and the gap it reports. Implemented by src/feed/feedPoller.ts.
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Listing } from "../market/schemas.ts";
import type { FeedMark, FeedWalk } from "./feedMarks.ts";
import type { FeedStateStore } from "./feedState.ts";

/** Listings the feed could not read: newer than `after`, older than `before` (both exclusive). */
export interface FeedGap {
  after: FeedMark;
  before: FeedMark;
  /** too_slow: a walk outlived maxCatchUpMs; cursor_expired: the service refused its cursor. */
  reason: "too_slow" | "cursor_expired";
}

export interface FeedPollerOptions {
  market: MarketClient;
  /** The operator key (MARKET_API_KEY) or none: the feed is the same for every user. */
  apiKey: string | undefined;
  logger: Logger;
  state: FeedStateStore;
  /**
   * Receives the new listings of one cycle, oldest first. Must have written every alert before
   * it resolves: the mark moves only afterwards, so a crash re-reads rather than skips.
   */
  handle(listings: Listing[], meta: FeedReadMeta): Promise<void>;
  /**
   * Tells whoever could have missed a match about listings that will never be read. Must have
   * written its notices before it resolves (the mark then moves past the gap), and write each
   * one once however often it is called for the same gap.
   */
  onGap(gap: FeedGap): Promise<void>;
  /**
   * Listings that left the market (sold or delisted: the feed cannot tell which) at about `at`:
   * on the previous cycle's first page, strictly inside this cycle's first page's window, and
   * missing from it. Called after the cycle's alerts are written; a failure is only logged.
   */
  onGone?(listingIds: string[], at: Date): Promise<void> | void;
  /**
   * Listings of the previous cycle's first page that this one should still show by their
   * places on the page (listingFates.ts' missingByPosition), and does not: nearly always gone,
   * listings created at the same instant included, which onGone leaves out. A hint only (the
   * trade poller reads their sellers first); called with onGone's timing.
   */
  onMissing?(listingIds: string[]): void;
  /** The nominal pause between cycles (POLL_INTERVAL_MS). */
  intervalMs: number;
  /** Fastest pace when the budget is generous; defaults to a quarter of intervalMs. */
  minIntervalMs?: number;
  /**
   * The shortest spacing the address's budget allows the feed (src/market/scheduler.ts); the
   * pace never goes below it, whatever the key's own budget would allow. Default none.
   */
  addressSpacingMs?: () => number;
  /** Slowest pace after repeated failures. */
  maxIntervalMs?: number;
  /**
   * Longest pause after an outage (5xx, timeout, refused connection, unreadable answer):
   * the feed keeps probing at about its normal pace so it notices recovery within seconds.
   * Default the larger of intervalMs and 2 s.
   */
  failureProbeMs?: number;
  /** Most pages one cycle reads (50 listings a page); a longer backlog continues next cycle. */
  maxPages?: number;
  /** How long a backlog may take to read before the rest is given up as a gap (default 15 min). */
  maxCatchUpMs?: number;
  /** Requests kept back from the budget for the rest of the bot sharing the key. */
  reserve?: number;
  /** When the bot started, on the marketplace's clock as far as we know (epoch ms; default now). */
  startedAt?: number;
  /**
   * How far the marketplace's clock may run behind ours: listings created up to this long before
   * the start also count as new when the start is all the feed knows (default 0, see ADR 003).
   */
  startSkewMs?: number;
  now?: () => number;
  random?: () => number;
}

export interface FeedCycleResult {
  /**
   * first_run: the cycle started from the bot's start (no listing mark yet); backlog: a walk back
   * continues next cycle; gap: listings were given up and their possible watchers told.
   */
  outcome: "ok" | "first_run" | "backlog" | "gap" | "failed";
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
  /** The mark after the last cycle that read the market; undefined before the first one. */
  mark: FeedMark | undefined;
  /** The backlog still being read, if any. */
  walk: FeedWalk | undefined;
}

export interface FeedPoller {
  /** One cycle; never throws (failures are counted and slow the schedule). */
  runOnce(): Promise<FeedCycleResult>;
  /** Pause before the next cycle, from the last outcome and the reported rate-limit budget. */
  nextDelayMs(): number;
  stats(): FeedStats;
}

/** When the listings handed on were read (wall clock, ms). */
export interface FeedReadMeta {
  readAt: number;
}

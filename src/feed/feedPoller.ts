// The one feed for everyone: reads the newest listings, pages back to the persisted mark, hands each new listing on once.
// Its types are in feedApi.ts, marks and their order in feedMarks.ts, its stored state in
// feedState.ts, its pace in feedPace.ts.
import { isMarketError } from "../market/errors.ts";
import type { Listing, ListingPlace, ListingPlaces } from "../market/schemas.ts";
import type { FeedCycleResult, FeedGap, FeedPoller, FeedPollerOptions, FeedStats } from "./feedApi.ts";
import { BEGINNING, NO_LISTING, compareListings, hasNext, isNewer, markOf, sameWalk } from "./feedMarks.ts";
import type { FeedMark, FeedWalk } from "./feedMarks.ts";
import { failureDelay, feedPace } from "./feedPace.ts";
import type { FeedPaceSettings } from "./feedPace.ts";
import { goneFromFeed, missingByPosition } from "./listingFates.ts";

export type {
  FeedCycleResult,
  FeedGap,
  FeedPoller,
  FeedPollerOptions,
  FeedReadMeta,
  FeedStats,
} from "./feedApi.ts";
export { NO_LISTING, isNewer } from "./feedMarks.ts";
export type { FeedMark, FeedWalk } from "./feedMarks.ts";
export { feedStateStore } from "./feedState.ts";
export type { FeedState, FeedStateStore } from "./feedState.ts";

const PAGE_SIZE = 50;
/** Failures that end when the service recovers, with nothing for the bot to change. */
const OUTAGE_KINDS: ReadonlySet<string> = new Set(["upstream", "timeout", "network", "invalid_response"]);
const ENDPOINT = "GET /listings" as const;

export function createFeedPoller(opts: FeedPollerOptions): FeedPoller {
  const log = opts.logger.child({ module: "alerts.feed" });
  const api = opts.market.forKey(opts.apiKey, { priority: "feed" });
  const now = opts.now ?? Date.now;
  const minIntervalMs = opts.minIntervalMs ?? Math.max(100, Math.floor(opts.intervalMs / 4));
  const maxIntervalMs = opts.maxIntervalMs ?? Math.max(60_000, opts.intervalMs * 10);
  const failureProbeMs = opts.failureProbeMs ?? Math.max(opts.intervalMs, 2_000);
  const maxPages = Math.max(1, opts.maxPages ?? 20);
  const maxCatchUpMs = opts.maxCatchUpMs ?? 15 * 60_000;
  const reserve = opts.reserve ?? 1;
  const startMark: FeedMark = {
    listingId: NO_LISTING,
    createdAt: new Date((opts.startedAt ?? now()) - (opts.startSkewMs ?? 0)).toISOString(),
  };

  let mark: FeedMark | undefined;
  let walk: FeedWalk | undefined;
  let lastPages = 1;
  let retryAfterMs: number | undefined;
  /** Whether the last failure was an outage that may end any moment (then the feed keeps probing). */
  let outage = false;
  /** The last cycle's first page, for gone detection; dropped when a cycle did not read one. */
  let lastFirstPage: { listings: readonly ListingPlace[]; at: number } | undefined;
  const stats: Omit<FeedStats, "nextDelayMs" | "mark" | "walk"> = {
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

  const paceSettings: FeedPaceSettings = {
    intervalMs: opts.intervalMs,
    minIntervalMs,
    maxIntervalMs,
    failureProbeMs,
    reserve,
    addressSpacingMs: opts.addressSpacingMs,
    random: opts.random,
  };

  /**
   * Whether one more page fits this cycle: the cap, and the budget the client last saw for the
   * key (minus the reserve). The first page always goes: pace() already waited for the budget,
   * and the client's limiter waits for a reset rather than collect a 429.
   */
  function mayRead(pages: number): boolean {
    if (pages >= maxPages) return false;
    if (pages === 0) return true;
    const remaining = opts.market.rateLimitState(opts.apiKey, ENDPOINT)?.remaining;
    return remaining === undefined || remaining - reserve >= 1;
  }

  async function cycle(): Promise<FeedCycleResult> {
    // Read every cycle: leadership can move between processes, and each must start from the
    // stored state, not from what it remembered when it last led.
    let state = await opts.state.load();
    if (state.mark === undefined) state = await opts.state.begin(startMark);
    const firstRun = state.provisional;
    const from = state.mark ?? startMark;
    let floor = from;
    let open = state.walk;
    let gap: FeedGap | undefined;
    let pages = 0;
    let failure: { error: unknown } | undefined;
    const fresh: Listing[] = [];
    const seen = new Set<string>();
    let firstPage: ListingPlaces | undefined;
    /** Wall-clock ms when this cycle's first page answered: armed rules measure from here. */
    let readAt: number | undefined;

    // Read place first: of the listings on a page, only those newer than the mark are decoded
    // whole, the few a cycle hands on, not the fifty it reads (ADR 042).
    const read = async (cursor: string | undefined): Promise<ListingPlaces> => {
      const page = await api.searchListingPlaces({
        sort_by: "most_recent",
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      pages += 1;
      stats.pagesFetched += 1;
      readAt ??= Date.now();
      return page;
    };
    /**
     * Takes a page's listings newer than the floor; reached: it met the floor. A new listing that
     * does not read is left out (and reported) but still moves the mark: it is not read again.
     */
    const take = (
      page: ListingPlaces,
    ): { reached: boolean; newest: ListingPlace | undefined; oldest: ListingPlace | undefined } => {
      let newest: ListingPlace | undefined;
      let oldest: ListingPlace | undefined;
      let reached = false;
      const picked: ListingPlace[] = [];
      for (const place of page.places) {
        if (!isNewer(place, floor)) {
          reached = true;
          break;
        }
        // Live pages can shift while listings arrive, so one listing can show up on two pages.
        if (!seen.has(place.id)) {
          seen.add(place.id);
          picked.push(place);
        }
        newest ??= place;
        oldest = place;
      }
      fresh.push(...page.listings(picked));
      return { reached, newest, oldest };
    };
    const giveUp = (w: FeedWalk, reason: FeedGap["reason"]) => {
      gap = { after: floor, before: w.last ?? w.top, reason };
      floor = w.top;
      open = undefined;
    };

    try {
      // 1. A backlog left by earlier cycles is finished first, from where it stopped.
      if (open !== undefined && now() - open.startedAt >= maxCatchUpMs) giveUp(open, "too_slow");
      while (open !== undefined && mayRead(pages)) {
        const w: FeedWalk = open;
        let page: ListingPlaces;
        try {
          page = await read(w.cursor);
        } catch (error) {
          // A cursor the service no longer accepts cannot be resumed: what lies below is lost.
          if (isMarketError(error, "bad_request")) {
            giveUp(w, "cursor_expired");
            break;
          }
          throw error;
        }
        const got = take(page);
        const last = got.oldest === undefined ? w.last : markOf(got.oldest);
        if (got.reached || !hasNext(page, w.cursor)) {
          floor = w.top;
          open = undefined;
        } else {
          open = { ...w, cursor: page.cursor as string, last, pages: w.pages + 1 };
        }
      }

      // 2. Then the newest listings, down to the mark (or the start, on a first run).
      if (open === undefined && mayRead(pages)) {
        const before = pages;
        let cursor: string | undefined;
        let top: ListingPlace | undefined;
        let newestOverall: ListingPlace | undefined;
        let oldest: ListingPlace | undefined;
        let reached = false;
        try {
          for (;;) {
            const page = await read(cursor);
            if (cursor === undefined) firstPage = page;
            newestOverall ??= page.places[0];
            const got = take(page);
            top ??= got.newest;
            oldest = got.oldest ?? oldest;
            if (got.reached || !hasNext(page, cursor)) {
              reached = true;
              break;
            }
            cursor = page.cursor as string;
            if (!mayRead(pages)) break;
          }
        } catch (error) {
          failure = { error };
        }
        if (reached) {
          if (top !== undefined) floor = markOf(top);
          else if (floor.listingId === NO_LISTING && firstRun)
            // Nothing newer than the start: the newest listing that existed then becomes the mark
            // (listing against listing from now on, whatever the clocks say), or, when the market
            // was empty, the beginning of time: whatever appears later is new.
            floor = newestOverall === undefined ? BEGINNING : markOf(newestOverall);
        } else if (top !== undefined && cursor !== undefined) {
          // Out of pages (or failed) before the mark: the rest of the backlog is read next cycle.
          open = {
            top: markOf(top),
            cursor,
            last: oldest === undefined ? undefined : markOf(oldest),
            startedAt: now(),
            pages: pages - before,
          };
        }
      }
    } catch (error) {
      failure = { error };
    }

    // What was read is handed on, and the position stored, even when a later page failed: a
    // long backlog on a flaky service still moves forward.
    if (gap !== undefined) {
      stats.gaps += 1;
      log.warn({ gap }, "feed gave up part of a backlog: watchers told of the gap");
      await opts.onGap(gap);
    }
    if (fresh.length > 0) {
      fresh.sort(compareListings); // oldest first, so alerts go out in listing order
      const t = now();
      const lags = fresh.flatMap((l) => {
        const at = l.created_at === undefined ? NaN : Date.parse(l.created_at);
        return Number.isNaN(at) ? [] : [Math.max(0, t - at)];
      });
      stats.lastLagMs = lags.length > 0 ? Math.max(...lags) : stats.lastLagMs;
      await opts.handle(fresh, { readAt: readAt ?? Date.now() });
      stats.listingsHandled += fresh.length;
    }
    // After the alerts are written, never before: a crash in between re-reads these listings
    // and the alert dedupe keys turn the second pass into no-ops.
    if (floor !== from || !sameWalk(open, state.walk)) await opts.state.save(floor, open);
    const started = floor.listingId !== NO_LISTING || floor === BEGINNING || !firstRun;
    mark = started ? floor : mark;
    walk = open;
    lastPages = Math.max(1, pages);
    await reportGone(firstPage);
    if (failure !== undefined) throw failure.error;
    if (open !== undefined) {
      log.info(
        { pages, newListings: fresh.length, walkPages: open.pages },
        "feed backlog longer than this cycle's budget: reading on next cycle",
      );
    }
    const outcome =
      gap !== undefined ? "gap" : open !== undefined ? "backlog" : firstRun ? "first_run" : "ok";
    if (firstRun && open === undefined) {
      log.info({ mark: floor, newListings: fresh.length }, "feed started: listings after the start alerted");
    }
    return { outcome, pages, newListings: fresh.length };
  }

  /**
   * Compares this cycle's first page with the last one. A previous page older than the slowest
   * pace (a cycle without one, leadership that moved away and back) is not compared: the
   * departure time would be anyone's guess.
   */
  async function reportGone(page: ListingPlaces | undefined): Promise<void> {
    const previous = lastFirstPage;
    const t = now();
    lastFirstPage = page === undefined ? undefined : { listings: page.places, at: t };
    if (page === undefined || previous === undefined) return;
    if (t - previous.at > maxIntervalMs * 2) return;
    if (opts.onMissing !== undefined) {
      const missing = missingByPosition(previous.listings, page.places);
      if (missing.length > 0) opts.onMissing(missing);
    }
    if (opts.onGone === undefined) return;
    const gone = goneFromFeed(previous.listings, {
      listings: page.places,
      complete: !hasNext(page, undefined),
    });
    if (gone.length === 0) return;
    try {
      await opts.onGone(gone, new Date(t));
    } catch (err) {
      log.warn({ err, gone: gone.length }, "recording listings gone from the feed failed");
    }
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
        outage = isMarketError(error) && OUTAGE_KINDS.has(error.kind);
        retryAfterMs = isMarketError(error, "rate_limited") ? error.retryAfterMs : undefined;
        const failures = stats.consecutiveFailures;
        if (isMarketError(error)) {
          // An expected outage: one line saying what failed, no stack trace.
          const { kind, endpoint, status } = error;
          log.warn({ kind, endpoint, status, consecutiveFailures: failures }, `feed cycle failed: ${kind}`);
        } else {
          log.warn({ err: error, kind: "internal", consecutiveFailures: failures }, "feed cycle failed");
        }
        return { outcome: "failed", pages: 0, newListings: 0, error };
      } finally {
        stats.lastCycleAt = new Date(started);
        stats.lastCycleMs = now() - started;
      }
    },

    nextDelayMs() {
      if (stats.consecutiveFailures > 0) {
        return failureDelay(
          paceSettings,
          { consecutiveFailures: stats.consecutiveFailures, outage, retryAfterMs },
          pace,
        );
      }
      return pace();
    },

    stats() {
      return { ...stats, nextDelayMs: pace(), mark, walk };
    },
  };

  /** The pause a healthy feed takes: see feedPace. */
  function pace(): number {
    return feedPace(paceSettings, opts.market.rateLimitState(opts.apiKey, ENDPOINT), lastPages, now);
  }
}

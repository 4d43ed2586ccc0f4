// The feed's part of the engine (leader only): the one feed for everyone, the rule index it
// matches against (kept in step with Postgres before each cycle), armed rules' purchases first,
// then listing alerts. Rule syncs share the feed's queue: both read and move the index's marker.
import type { FeeModel } from "../market/fees.ts";
import type { Listing } from "../market/schemas.ts";
import type { ArmedBuyer } from "./armedHits.ts";
import type { DeliveryHandOver } from "../outbox/part.ts";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Scheduler } from "../market/scheduler.ts";
import { createLoop, serialQueue } from "../runtime/loop.ts";
import type { PartContext } from "../runtime/part.ts";
import { createRuleIndex, type RuleIndex } from "./matcher/ruleIndex.ts";
import type { RuleChange } from "./rules.ts";
import type { FateRecorder } from "../feed/fateRecorder.ts";
import { queueGapNotices } from "../feed/feedGap.ts";
import {
  createFeedPoller,
  feedStateStore,
  type FeedCycleResult,
  type FeedStats,
} from "../feed/feedPoller.ts";
import { actOnArmedMatches, queueListingAlerts } from "./listingAlerts.ts";
import { createSalesRate } from "../feed/salesRate.ts";

/** What the feed's part is built from. */
export interface FeedPartDeps {
  config: Pick<Config, "POLL_INTERVAL_MS" | "MARKET_API_KEY"> &
    Partial<Pick<Config, "MARKET_SCREENSHOT_URL">>;
  prisma: Db;
  market: MarketClient;
  logger: Logger;
  /** Feed tuning, mostly for tests and benchmarks (see FeedPollerOptions). */
  feed?: { maxPages?: number; minIntervalMs?: number; maxCatchUpMs?: number; startSkewMs?: number };
  /** The address's request budget: the feed paces itself to what it leaves. */
  scheduler?: Scheduler;
}

export interface FeedCycleEvent {
  /** False when the cycle failed (marketplace error, database error). */
  ok: boolean;
}

export interface ListingsMatchedEvent {
  /** New listings handed to the matcher. */
  listings: number;
  /** Rule hits among them (before per-user dedupe and preferences). */
  matched: number;
  /** Alerts written to the outbox. */
  queued: number;
}

/** What the feed reports (src/metrics.ts implements it; /healthz reads the feed state from it). */
export interface FeedMetrics {
  /** On every feed tick: whether this process leads (only the leader runs the feed). */
  feedLeadership(leading: boolean): void;
  /** After every feed cycle this process ran. */
  feedCycle(event: FeedCycleEvent): void;
  /** After the new listings of a cycle were matched against the rules. */
  listingsMatched?(event: ListingsMatchedEvent): void;
}

export interface FeedPart {
  readonly ruleIndex: RuleIndex;
  runFeedOnce(): Promise<FeedCycleResult>;
  /** Picks up rule changes made by other processes, in the feed's queue. */
  syncRulesOnce(): Promise<void>;
  /** This process's own rule writes, applied to the index at once. */
  onRuleChange(change: RuleChange): void;
  /** On election: another process may have changed rules while we followed, so load them all. */
  elected(): void;
  stats(): FeedStats;
  start(): void;
  stop(): Promise<void>;
}

export interface FeedPartContext extends PartContext {
  readonly fees: FeeModel;
  readonly fates: FateRecorder;
  readonly autoBuyer: ArmedBuyer;
  /** Where new and gone listings go besides the matcher (the trade poller watches its own). */
  readonly noteListings: (listings: readonly Listing[]) => void;
  readonly noteGone: (listingIds: readonly string[]) => void;
  readonly observe: (fn: (m: FeedMetrics) => void) => void;
  /** This process's delivery worker: listing alerts are claimed for it as they are written. */
  readonly handOver?: DeliveryHandOver | undefined;
}

export function createFeedPart(deps: FeedPartDeps, ctx: FeedPartContext): FeedPart {
  const { log, now, fees } = ctx;
  const ruleIndex = createRuleIndex({ prisma: deps.prisma, logger: deps.logger, fees });
  // min_sales_per_day reads the public price-history graph with the feed's key, once per item an hour.
  const salesRate = createSalesRate({
    readGraph: (name) => deps.market.forKey(deps.config.MARKET_API_KEY).getHistoryGraph(name),
    logger: deps.logger,
    now,
  });
  let rulesLoaded = false;
  const snipe = {
    // Read at each use: a full reload between the cycle's two passes replaces the index.
    get armedIndex() {
      return ruleIndex.armedIndex;
    },
    armedRule: (id: string) => ruleIndex.armedRule(id),
    autoBuyer: ctx.autoBuyer,
  };

  const feed = createFeedPoller({
    market: deps.market,
    apiKey: deps.config.MARKET_API_KEY,
    logger: deps.logger,
    state: feedStateStore(deps.prisma, "feed"),
    intervalMs: deps.config.POLL_INTERVAL_MS,
    // Listings created after this alert on a first start, even when the market is empty then
    // or the first reads fail. Read on the pollers' clock, which tests set to the sandbox's.
    startedAt: now().getTime(),
    ...(deps.feed?.maxPages === undefined ? {} : { maxPages: deps.feed.maxPages }),
    ...(deps.feed?.minIntervalMs === undefined ? {} : { minIntervalMs: deps.feed.minIntervalMs }),
    addressSpacingMs: () => deps.scheduler?.feedSpacingMs() ?? 0,
    ...(deps.feed?.maxCatchUpMs === undefined ? {} : { maxCatchUpMs: deps.feed.maxCatchUpMs }),
    ...(deps.feed?.startSkewMs === undefined ? {} : { startSkewMs: deps.feed.startSkewMs }),
    onGap: async (gap) => {
      const queued = await queueGapNotices({ prisma: deps.prisma, logger: deps.logger }, gap);
      if (queued > 0) ctx.kickDelivery();
    },
    // Recorded in the background: the next cycle's alerts do not wait for it.
    onGone: (listingIds, at) => {
      ctx.noteGone(listingIds);
      ctx.fates.observeGone(listingIds, at);
    },
    // Listings that left by their places on the page, same-instant ones included: their
    // sellers are read first (a sale likely waits on them); only onGone's are recorded as fates.
    onMissing: (listingIds) => ctx.noteGone(listingIds),
    handle: async (listings, meta) => {
      ctx.noteListings(listings);
      // Armed rules race other buyers: their purchases start before anything else is read.
      const taken = await actOnArmedMatches({ snipe }, listings, meta.readAt);
      const result = await queueListingAlerts(
        {
          prisma: deps.prisma,
          logger: deps.logger,
          // Read at each use, as armedIndex: the sync below may replace the index.
          get index() {
            return ruleIndex.index;
          },
          // Rules saved while this cycle was reading were not in the index when it began, yet a
          // listing created after them is theirs: look again (one aggregate query) once the
          // alerts are written; the listings are matched again when the look found changes.
          syncRules: ensureRules,
          snipe,
          fees,
          salesRate,
          onReleased: ctx.kickDelivery,
          onQueued: ctx.kickDelivery,
          handOver: ctx.handOver,
          screenshotTemplate: deps.config.MARKET_SCREENSHOT_URL,
        },
        listings,
        { readAt: meta.readAt, taken },
      );
      ctx.observe((m) =>
        m.listingsMatched?.({ listings: listings.length, matched: result.matched, queued: result.queued }),
      );
    },
  });

  /** Loads every rule after a start or an election, else picks up changes; true when the index changed. */
  async function ensureRules(): Promise<boolean> {
    if (!rulesLoaded) {
      await ruleIndex.loadAll();
      rulesLoaded = true;
      return true;
    }
    return ruleIndex.syncChanges();
  }
  const feedQueue = serialQueue();
  const runFeedOnce = () =>
    feedQueue(async (): Promise<FeedCycleResult> => {
      await ensureRules();
      return feed.runOnce();
    });

  /** Reports leadership on every tick, so /healthz and the metrics follow it moving between replicas. */
  const feedPass = async () => {
    const lead = ctx.leading();
    ctx.observe((m) => m.feedLeadership(lead));
    if (!lead) return;
    let ok = false;
    try {
      ok = (await runFeedOnce()).outcome !== "failed";
    } finally {
      ctx.observe((m) => m.feedCycle({ ok }));
    }
  };
  // The pace is the spacing of polls: a cycle's own time, and how late its timer fired on a busy
  // machine, come out of the pause, so a new listing waits at most one interval, not interval +
  // cycle + lateness. A failed cycle's backoff runs in full.
  const loop = createLoop("feed", log, feedPass, (sinceDueMs) => {
    if (!ctx.leading()) return deps.config.POLL_INTERVAL_MS;
    const delay = feed.nextDelayMs();
    if (feed.stats().consecutiveFailures > 0) return delay;
    // A cycle slower than the pace must not turn the loop into back-to-back polling that starves
    // everything else in the process: keep at least a quarter of the pace between cycles.
    return Math.max(Math.ceil(delay / 4), delay - sinceDueMs);
  });

  return {
    ruleIndex,
    runFeedOnce,
    syncRulesOnce: async () => {
      await feedQueue(ensureRules);
    },
    onRuleChange(change) {
      if (rulesLoaded) ruleIndex.apply(change);
    },
    elected() {
      rulesLoaded = false;
      loop.kick();
    },
    stats: () => feed.stats(),
    start: () => loop.start(),
    stop: () => loop.stop(),
  };
}

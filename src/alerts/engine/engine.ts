// The alert engine: wires rules, feed, bid and trade pollers, delivery and leadership into one background service.
import cron, { type ScheduledTask } from "node-cron";
import { DEFAULT_FEES, feeModel, percentToBps } from "../../market/fees.ts";
import { createBidPoller, type BidCycleResult } from "../accountPollers/bidPoller.ts";
import { releaseClaims } from "../../db/repos/outbox.ts";
import { createDeliveryWorker } from "../delivery/delivery.ts";
import { queueGapNotices } from "../feed/feedGap.ts";
import { createFateRecorder } from "../feed/fateRecorder.ts";
import { createFeedPoller, feedStateStore, type FeedCycleResult } from "../feed/feedPoller.ts";
import { createLeader, type Leader } from "./leader.ts";
import { createLoop, serial, serialQueue } from "./loop.ts";
import { actOnArmedMatches, queueListingAlerts } from "../feed/listingAlerts.ts";
import { createReconciler } from "../accountPollers/reconciler.ts";
import { createRuleIndex } from "../matcher/ruleIndex.ts";
import { createSalesRate } from "../feed/salesRate.ts";
import { createTradePoller, type TradeCycleResult } from "../accountPollers/tradePoller.ts";
import { queueWeeklyReports } from "../delivery/weeklyReport.ts";
import { createAutoBuyer } from "../../snipe/autoBuyer.ts";
import { pruneExpired, retentionFromConfig } from "../../privacy/retention.ts";

export type { AlertSentEvent } from "../delivery/delivery.ts";
export type {
  AlertEngine,
  AlertEngineDeps,
  AlertEngineStats,
  AlertMetrics,
  FeedCycleEvent,
} from "./engineContract.ts";
import type { AlertEngine, AlertEngineDeps, AlertMetrics } from "./engineContract.ts";

export function createAlertEngine(deps: AlertEngineDeps): AlertEngine {
  const log = deps.logger.child({ module: "alerts" });
  const now = deps.now ?? (() => new Date());
  // One fee model for the index and the alerts it queues: a rule's "net at least $5" and the
  // alert's "Net at reference" must count the same fee.
  const fees =
    deps.config.SELLER_FEE_PERCENT === undefined
      ? DEFAULT_FEES
      : feeModel(percentToBps(deps.config.SELLER_FEE_PERCENT));
  const ruleIndex = createRuleIndex({ prisma: deps.prisma, logger: deps.logger, fees });
  // min_sales_per_day reads the public price-history graph with the feed's key, once per item an hour.
  const salesRate = createSalesRate({
    readGraph: (name) => deps.market.forKey(deps.config.MARKET_API_KEY).getHistoryGraph(name),
    logger: deps.logger,
    now,
  });
  let rulesLoaded = false;
  let lastBidCycle: BidCycleResult | undefined;
  let lastTradeCycle: TradeCycleResult | undefined;
  const ownFates = deps.fates === undefined;
  const fates = deps.fates ?? createFateRecorder({ prisma: deps.prisma, logger: deps.logger, now });

  const delivery = createDeliveryWorker({
    prisma: deps.prisma,
    sender: deps.sender,
    logger: deps.logger,
    now,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.workerId === undefined ? {} : { workerId: deps.workerId }),
    ...(deps.delivery?.leaseMs === undefined ? {} : { leaseMs: deps.delivery.leaseMs }),
    ...(deps.delivery?.retry === undefined ? {} : { retry: deps.delivery.retry }),
  });
  const deliveryLoop = createLoop(
    "delivery",
    log,
    async () => {
      // One batch per pass: while passes find work, go again at once, so a burst drains at
      // Discord's pace rather than one batch per deliveryIntervalMs.
      if ((await delivery.runOnce()).claimed > 0) deliveryLoop.kick();
    },
    () => deps.deliveryIntervalMs ?? 1_000,
  );

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
      if (queued > 0) deliveryLoop.kick();
    },
    // Recorded in the background: the next cycle's alerts do not wait for it.
    onGone: (listingIds, at) => {
      trades.noteGone(listingIds);
      fates.observeGone(listingIds, at);
    },
    handle: async (listings, meta) => {
      trades.noteListings(listings);
      const snipe = {
        // Read at each use: a full reload between the cycle's two passes replaces the index.
        get armedIndex() {
          return ruleIndex.armedIndex;
        },
        armedMode: (id: string) => ruleIndex.armedMode(id),
        autoBuyer,
      };
      // Armed rules race other buyers: their purchases start before anything else is read.
      const taken = await actOnArmedMatches({ snipe }, listings, meta.readAt);
      // Rules saved while this cycle was reading were not in the index when it began, yet a
      // listing created after them is theirs: look again (one aggregate query) before matching.
      await ensureRules();
      const result = await queueListingAlerts(
        {
          prisma: deps.prisma,
          logger: deps.logger,
          index: ruleIndex.index,
          snipe,
          fees,
          salesRate,
          onReleased: () => deliveryLoop.kick(),
          screenshotTemplate: deps.config.MARKET_SCREENSHOT_URL,
        },
        listings,
        { readAt: meta.readAt, taken },
      );
      if (result.queued > 0) deliveryLoop.kick();
      observe((m) =>
        m.listingsMatched?.({ listings: listings.length, matched: result.matched, queued: result.queued }),
      );
    },
  });
  const accountDeps = {
    prisma: deps.prisma,
    market: deps.market,
    openKey: deps.openKey,
    logger: deps.logger,
    now,
  };
  const autoBuyer = createAutoBuyer({
    fees,
    prisma: deps.prisma,
    market: deps.market,
    openKey: deps.openKey,
    logger: deps.logger,
    now,
    onAlertQueued: () => deliveryLoop.kick(),
  });
  const bids = createBidPoller({
    ...accountDeps,
    intervalMs: deps.config.BID_POLL_INTERVAL_MS,
    backgroundRate: () => deps.scheduler?.rateFor("background") ?? Infinity,
  });
  const trades = createTradePoller({
    ...accountDeps,
    intervalMs: deps.config.TRADE_POLL_INTERVAL_MS,
    backgroundRate: () => deps.scheduler?.rateFor("background") ?? Infinity,
  });
  const reconciler = createReconciler(accountDeps);

  async function ensureRules(): Promise<void> {
    if (!rulesLoaded) {
      await ruleIndex.loadAll();
      rulesLoaded = true;
    } else {
      await ruleIndex.syncChanges();
    }
  }

  // Rule syncs share the feed's queue: both read and move the index's change marker.
  const feedQueue = serialQueue();
  const runFeedOnce = () =>
    feedQueue(async (): Promise<FeedCycleResult> => {
      await ensureRules();
      return feed.runOnce();
    });
  const serialRules = () => feedQueue(ensureRules);
  const runBidsOnce = serial(async () => {
    lastBidCycle = await bids.runOnce();
    if (lastBidCycle.outbid + lastBidCycle.ended > 0) deliveryLoop.kick();
    return lastBidCycle;
  });
  const runTradesOnce = serial(async () => {
    lastTradeCycle = await trades.runOnce();
    if (lastTradeCycle.alerts + lastTradeCycle.revoked > 0) deliveryLoop.kick();
    return lastTradeCycle;
  });
  const runRemindersOnce = serial(() => trades.runRemindersOnce());
  const runWeeklyReportOnce = serialQueue();
  const weeklyReport = (at: Date = now()) =>
    runWeeklyReportOnce(async () => {
      // Sightings still waiting for their batch count this week too.
      await fates.flush();
      const queued = await queueWeeklyReports(
        { prisma: deps.prisma, logger: deps.logger, ...(deps.fees === undefined ? {} : { fees: deps.fees }) },
        at,
      );
      if (queued > 0) deliveryLoop.kick();
      return queued;
    });
  const runReconcileOnce = serial(async () => {
    const result = await reconciler.runOnce();
    if (result.settled > 0) deliveryLoop.kick();
    return result;
  });

  const retention = retentionFromConfig(deps.config);
  const runRetentionOnce = serial(async () => {
    const pruned = await pruneExpired(deps.prisma, retention);
    if (Object.values(pruned).some((n) => n > 0))
      log.info({ ...pruned }, "records past their retention pruned");
    return pruned;
  });

  let leader: Leader | undefined;
  const leading = () => leader?.isLeader() === true;
  /** Leader-only loops idle (cheaply) on followers instead of being started and stopped. */
  const whileLeading = (fn: () => Promise<unknown>) => async () => {
    if (leading()) await fn();
  };
  const observe = (fn: (m: AlertMetrics) => void) => {
    if (deps.metrics === undefined) return;
    try {
      fn(deps.metrics);
    } catch (err) {
      log.warn({ err }, "alert metrics hook threw");
    }
  };
  /** Reports leadership on every tick, so /healthz and the metrics follow it moving between replicas. */
  const feedPass = async () => {
    const lead = leading();
    observe((m) => m.feedLeadership(lead));
    if (!lead) return;
    let ok = false;
    try {
      ok = (await runFeedOnce()).outcome !== "failed";
    } finally {
      observe((m) => m.feedCycle({ ok }));
    }
  };
  // The pace is the spacing of polls: a cycle's own time comes out of the pause, so a new listing
  // waits at most one interval, not interval + cycle. A failed cycle's backoff runs in full.
  const feedLoop = createLoop("feed", log, feedPass, (passMs) => {
    if (!leading()) return deps.config.POLL_INTERVAL_MS;
    const delay = feed.nextDelayMs();
    if (feed.stats().consecutiveFailures > 0) return delay;
    // A cycle slower than the pace must not turn the loop into back-to-back polling that starves
    // everything else in the process: keep at least a quarter of the pace between cycles.
    return Math.max(Math.ceil(delay / 4), delay - passMs);
  });
  const bidLoop = createLoop("bids", log, whileLeading(runBidsOnce), () => deps.config.BID_POLL_INTERVAL_MS);
  const tradeLoop = createLoop(
    "trades",
    log,
    whileLeading(runTradesOnce),
    () => deps.config.TRADE_POLL_INTERVAL_MS,
  );
  const reconcileLoop = createLoop(
    "reconcile",
    log,
    whileLeading(runReconcileOnce),
    () => deps.reconcileIntervalMs ?? 60_000,
  );
  const retentionLoop = createLoop(
    "retention",
    log,
    whileLeading(runRetentionOnce),
    () => deps.retentionIntervalMs ?? 3_600_000,
  );
  let reminderTask: ScheduledTask | undefined;
  let weeklyTask: ScheduledTask | undefined;

  return {
    ruleIndex,
    autoBuyer,
    async start() {
      leader = createLeader({
        url: deps.databaseUrl,
        logger: deps.logger,
        ...deps.leader,
        onElected: () => {
          // Another process may have changed rules while we followed: start from a full load.
          rulesLoaded = false;
          feedLoop.kick();
          bidLoop.kick();
          tradeLoop.kick();
          // Commitments a crash left unsettled are looked at as soon as this process leads.
          reconcileLoop.kick();
          retentionLoop.kick();
        },
      });
      leader.start();
      deliveryLoop.start();
      feedLoop.start();
      bidLoop.start();
      tradeLoop.start();
      reconcileLoop.start();
      retentionLoop.start();
      reminderTask = cron.schedule(
        deps.reminderCron ?? "* * * * *",
        async () => {
          if (!leading()) return;
          const sent = await runRemindersOnce().catch((err: unknown) => {
            log.error({ err }, "reminder pass failed");
            return 0;
          });
          if (sent > 0) deliveryLoop.kick();
        },
        { name: "trade-reminders", noOverlap: true },
      );
      weeklyTask = cron.schedule(
        deps.weeklyReportCron ?? "0 9 * * 1",
        async () => {
          if (!leading()) return;
          await weeklyReport().catch((err: unknown) => log.error({ err }, "weekly report pass failed"));
        },
        { name: "weekly-report", noOverlap: true, timezone: "UTC" },
      );
      log.info({ workerId: delivery.workerId }, "alert engine started");
    },
    async stop() {
      await reminderTask?.destroy();
      reminderTask = undefined;
      await weeklyTask?.destroy();
      weeklyTask = undefined;
      await Promise.all([
        feedLoop.stop(),
        bidLoop.stop(),
        tradeLoop.stop(),
        reconcileLoop.stop(),
        retentionLoop.stop(),
        deliveryLoop.stop(),
      ]);
      // Purchases already sent finish and are recorded (never abandoned half-way).
      await autoBuyer.idle();
      // A pass that failed half-way may leave claims behind: hand them back now rather than
      // after their lease, so another replica (or the next start) sends them at once.
      const released = await releaseClaims(deps.prisma, delivery.workerId).catch((err: unknown) => {
        log.warn({ err }, "handing back outbox claims failed; they return when their lease expires");
        return 0;
      });
      if (released > 0) log.info({ released }, "unsent outbox claims handed back");
      await leader?.stop();
      leader = undefined;
      if (ownFates) await fates.close();
      log.info("alert engine stopped");
    },
    runFeedOnce,
    runBidsOnce,
    runTradesOnce,
    runRemindersOnce,
    runWeeklyReportOnce: weeklyReport,
    runReconcileOnce,
    runDeliveryOnce: () => delivery.runOnce(),
    runRetentionOnce,
    async syncRulesOnce() {
      await serialRules();
    },
    onRuleChange(change) {
      if (rulesLoaded) ruleIndex.apply(change);
    },
    stats() {
      return {
        leader: leading(),
        rules: ruleIndex.size,
        feed: feed.stats(),
        delivery: delivery.stats(),
        lastBidCycle,
        lastTradeCycle,
      };
    },
  };
}

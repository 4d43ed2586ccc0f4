// The alert engine: starts the parts (feed, account pollers, delivery, retention) under one leader
// lock and stops them in order. Each part owns its loop and lifecycle in its own folder:
// feed/part.ts, accountPollers/part.ts, delivery/part.ts, src/privacy/retentionPart.ts.
import { DEFAULT_FEES, feeModel, percentToBps } from "../market/fees.ts";
import { createRetentionPart } from "../privacy/retentionPart.ts";
import { createAutoBuyer } from "../snipe/autoBuyer.ts";
import { createAccountPollersPart } from "../accountPollers/part.ts";
import { createDeliveryPart, handBackClaims } from "../outbox/part.ts";
import { createFateRecorder } from "../feed/fateRecorder.ts";
import { createFeedPart } from "../watch/part.ts";
import { createWeeklyReportPart } from "../watch/weeklyReportPart.ts";
import { createLeader, type Leader } from "../runtime/leader.ts";
import type { PartContext } from "../runtime/part.ts";

export type { AlertSentEvent } from "../outbox/delivery.ts";
export type {
  AlertEngine,
  AlertEngineDeps,
  AlertEngineStats,
  AlertMetrics,
  FeedCycleEvent,
} from "./contract.ts";
import type { AlertEngine, AlertEngineDeps, AlertMetrics } from "./contract.ts";

export function createAlertEngine(deps: AlertEngineDeps): AlertEngine {
  const log = deps.logger.child({ module: "alerts" });
  const now = deps.now ?? (() => new Date());
  // One fee model for the index and the alerts it queues: a rule's "net at least $5" and the
  // alert's "Net at reference" must count the same fee.
  const fees =
    deps.config.SELLER_FEE_PERCENT === undefined
      ? DEFAULT_FEES
      : feeModel(percentToBps(deps.config.SELLER_FEE_PERCENT));
  const ownFates = deps.fates === undefined;
  const fates = deps.fates ?? createFateRecorder({ prisma: deps.prisma, logger: deps.logger, now });

  let leader: Leader | undefined;
  const leading = () => leader?.isLeader() === true;
  const observe = (fn: (m: AlertMetrics) => void) => {
    if (deps.metrics === undefined) return;
    try {
      fn(deps.metrics);
    } catch (err) {
      log.warn({ err }, "alert metrics hook threw");
    }
  };

  const delivery = createDeliveryPart(deps, { log, now, leading });
  const ctx: PartContext = { log, now, leading, kickDelivery: () => delivery.kick() };
  const autoBuyer = createAutoBuyer({
    fees,
    prisma: deps.prisma,
    market: deps.market,
    openKey: deps.openKey,
    logger: deps.logger,
    now,
    onAlertQueued: ctx.kickDelivery,
  });
  const pollers = createAccountPollersPart(deps, ctx);
  const feed = createFeedPart(deps, {
    ...ctx,
    fees,
    fates,
    autoBuyer,
    noteListings: (listings) => pollers.noteListings(listings),
    noteGone: (ids) => pollers.noteGone(ids),
    observe,
    handOver: delivery.handOver,
  });
  const retention = createRetentionPart(deps, ctx);
  const weekly = createWeeklyReportPart(deps, { ...ctx, fates });

  return {
    ruleIndex: feed.ruleIndex,
    autoBuyer,
    async start() {
      leader = createLeader({
        url: deps.databaseUrl,
        logger: deps.logger,
        ...deps.leader,
        onElected: () => {
          feed.elected();
          pollers.elected();
          retention.elected();
        },
      });
      leader.start();
      delivery.start();
      feed.start();
      pollers.start();
      retention.start();
      weekly.start();
      log.info({ workerId: delivery.workerId }, "alert engine started");
    },
    async stop() {
      await Promise.all([feed.stop(), pollers.stop(), retention.stop(), weekly.stop(), delivery.stop()]);
      // Purchases already sent finish and are recorded (never abandoned half-way).
      await autoBuyer.idle();
      await handBackClaims(deps, delivery, ctx);
      await leader?.stop();
      leader = undefined;
      if (ownFates) await fates.close();
      log.info("alert engine stopped");
    },
    runFeedOnce: feed.runFeedOnce,
    runBidsOnce: pollers.runBidsOnce,
    runTradesOnce: pollers.runTradesOnce,
    runRemindersOnce: pollers.runRemindersOnce,
    runWeeklyReportOnce: weekly.runOnce,
    runReconcileOnce: pollers.runReconcileOnce,
    runDeliveryOnce: delivery.runOnce,
    runRetentionOnce: retention.runOnce,
    syncRulesOnce: feed.syncRulesOnce,
    onRuleChange: (change) => feed.onRuleChange(change),
    stats() {
      return {
        leader: leading(),
        rules: feed.ruleIndex.size,
        feed: feed.stats(),
        delivery: delivery.stats(),
        lastBidCycle: pollers.lastBidCycle(),
        lastTradeCycle: pollers.lastTradeCycle(),
      };
    },
  };
}

// The alert engine: builds the background parts (delivery, the feed's matching, the account
// pollers, retention, the weekly report) and registers them with one host (src/runtime/host.ts),
// which runs them under one leader lock. Each part owns its loops in its own folder.
import { DEFAULT_FEES, feeModel, percentToBps } from "../market/fees.ts";
import { createRetentionPart } from "../privacy/retentionPart.ts";
import { createAutoBuyer } from "../snipe/autoBuyer.ts";
import { createAccountPollersPart } from "../accountPollers/part.ts";
import { autoAcceptFor } from "../autoAccept/step.ts";
import { createDeliveryPart, handBackClaims } from "../outbox/part.ts";
import { createFateRecorder } from "../feed/fateRecorder.ts";
import { createFeedPart } from "../watch/part.ts";
import { createWeeklyReportPart } from "../watch/weeklyReportPart.ts";
import { createHost, type HostedPart } from "../runtime/host.ts";
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

  const host = createHost({ logger: deps.logger, leader: { url: deps.databaseUrl, ...deps.leader } });
  const leading = () => host.leading();
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
  // Auto-accept registers its step with the trade poller.
  const pollers = createAccountPollersPart({ ...deps, tradeSteps: [autoAcceptFor] }, ctx);
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

  // Started in this order; each told of an election; stopped together, then these steps.
  host.register(hosted("delivery", delivery));
  host.register(hosted("feed", feed));
  host.register(hosted("account pollers", pollers));
  host.register(hosted("retention", retention));
  host.register(hosted("weekly report", weekly));
  // Purchases already sent finish and are recorded (never abandoned half-way).
  host.afterStop(() => autoBuyer.idle());
  host.afterStop(() => handBackClaims(deps, delivery, ctx));
  host.afterStop(async () => {
    if (ownFates) await fates.close();
  });

  return {
    ruleIndex: feed.ruleIndex,
    autoBuyer,
    async start() {
      host.start();
      log.info({ workerId: delivery.workerId }, "alert engine started");
    },
    async stop() {
      await host.stop();
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

/** A part as the host runs it, under a name. */
function hosted(name: string, part: Omit<HostedPart, "name">): HostedPart {
  return {
    name,
    start: () => part.start(),
    stop: () => part.stop(),
    ...(part.elected === undefined ? {} : { elected: () => part.elected?.() }),
  };
}

// The alert engine's contract: what it is built from, what it offers the app, what it reports.
// Implemented by createAlertEngine (engine.ts).
import type { Config } from "../config/index.ts";
import type { PruneResult, RetentionConfig } from "../privacy/retention.ts";
import type { AutoBuyer } from "../snipe/autoBuyer.ts";
import type { BidCycleResult } from "../accountPollers/bidPoller.ts";
import type { AccountPollersPartDeps } from "../accountPollers/part.ts";
import type { DeliveryMetrics, DeliveryResult, DeliveryStats } from "../outbox/delivery.ts";
import type { DeliveryPartDeps } from "../outbox/part.ts";
import type { RetentionPartDeps } from "../privacy/retentionPart.ts";
import type { FeedMetrics, FeedPartDeps } from "../watch/part.ts";
import type { WeeklyReportPartDeps } from "../watch/weeklyReportPart.ts";
import type { FateRecorder } from "../feed/fateRecorder.ts";
import type { FeedCycleResult, FeedStats } from "../feed/feedPoller.ts";
import type { ReconcileResult } from "../accountPollers/reconciler.ts";
import type { RuleIndex } from "../watch/matcher/ruleIndex.ts";
import type { RuleChange } from "../watch/rules.ts";
import type { TradeCycleResult } from "../accountPollers/tradePoller.ts";

export type { FeedCycleEvent, ListingsMatchedEvent } from "../watch/part.ts";

/** Observes the engine (src/metrics.ts implements it; /healthz reads the feed state from it). */
export interface AlertMetrics extends DeliveryMetrics, FeedMetrics {}

/** What the engine is built from: what each of its parts is built from, and its own. */
export type AlertEngineDeps = FeedPartDeps &
  AccountPollersPartDeps &
  DeliveryPartDeps &
  RetentionPartDeps &
  WeeklyReportPartDeps & {
    config: Pick<
      Config,
      "POLL_INTERVAL_MS" | "BID_POLL_INTERVAL_MS" | "TRADE_POLL_INTERVAL_MS" | "MARKET_API_KEY"
    > &
      /** Absent (tools, older tests): the default fee model. */
      Partial<Pick<Config, "SELLER_FEE_PERCENT" | "MARKET_SCREENSHOT_URL">> &
      /** Absent: the default retention (src/privacy/retention.ts). */
      Partial<RetentionConfig>;
    /** The shared database: the leader lock lives on its own connection to it. */
    databaseUrl: string;
    /** Leader lock timings (tests shorten them). */
    leader?: { checkIntervalMs?: number; leaseMs?: number; lockKey?: number };
    /** Pollers' and quiet hours' clock (tests use the sandbox clock). */
    now?: () => Date;
    /** Where the feed reports listings gone from the market (the app's; default one of its own). */
    fates?: FateRecorder;
    metrics?: AlertMetrics;
  };

export interface AlertEngineStats {
  leader: boolean;
  rules: number;
  feed: FeedStats;
  delivery: DeliveryStats;
  lastBidCycle: BidCycleResult | undefined;
  lastTradeCycle: TradeCycleResult | undefined;
}

export interface AlertEngine {
  /** Starts competing for leadership and runs delivery; pollers run while leading. */
  start(): Promise<void>;
  /** Stops every loop and waits for cycles in flight; releases the leader lock. */
  stop(): Promise<void>;
  runFeedOnce(): Promise<FeedCycleResult>;
  runBidsOnce(): Promise<BidCycleResult>;
  runTradesOnce(): Promise<TradeCycleResult>;
  runRemindersOnce(): Promise<number>;
  /** Queues the missed-deal report of the week of `now` (default the engine's clock); returns how many. */
  runWeeklyReportOnce(now?: Date): Promise<number>;
  /** Settles commitments whose outcome was lost (and open offers that ended). */
  runReconcileOnce(): Promise<ReconcileResult>;
  runDeliveryOnce(): Promise<DeliveryResult>;
  /** Deletes records past their retention (the leader does this every retentionIntervalMs). */
  runRetentionOnce(): Promise<PruneResult>;
  /** Picks up rule changes made by other processes (the feed does this before each cycle). */
  syncRulesOnce(): Promise<void>;
  /**
   * Keeps this process's index in step with its own writes at once: the app's rule-change hub
   * (src/watch/changes.ts) feeds it every change the rules, arming and automation services
   * write (src/background/alertService.ts subscribes it while the engine runs).
   */
  onRuleChange(change: RuleChange): void;
  stats(): AlertEngineStats;
  readonly ruleIndex: RuleIndex;
  /** Snipe mode: armed rules' purchases (tests wait for them with idle()). */
  readonly autoBuyer: AutoBuyer;
}

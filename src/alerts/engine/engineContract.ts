// The alert engine's contract: what it is built from, what it offers the app, what it reports.
// Implemented by createAlertEngine (engine.ts).
import type { Config } from "../../config/index.ts";
import type { PruneResult, RetentionConfig } from "../../privacy/retention.ts";
import type { Logger } from "../../log.ts";
import type { MarketClient } from "../../market/client.ts";
import type { Scheduler } from "../../market/scheduler.ts";
import type { FeeModel } from "../../market/fees.ts";
import type { AutoBuyer } from "../../snipe/autoBuyer.ts";
import type { KeyOpener } from "../accountPollers/accounts.ts";
import type { BidCycleResult } from "../accountPollers/bidPoller.ts";
import type { DeliveryMetrics, DeliveryResult, DeliveryStats } from "../delivery/delivery.ts";
import type { FateRecorder } from "../feed/fateRecorder.ts";
import type { FeedCycleResult, FeedStats } from "../feed/feedPoller.ts";
import type { ReconcileResult } from "../accountPollers/reconciler.ts";
import type { RuleIndex } from "../matcher/ruleIndex.ts";
import type { RuleChange } from "../rules/rules.ts";
import type { AlertSender } from "../delivery/sender.ts";
import type { Db } from "../../db/types.ts";
import type { TradeCycleResult } from "../accountPollers/tradePoller.ts";

export interface FeedCycleEvent {
  /** False when the cycle failed (marketplace error, database error). */
  ok: boolean;
}

/** Observes the engine (src/metrics.ts implements it; /healthz reads the feed state from it). */
export interface AlertMetrics extends DeliveryMetrics {
  /** On every feed tick: whether this process leads (only the leader runs the feed). */
  feedLeadership(leading: boolean): void;
  /** After every feed cycle this process ran. */
  feedCycle(event: FeedCycleEvent): void;
  /** After the new listings of a cycle were matched against the rules. */
  listingsMatched?(event: ListingsMatchedEvent): void;
}

export interface ListingsMatchedEvent {
  /** New listings handed to the matcher. */
  listings: number;
  /** Rule hits among them (before per-user dedupe and preferences). */
  matched: number;
  /** Alerts written to the outbox. */
  queued: number;
}

export interface AlertEngineDeps {
  config: Pick<
    Config,
    "POLL_INTERVAL_MS" | "BID_POLL_INTERVAL_MS" | "TRADE_POLL_INTERVAL_MS" | "MARKET_API_KEY"
  > &
    /** Absent (tools, older tests): the default fee model. */
    Partial<Pick<Config, "SELLER_FEE_PERCENT" | "MARKET_SCREENSHOT_URL">> &
    /** Absent: the default retention (src/privacy/retention.ts). */
    Partial<RetentionConfig>;
  prisma: Db;
  /** The shared database: the leader lock lives on its own connection to it. */
  databaseUrl: string;
  market: MarketClient;
  sender: AlertSender;
  openKey: KeyOpener;
  logger: Logger;
  /** Delivery pass interval when idle (a local write wakes it at once). */
  deliveryIntervalMs?: number;
  /** Outbox lease and retry tuning (tests shorten them). */
  delivery?: { leaseMs?: number; retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number } };
  /** Leader lock timings (tests shorten them). */
  leader?: { checkIntervalMs?: number; leaseMs?: number; lockKey?: number };
  /** Pollers' and quiet hours' clock (tests use the sandbox clock). */
  now?: () => Date;
  workerId?: string;
  /** Feed tuning, mostly for tests and benchmarks (see FeedPollerOptions). */
  feed?: { maxPages?: number; minIntervalMs?: number; maxCatchUpMs?: number; startSkewMs?: number };
  /** Cron expression of the reminder check (default every minute). */
  reminderCron?: string;
  /** Cron expression of the weekly missed-deal report, in UTC (default Mondays 09:00). */
  weeklyReportCron?: string;
  /** Where the feed reports listings gone from the market (the app's; default one of its own). */
  fates?: FateRecorder;
  /** Fee model of the weekly report's net figures (default DEFAULT_FEES). */
  fees?: FeeModel;
  /** The address's request budget: background polls size themselves to what it leaves. */
  scheduler?: Scheduler;
  /** Pause between reconciler passes (default one minute). */
  reconcileIntervalMs?: number;
  /** Pause between the leader's retention prunes (default one hour). */
  retentionIntervalMs?: number;
  metrics?: AlertMetrics;
}

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
   * (src/alerts/rules/changes.ts) feeds it every change the rules, arming and automation services
   * write (src/discord/outbound/alertSender.ts subscribes it while the engine runs).
   */
  onRuleChange(change: RuleChange): void;
  stats(): AlertEngineStats;
  readonly ruleIndex: RuleIndex;
  /** Snipe mode: armed rules' purchases (tests wait for them with idle()). */
  readonly autoBuyer: AutoBuyer;
}

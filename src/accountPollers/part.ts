// The account pollers' part of the engine (leader only): bids, trades and buy orders per linked
// user, the reconciler that settles lost outcomes, and the trade-deadline reminders' cron.
import cron, { type ScheduledTask } from "node-cron";
import type { Listing } from "../market/schemas.ts";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Scheduler } from "../market/scheduler.ts";
import type { KeyOpener } from "./accounts.ts";
import type { TradeStepFactory } from "./tradeSteps.ts";
import { createLoop, serial, type Loop } from "../runtime/loop.ts";
import { whileLeading, type PartContext } from "../runtime/part.ts";
import { createBidPoller, type BidCycleResult } from "./bidPoller.ts";
import { createReconciler, type ReconcileResult } from "./reconciler.ts";
import { createTradePoller, type TradeCycleResult } from "./tradePoller.ts";

export interface AccountPollersPart {
  runBidsOnce(): Promise<BidCycleResult>;
  runTradesOnce(): Promise<TradeCycleResult>;
  runRemindersOnce(): Promise<number>;
  runReconcileOnce(): Promise<ReconcileResult>;
  /** The feed's new listings: a listing of a tracked trade tells the trade poller early. */
  noteListings(listings: readonly Listing[]): void;
  /** Listings gone from the market. */
  noteGone(listingIds: readonly string[]): void;
  lastBidCycle(): BidCycleResult | undefined;
  lastTradeCycle(): TradeCycleResult | undefined;
  /** On election: every poller looks at once (commitments a crash left unsettled included). */
  elected(): void;
  start(): void;
  stop(): Promise<void>;
}

/** What the account pollers' part is built from. */
export interface AccountPollersPartDeps {
  config: Pick<Config, "BID_POLL_INTERVAL_MS" | "TRADE_POLL_INTERVAL_MS">;
  prisma: Db;
  market: MarketClient;
  openKey: KeyOpener;
  logger: Logger;
  /** The address's request budget: background polls size themselves to what it leaves. */
  scheduler?: Scheduler;
  /** Pause between reconciler passes (default one minute). */
  reconcileIntervalMs?: number;
  /** Cron expression of the reminder check (default every minute). */
  reminderCron?: string;
  /** Steps features register with the trade poller (auto-accept), in order. */
  tradeSteps?: readonly TradeStepFactory[];
}

export function createAccountPollersPart(deps: AccountPollersPartDeps, ctx: PartContext): AccountPollersPart {
  const { log, now } = ctx;
  const accountDeps = {
    prisma: deps.prisma,
    market: deps.market,
    openKey: deps.openKey,
    logger: deps.logger,
    now,
  };
  const backgroundRate = () => deps.scheduler?.rateFor("background") ?? Infinity;
  const bids = createBidPoller({
    ...accountDeps,
    intervalMs: deps.config.BID_POLL_INTERVAL_MS,
    backgroundRate,
  });
  const trades = createTradePoller({
    ...accountDeps,
    intervalMs: deps.config.TRADE_POLL_INTERVAL_MS,
    backgroundRate,
    ...(deps.tradeSteps === undefined ? {} : { steps: deps.tradeSteps }),
  });
  const reconciler = createReconciler(accountDeps);
  let lastBidCycle: BidCycleResult | undefined;
  let lastTradeCycle: TradeCycleResult | undefined;

  const runBidsOnce = serial(async () => {
    lastBidCycle = await bids.runOnce();
    if (lastBidCycle.outbid + lastBidCycle.ended > 0) ctx.kickDelivery();
    return lastBidCycle;
  });
  const runTradesOnce = serial(async () => {
    lastTradeCycle = await trades.runOnce();
    if (lastTradeCycle.alerts + lastTradeCycle.revoked > 0) ctx.kickDelivery();
    return lastTradeCycle;
  });
  const runRemindersOnce = serial(() => trades.runRemindersOnce());
  const runReconcileOnce = serial(async () => {
    const result = await reconciler.runOnce();
    if (result.settled > 0) ctx.kickDelivery();
    return result;
  });

  const loops: Loop[] = [
    createLoop("bids", log, whileLeading(ctx, runBidsOnce), () => deps.config.BID_POLL_INTERVAL_MS),
    createLoop("trades", log, whileLeading(ctx, runTradesOnce), () => deps.config.TRADE_POLL_INTERVAL_MS),
    createLoop(
      "reconcile",
      log,
      whileLeading(ctx, runReconcileOnce),
      () => deps.reconcileIntervalMs ?? 60_000,
    ),
  ];
  let reminderTask: ScheduledTask | undefined;

  return {
    runBidsOnce,
    runTradesOnce,
    runRemindersOnce,
    runReconcileOnce,
    noteListings: (listings) => trades.noteListings(listings),
    noteGone: (ids) => trades.noteGone(ids),
    lastBidCycle: () => lastBidCycle,
    lastTradeCycle: () => lastTradeCycle,
    elected() {
      for (const loop of loops) loop.kick();
    },
    start() {
      for (const loop of loops) loop.start();
      reminderTask = cron.schedule(
        deps.reminderCron ?? "* * * * *",
        async () => {
          if (!ctx.leading()) return;
          const sent = await runRemindersOnce().catch((err: unknown) => {
            log.error({ err }, "reminder pass failed");
            return 0;
          });
          if (sent > 0) ctx.kickDelivery();
        },
        { name: "trade-reminders", noOverlap: true },
      );
    },
    async stop() {
      await reminderTask?.destroy();
      reminderTask = undefined;
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}

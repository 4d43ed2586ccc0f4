// The weekly missed-deal report's part of the engine: its cron (leader only), each pass after the
// feed's pending sightings are flushed, so the week's fates are all counted.
import cron, { type ScheduledTask } from "node-cron";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { FeeModel } from "../market/fees.ts";
import { serialQueue } from "../runtime/loop.ts";
import type { PartContext } from "../runtime/part.ts";
import { queueWeeklyReports } from "./weeklyReport.ts";

export interface WeeklyReportPartDeps {
  prisma: Db;
  logger: Logger;
  /** Fee model of the report's net figures (default DEFAULT_FEES). */
  fees?: FeeModel | undefined;
  /** Cron expression of the report, in UTC (default Mondays 09:00). */
  weeklyReportCron?: string | undefined;
}

export interface WeeklyReportPart {
  /** Queues the missed-deal report of the week of `at`; returns how many. */
  runOnce(at?: Date): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createWeeklyReportPart(
  deps: WeeklyReportPartDeps,
  ctx: PartContext & { fates: { flush(): Promise<void> } },
): WeeklyReportPart {
  const queue = serialQueue();
  const runOnce = (at: Date = ctx.now()) =>
    queue(async () => {
      // Sightings still waiting for their batch count this week too.
      await ctx.fates.flush();
      const queued = await queueWeeklyReports(
        { prisma: deps.prisma, logger: deps.logger, ...(deps.fees === undefined ? {} : { fees: deps.fees }) },
        at,
      );
      if (queued > 0) ctx.kickDelivery();
      return queued;
    });
  let task: ScheduledTask | undefined;
  return {
    runOnce,
    start() {
      task = cron.schedule(
        deps.weeklyReportCron ?? "0 9 * * 1",
        async () => {
          if (!ctx.leading()) return;
          await runOnce().catch((err: unknown) => ctx.log.error({ err }, "weekly report pass failed"));
        },
        { name: "weekly-report", noOverlap: true, timezone: "UTC" },
      );
    },
    async stop() {
      await task?.destroy();
      task = undefined;
    },
  };
}

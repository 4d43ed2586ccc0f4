// Delivery's part of the engine: the outbox worker and its loop (woken by local writes, on every
// replica), the weekly missed-deal report's cron (leader only), and claims handed back on stop.
import cron, { type ScheduledTask } from "node-cron";
import { releaseClaims } from "../../db/repos/outbox.ts";
import type { AlertEngineDeps } from "../engine/engineContract.ts";
import { createLoop, serialQueue } from "../engine/loop.ts";
import type { PartContext } from "../engine/part.ts";
import type { FateRecorder } from "../feed/fateRecorder.ts";
import { createDeliveryWorker, type DeliveryResult, type DeliveryStats } from "./delivery.ts";
import { queueWeeklyReports } from "./weeklyReport.ts";

export interface DeliveryPart {
  readonly workerId: string;
  kick(): void;
  runOnce(): Promise<DeliveryResult>;
  /** Queues the missed-deal report of the week of `at`; returns how many. */
  weeklyReport(at?: Date): Promise<number>;
  stats(): DeliveryStats;
  start(): void;
  stop(): Promise<void>;
}

export function createDeliveryPart(
  deps: AlertEngineDeps,
  ctx: Omit<PartContext, "kickDelivery"> & { fates: FateRecorder },
): DeliveryPart {
  const { log, now } = ctx;
  const worker = createDeliveryWorker({
    prisma: deps.prisma,
    sender: deps.sender,
    logger: deps.logger,
    now,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.workerId === undefined ? {} : { workerId: deps.workerId }),
    ...(deps.delivery?.leaseMs === undefined ? {} : { leaseMs: deps.delivery.leaseMs }),
    ...(deps.delivery?.retry === undefined ? {} : { retry: deps.delivery.retry }),
  });
  const loop = createLoop(
    "delivery",
    log,
    async () => {
      // One batch per pass: while passes find work, go again at once, so a burst drains at
      // Discord's pace rather than one batch per deliveryIntervalMs.
      if ((await worker.runOnce()).claimed > 0) loop.kick();
    },
    () => deps.deliveryIntervalMs ?? 1_000,
  );

  const weeklyQueue = serialQueue();
  const weeklyReport = (at: Date = now()) =>
    weeklyQueue(async () => {
      // Sightings still waiting for their batch count this week too.
      await ctx.fates.flush();
      const queued = await queueWeeklyReports(
        { prisma: deps.prisma, logger: deps.logger, ...(deps.fees === undefined ? {} : { fees: deps.fees }) },
        at,
      );
      if (queued > 0) loop.kick();
      return queued;
    });
  let weeklyTask: ScheduledTask | undefined;

  return {
    workerId: worker.workerId,
    kick: () => loop.kick(),
    runOnce: () => worker.runOnce(),
    weeklyReport,
    stats: () => worker.stats(),
    start() {
      loop.start();
      weeklyTask = cron.schedule(
        deps.weeklyReportCron ?? "0 9 * * 1",
        async () => {
          if (!ctx.leading()) return;
          await weeklyReport().catch((err: unknown) => log.error({ err }, "weekly report pass failed"));
        },
        { name: "weekly-report", noOverlap: true, timezone: "UTC" },
      );
    },
    async stop() {
      await weeklyTask?.destroy();
      weeklyTask = undefined;
      await loop.stop();
    },
  };
}

/**
 * A pass that failed half-way may leave claims behind: hand them back now rather than after their
 * lease, so another replica (or the next start) sends them at once. Called after every part that
 * writes to the outbox has stopped.
 */
export async function handBackClaims(
  deps: Pick<AlertEngineDeps, "prisma">,
  part: DeliveryPart,
  ctx: Pick<PartContext, "log">,
): Promise<void> {
  const released = await releaseClaims(deps.prisma, part.workerId).catch((err: unknown) => {
    ctx.log.warn({ err }, "handing back outbox claims failed; they return when their lease expires");
    return 0;
  });
  if (released > 0) ctx.log.info({ released }, "unsent outbox claims handed back");
}

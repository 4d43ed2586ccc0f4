// Delivery's part of the engine: the outbox worker and its loop (woken by local writes, on every
// replica), and claims handed back on stop.
import { releaseClaims } from "../db/repos/outbox.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import { createLoop } from "../runtime/loop.ts";
import type { PartContext } from "../runtime/part.ts";
import type { AlertSender } from "./sender.ts";
import type { ClaimAtInsert } from "../db/repos/alerts.ts";
import type { ClaimedMessage } from "../db/repos/outbox.ts";
import {
  createDeliveryWorker,
  type DeliveryMetrics,
  type DeliveryResult,
  type DeliveryStats,
  type HandedRows,
} from "./delivery.ts";

/**
 * How an alert write hands its rows straight to this process's delivery worker, without the
 * worker's own claim and its round trip to Postgres (ADR 038).
 */
export interface DeliveryHandOver {
  /**
   * The claim an insert may make now, or undefined while the worker has other work (a pass
   * running or due, rows handed over and not yet sent, a backlog): the rows then wait as pending
   * for the worker's own claim, in its priority order (ADR 018).
   */
  claim(): (ClaimAtInsert & { claimedAt: number }) | undefined;
  /** Rows an insert claimed with claim(): the next pass sends them, before it claims anything. */
  take(rows: readonly ClaimedMessage[], claim: { claimedAt: number }): void;
}

export interface DeliveryPart {
  readonly workerId: string;
  readonly handOver: DeliveryHandOver;
  kick(): void;
  runOnce(): Promise<DeliveryResult>;
  stats(): DeliveryStats;
  start(): void;
  stop(): Promise<void>;
}

/** What delivery's part is built from. */
export interface DeliveryPartDeps {
  prisma: Db;
  sender: AlertSender;
  logger: Logger;
  metrics?: DeliveryMetrics;
  workerId?: string;
  /** Outbox lease and retry tuning (tests shorten them). */
  delivery?: { leaseMs?: number; retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number } };
  /** Delivery pass interval when idle (a local write wakes it at once). */
  deliveryIntervalMs?: number;
}

export function createDeliveryPart(
  deps: DeliveryPartDeps,
  ctx: Omit<PartContext, "kickDelivery">,
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
  /** The last claim found fewer rows than a batch: nothing else was due then. */
  let drained = false;
  let handed: HandedRows | undefined;
  const loop = createLoop(
    "delivery",
    log,
    async () => {
      const rows = handed;
      handed = undefined;
      const result = await worker.runOnce(rows);
      if (rows === undefined) drained = result.claimed < worker.batchSize;
      // One batch per pass: while passes find work, go again at once, so a burst drains at
      // Discord's pace rather than one batch per deliveryIntervalMs. After handed rows, the
      // next pass claims whatever else came due meanwhile.
      if (result.claimed > 0) loop.kick();
    },
    () => deps.deliveryIntervalMs ?? 1_000,
  );
  const handOver: DeliveryHandOver = {
    claim() {
      // Stopped, a pass running or due at once, handed rows unsent, a backlog: rows wait pending.
      if (!loop.idle() || handed !== undefined || !drained) return undefined;
      return {
        workerId: worker.workerId,
        leaseMs: worker.leaseMs,
        limit: worker.batchSize,
        claimedAt: Date.now(),
      };
    },
    take(rows, claim) {
      if (rows.length === 0) return;
      // Two inserts' rows (a cycle's second pass): one batch, its lease dated from the older claim.
      handed =
        handed === undefined
          ? { rows, claimedAt: claim.claimedAt }
          : { rows: [...handed.rows, ...rows], claimedAt: Math.min(handed.claimedAt, claim.claimedAt) };
      loop.kick();
    },
  };

  return {
    workerId: worker.workerId,
    handOver,
    kick: () => loop.kick(),
    runOnce: () => worker.runOnce(),
    stats: () => worker.stats(),
    start() {
      loop.start();
    },
    async stop() {
      // Rows handed over and not sent by then are handed back with the other claims (handBackClaims).
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
  deps: Pick<DeliveryPartDeps, "prisma">,
  part: DeliveryPart,
  ctx: Pick<PartContext, "log">,
): Promise<void> {
  const released = await releaseClaims(deps.prisma, part.workerId).catch((err: unknown) => {
    ctx.log.warn({ err }, "handing back outbox claims failed; they return when their lease expires");
    return 0;
  });
  if (released > 0) ctx.log.info({ released }, "unsent outbox claims handed back");
}

// Retention's part of the alert engine (leader only): records past their retention pruned every
// retentionIntervalMs, and at once on election.
import type { Db } from "../db/types.ts";
import { createLoop, serial } from "../runtime/loop.ts";
import { whileLeading, type PartContext } from "../runtime/part.ts";
import { pruneExpired, retentionFromConfig, type PruneResult, type RetentionConfig } from "./retention.ts";

/** What retention's part is built from. */
export interface RetentionPartDeps {
  /** Absent: the default retention (src/privacy/retention.ts). */
  config: Partial<RetentionConfig>;
  prisma: Db;
  /** Pause between the leader's retention prunes (default one hour). */
  retentionIntervalMs?: number;
}

export interface RetentionPart {
  runOnce(): Promise<PruneResult>;
  elected(): void;
  start(): void;
  stop(): Promise<void>;
}

export function createRetentionPart(
  deps: RetentionPartDeps,
  ctx: Pick<PartContext, "log" | "leading">,
): RetentionPart {
  const retention = retentionFromConfig(deps.config);
  const runOnce = serial(async () => {
    const pruned = await pruneExpired(deps.prisma, retention);
    if (Object.values(pruned).some((n) => n > 0))
      ctx.log.info({ ...pruned }, "records past their retention pruned");
    return pruned;
  });
  const loop = createLoop(
    "retention",
    ctx.log,
    whileLeading(ctx, runOnce),
    () => deps.retentionIntervalMs ?? 3_600_000,
  );
  return { runOnce, elected: () => loop.kick(), start: () => loop.start(), stop: () => loop.stop() };
}

// The guards as one of the app's background services: only the replica holding the guards'
// leader lock runs them (two would raise an order twice), every trade-poll interval.
import type { AppContext, BackgroundService } from "./context.ts";
import { createLeader, type Leader } from "../runtime/leader.ts";
import { createLoop, serial } from "../runtime/loop.ts";
import { createGuardRunner, type GuardRunner } from "../guards/runner.ts";

/** Its own advisory lock: the guards may lead on another replica than the feed. */
export const GUARD_LEADER_LOCK_KEY = 0x6775617264;

export interface GuardService extends BackgroundService {
  readonly runner: GuardRunner;
  /** One full pass (guards, then due digests), serialised with the loop's. */
  runOnce(): Promise<void>;
}

export function guardService(ctx: AppContext): GuardService {
  const log = ctx.logger.child({ module: "guards" });
  const runner = createGuardRunner({
    prisma: ctx.database.prisma,
    market: ctx.market,
    openKey: (sealed, userId) => ctx.vault.decrypt(sealed, userId),
    logger: ctx.logger,
    now: ctx.deps.now,
  });
  const runOnce = serial(async () => {
    await runner.runOnce();
    await runner.runDigestsOnce();
  });
  let leader: Leader | undefined;
  const loop = createLoop(
    "guards",
    log,
    async () => {
      if (leader?.isLeader() === true) await runOnce();
    },
    () => ctx.config.TRADE_POLL_INTERVAL_MS,
  );
  return {
    name: "guards",
    runner,
    runOnce,
    async start() {
      leader = createLeader({
        url: ctx.database.url,
        logger: ctx.logger,
        lockKey: GUARD_LEADER_LOCK_KEY,
        onElected: () => loop.kick(),
      });
      leader.start();
      loop.start();
    },
    async stop() {
      await loop.stop();
      await leader?.stop();
      leader = undefined;
    },
  };
}

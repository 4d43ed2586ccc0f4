// What a guard step needs: the database, a log, the clock; the market API comes per user.
import type { Db } from "../db/types.ts";
import type { GuardRecord } from "../db/repos/guards.ts";
import { eventsInLastDay, recordGuardEvent } from "../db/repos/guards.ts";
import type { Logger } from "../log.ts";
import { formatCents } from "../money.ts";

export interface GuardDeps {
  prisma: Db;
  logger: Logger;
  now: () => Date;
}

/** Ends the guard and records why (told in the next digest, which a stop sends at once). */
export async function stopGuard(
  deps: GuardDeps,
  guard: GuardRecord,
  detail: string,
  extra: { rivalCents?: number; fromCents?: number } = {},
): Promise<void> {
  await recordGuardEvent(deps.prisma, guard, { kind: "stopped", detail, at: deps.now(), ...extra });
  deps.logger.info({ guardId: guard.id, userId: guard.userId, kind: guard.kind, detail }, "guard stopped");
}

/**
 * The daily change limit (a rolling 24 hours): false when it is used up. Reaching it is told
 * once a day; the guard keeps running and acts again when older changes leave the window.
 */
export async function withinDailyLimit(
  deps: GuardDeps,
  guard: GuardRecord,
  rivalCents: number,
): Promise<boolean> {
  const at = deps.now();
  if ((await eventsInLastDay(deps.prisma, guard.id, "change", at)) < guard.maxChangesPerDay) return true;
  if ((await eventsInLastDay(deps.prisma, guard.id, "limit", at)) === 0) {
    await recordGuardEvent(deps.prisma, guard, {
      kind: "limit",
      rivalCents,
      detail: `its daily limit of ${guard.maxChangesPerDay} change${guard.maxChangesPerDay === 1 ? "" : "s"} is used up (a rival is at ${formatCents(rivalCents)}); it changes nothing until older changes are a day old`,
      at,
    });
  }
  return false;
}

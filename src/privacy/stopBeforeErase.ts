// Stops a user's automation (armed rules, guards, auto-accept) inside the transaction that erases them.
// The one place /account delete and `db:forget-user` stop things first; the shared automation verb
// replaces this body once it exists, the callers stay as they are.
import type { Prisma } from "../generated/prisma/client.ts";

export interface StoppedAutomation {
  /** Armed watch rules disarmed (shadow or live). */
  readonly armedRules: number;
  /** Guards that were active and are now off. */
  readonly guards: number;
  /** True when trade auto-accept was on. */
  readonly autoAccept: boolean;
}

/**
 * Disarms every armed rule, turns every active guard off and auto-accept off, in `tx`. The
 * caller holds the user's row lock, so a purchase reservation (which locks the same row) cannot
 * start meanwhile; an armed claim after commit finds no rule.
 */
export async function stopBeforeErase(
  tx: Prisma.TransactionClient,
  userId: number,
): Promise<StoppedAutomation> {
  const armed = await tx.watchRule.updateMany({
    where: { userId, armMode: { not: null } },
    data: { armMode: null, armMaxBuys: null, armedAt: null },
  });
  const guards = await tx.guard.updateMany({
    where: { userId, status: "active" },
    data: { status: "off", stopReason: "account deleted" },
  });
  const autoAccept = await tx.autoAcceptSetting.updateMany({
    where: { userId, enabled: true },
    data: { enabled: false },
  });
  return { armedRules: armed.count, guards: guards.count, autoAccept: autoAccept.count > 0 };
}

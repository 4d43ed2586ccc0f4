// Stops a user's automation (armed rules, guards, auto-accept) inside the transaction that erases
// them: the same stop as unlink and Stop everything (src/db/repos/automation.ts), shadow arming too.
import { stopAutomationRows } from "../db/repos/automation.ts";
import type { Db } from "../db/types.ts";

export interface StoppedAutomation {
  /** Armed watch rules disarmed (shadow or live). */
  readonly armedRules: number;
  /** Guards that were active and are now off. */
  readonly guards: number;
  /** True when trade auto-accept was on. */
  readonly autoAccept: boolean;
}

/**
 * Disarms every armed rule, turns every active guard off and auto-accept off, in `tx`, under the
 * user's row lock (taken here if the caller has not), so a purchase reservation, which locks the
 * same row, is decided before or after, never beside; an armed claim after commit finds no rule.
 */
export async function stopBeforeErase(tx: Db, userId: number): Promise<StoppedAutomation> {
  const stopped = await stopAutomationRows(tx, userId, { shadow: true, reason: "account deleted" });
  return { armedRules: stopped.rules.length, guards: stopped.guards.length, autoAccept: stopped.autoAccept };
}

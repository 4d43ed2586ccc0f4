// /automation's verbs: what the bot does for the user on its own, and the one stop for all of it.
import {
  automationState,
  NOTHING_STOPPED,
  stopAutomationRows,
  type AutomationState,
  type StoppedAutomation,
} from "../db/repos/automation.ts";
import type { Db } from "../db/types.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import type { Logger } from "../log.ts";
import type { RuleChange } from "../watch/rules.ts";

export interface AutomationOverview extends AutomationState {
  /** Whether a marketplace account is linked with a working key (live automation needs one). */
  linked: boolean;
  /** The user's caps as they stand (they can only narrow what was confirmed). */
  perPurchaseCapCents: number | null;
  dailyCapCents: number | null;
}

const EMPTY: AutomationOverview = {
  linked: false,
  perPurchaseCapCents: null,
  dailyCapCents: null,
  rules: [],
  guards: [],
  autoAccept: null,
  recent: [],
};

export async function automationOverview(db: Db, discordId: string): Promise<AutomationOverview> {
  const user = await getUserByDiscordId(db, discordId);
  if (user === null) return EMPTY;
  const state = await automationState(db, user.id);
  return {
    ...state,
    linked: user.status === "active" && user.encryptedKey !== null,
    perPurchaseCapCents: user.settings.perPurchaseCapCents,
    dailyCapCents: user.settings.dailyCapCents,
  };
}

/** Whether anything automatic is on. */
export function anythingOn(o: Pick<AutomationState, "rules" | "guards" | "autoAccept">): boolean {
  return o.rules.length > 0 || o.guards.length > 0 || o.autoAccept !== null;
}

/**
 * Stop everything: every armed rule (shadow too), every guard, auto-accept, at once and under the
 * user's row lock, so no automatic reservation is decided after it. Idempotent.
 */
export async function stopEverything(
  deps: { prisma: Db; logger: Logger; onChange?: ((change: RuleChange) => void) | undefined },
  discordId: string,
): Promise<StoppedAutomation> {
  const user = await getUserByDiscordId(deps.prisma, discordId);
  if (user === null) return NOTHING_STOPPED;
  const stopped = await stopAutomationRows(deps.prisma, user.id, {
    shadow: true,
    reason: "turned off with Stop everything",
  });
  deps.logger.info(
    {
      userId: user.id,
      rulesDisarmed: stopped.rules.length,
      guardsOff: stopped.guards.length,
      autoAcceptOff: stopped.autoAccept,
    },
    "automation stopped by its user",
  );
  // The disarmed rules stop buying in this process's matcher at once.
  if (stopped.rules.length > 0) deps.onChange?.({ type: "disarm", userId: user.id });
  return stopped;
}

// Forgets a user's key and stops everything polled or done with it: every automatic action is
// turned off in the same transaction. Watch rules stay (they need no key).
import type { StoppedAutomation } from "../db/repos/automation.ts";
import { NOTHING_STOPPED } from "../db/repos/automation.ts";
import { countRules } from "../db/repos/rules.ts";
import { getUserByDiscordId, unlinkUser } from "../db/repos/users.ts";
import type { AccountDeps } from "./deps.ts";

export interface UnlinkResult {
  readonly wasLinked: boolean;
  /** Watch rules kept: listing alerts keep working without a key. */
  readonly rulesKept: number;
  /** The automation that was on and is now off (it does not come back on a new link). */
  readonly stopped: StoppedAutomation;
}

export async function unlinkAccount(
  deps: AccountDeps,
  input: { readonly discordUserId: string },
): Promise<UnlinkResult> {
  const user = await getUserByDiscordId(deps.prisma, input.discordUserId);
  if (!user) return { wasLinked: false, rulesKept: 0, stopped: NOTHING_STOPPED };
  const { wasLinked, stopped } = await unlinkUser(deps.prisma, user.id);
  const rulesKept = await countRules(deps.prisma, user.id);
  if (wasLinked || stopped.rules.length + stopped.guards.length > 0 || stopped.autoAccept) {
    deps.logger.child({ module: "accounts" }).info(
      {
        userId: user.id,
        wasLinked,
        rulesDisarmed: stopped.rules.length,
        guardsOff: stopped.guards.length,
        autoAcceptOff: stopped.autoAccept,
      },
      "account unlinked; automation stopped",
    );
  }
  return { wasLinked, rulesKept, stopped };
}

// Forgets a user's key and stops everything polled with it; watch rules stay (they need no key).
import { countRules } from "../db/repos/rules.ts";
import { getUserByDiscordId, unlinkUser } from "../db/repos/users.ts";
import type { AccountDeps } from "./deps.ts";

export interface UnlinkResult {
  readonly wasLinked: boolean;
  /** Watch rules kept: listing alerts keep working without a key. */
  readonly rulesKept: number;
}

export async function unlinkAccount(
  deps: AccountDeps,
  input: { readonly discordUserId: string },
): Promise<UnlinkResult> {
  const user = await getUserByDiscordId(deps.prisma, input.discordUserId);
  if (!user) return { wasLinked: false, rulesKept: 0 };
  const wasLinked = await unlinkUser(deps.prisma, user.id);
  const rulesKept = await countRules(deps.prisma, user.id);
  if (wasLinked) {
    deps.logger
      .child({ module: "accounts" })
      .info({ discordUserId: input.discordUserId }, "account unlinked");
  }
  return { wasLinked, rulesKept };
}

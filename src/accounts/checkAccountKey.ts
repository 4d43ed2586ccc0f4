// Re-checks a linked key against the marketplace now; a refused key is marked revoked.
import { markRevoked } from "../db/repos/users.ts";
import { isMarketError } from "../market/errors.ts";
import type { AccountDeps } from "./deps.ts";
import { requireAccount } from "./requireAccount.ts";

export type KeyCheck = { readonly valid: true } | { readonly valid: false; readonly reason: "revoked" };

export async function checkAccountKey(
  deps: AccountDeps,
  input: { readonly discordUserId: string },
): Promise<KeyCheck> {
  const { user, market } = await requireAccount(deps, input.discordUserId);
  try {
    await market.getTransactions({ limit: 1 });
    return { valid: true };
  } catch (error) {
    if (!isMarketError(error, "unauthorized")) throw error;
    await markRevoked(deps.prisma, user.id);
    deps.logger
      .child({ module: "accounts" })
      .info({ discordUserId: input.discordUserId }, "key refused; marked revoked");
    return { valid: false, reason: "revoked" };
  }
}

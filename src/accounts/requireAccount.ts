// The gate for every command that acts with the user's key: linked, not revoked, readable.
import { KeyVaultError } from "../db/errors.ts";
import type { UserRecord } from "../db/repos/users.ts";
import { UserFacingError } from "../errors.ts";
import type { MarketApi } from "../market/client.ts";
import type { AccountDeps } from "./deps.ts";
import { requireLinkedUser } from "./requireLinkedUser.ts";

export interface LinkedUser {
  readonly user: UserRecord;
  /** The marketplace bound to this user's key: verbs never see the key itself. */
  readonly market: MarketApi;
}

export const NOT_LINKED =
  "Link your marketplace account first: run `/account link` and paste an API key from your marketplace account settings.";

export async function requireAccount(
  deps: Pick<AccountDeps, "prisma" | "vault" | "market">,
  discordUserId: string,
): Promise<LinkedUser> {
  const user = await requireLinkedUser(
    deps.prisma,
    { discordId: discordUserId },
    {
      notLinked: NOT_LINKED,
      revoked:
        "Your marketplace key was rejected (it may have been revoked). Run `/account link` with a new key.",
    },
  );
  let key: string;
  try {
    key = deps.vault.decrypt(user.encryptedKey, user.id);
  } catch (error) {
    if (error instanceof KeyVaultError) {
      throw new UserFacingError(
        "key_revoked",
        "Your stored key can no longer be read (the bot's encryption key changed). Run `/account link` again.",
        { vaultError: error.kind },
      );
    }
    throw error;
  }
  return { user, market: deps.market.forKey(key) };
}

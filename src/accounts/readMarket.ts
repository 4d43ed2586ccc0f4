// The marketplace for public reads (search, listings, stalls, history): with the user's own key
// when one is linked (the live service refuses keyless reads), else the operator's key
// (MARKET_API_KEY) within the user's fair share of it (see sharedReads.ts).
import { KeyVaultError } from "../db/errors.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import type { MarketApi } from "../market/client.ts";
import type { AccountDeps } from "./deps.ts";
import type { SharedReads } from "./sharedReads.ts";

export async function marketForReads(
  deps: Pick<AccountDeps, "prisma" | "vault" | "market"> & {
    readonly sharedReads: SharedReads;
  },
  discordUserId: string,
): Promise<MarketApi> {
  const user = await getUserByDiscordId(deps.prisma, discordUserId);
  if (user && user.status === "active" && user.encryptedKey !== null) {
    try {
      return deps.market.forKey(deps.vault.decrypt(user.encryptedKey, user.id));
    } catch (error) {
      // An unreadable key (the encryption key changed) only matters to commands that need it.
      if (!(error instanceof KeyVaultError)) throw error;
    }
  }
  return deps.sharedReads.forUser(discordUserId);
}

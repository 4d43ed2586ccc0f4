// Guards as one service for the handlers (/buyorder guard, /sell guard, the digests' "Turn off
// guard" button): setting one acts with the user's key, turning one off needs no key. The guards
// themselves run in the background (service.ts). Built once by src/services.ts.
import type { AccountService } from "../accounts/service.ts";
import type { GuardRecord } from "../db/repos/guards.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { TradingDeps } from "../trading/deps.ts";
import { setBuyOrderGuard, setListingGuard, turnOffGuard } from "./setGuard.ts";

type Limits<F> = F extends (deps: TradingDeps, input: infer I) => unknown ? Omit<I, "userId"> : never;

export interface GuardSettings {
  /** Keeps the user's buy order the highest, up to its ceiling. */
  guardBuyOrder(
    input: Limits<typeof setBuyOrderGuard> & { discordUserId: string },
    log: Logger,
  ): Promise<GuardRecord>;
  /** Keeps the user's buy-now listing the cheapest comparable one, down to its floor. */
  guardListing(
    input: Limits<typeof setListingGuard> & { discordUserId: string },
    log: Logger,
  ): Promise<GuardRecord>;
  /** Turns off the user's own guard; undefined when the user is unknown to the bot. */
  turnOff(input: {
    discordUserId: string;
    which: Parameters<typeof turnOffGuard>[2];
  }): Promise<GuardRecord | undefined>;
}

export interface GuardSettingsOptions {
  readonly db: Db;
  readonly accounts: Pick<AccountService, "require">;
  readonly now: () => Date;
}

export function createGuardSettings(opts: GuardSettingsOptions): GuardSettings {
  /** The user's key and id: the same gate as every command that acts with it. */
  async function acting(discordUserId: string, log: Logger): Promise<{ deps: TradingDeps; userId: number }> {
    const { user, market } = await opts.accounts.require(discordUserId);
    return { deps: { market, prisma: opts.db, logger: log, now: opts.now }, userId: user.id };
  }
  return {
    async guardBuyOrder({ discordUserId, ...input }, log) {
      const { deps, userId } = await acting(discordUserId, log);
      return setBuyOrderGuard(deps, { ...input, userId });
    },
    async guardListing({ discordUserId, ...input }, log) {
      const { deps, userId } = await acting(discordUserId, log);
      return setListingGuard(deps, { ...input, userId });
    },
    async turnOff({ discordUserId, which }) {
      const user = await getUserByDiscordId(opts.db, discordUserId);
      return user === null ? undefined : turnOffGuard(opts.db, user.id, which);
    },
  };
}

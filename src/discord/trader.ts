// The acting user's linked account as the trading verbs want it: their bot user id, platform id,
// and deps whose market is bound to their key (handlers never see the key).
import { requireAccount } from "../accounts/requireAccount.ts";
import type { TradingDeps } from "../trading/deps.ts";
import type { BaseContext } from "./command.ts";

export interface Trader {
  /** users.id of the acting Discord user. */
  readonly userId: number;
  /** Their marketplace id, when linking could read it (tells buyer from seller in trades). */
  readonly platformId: string | null;
  readonly deps: TradingDeps;
}

/** Throws the "link your account first" notice when the user has no usable key. */
export async function linkedTrader(ctx: BaseContext): Promise<Trader> {
  const { user, market } = await requireAccount(ctx.deps, ctx.user.id);
  return {
    userId: user.id,
    platformId: user.platformId,
    deps: { market, prisma: ctx.deps.prisma, logger: ctx.log, now: ctx.deps.now },
  };
}

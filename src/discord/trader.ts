// The acting user's linked account as the trading verbs want it (src/trading/service.ts): their
// bot user id, platform id, the verbs that act with their key, and market-only deps (handlers never
// see the key or the database). Also the market for public reads on the user's behalf.
import type { MarketDeps } from "../trading/deps.ts";
import type { Trader } from "../trading/service.ts";
import type { BaseContext } from "./command.ts";

export type { Trader };

/** Throws the "link your account first" notice when the user has no usable key. */
export function linkedTrader(ctx: BaseContext): Promise<Trader> {
  return ctx.deps.trading.trader(ctx.user.id, ctx.log);
}

/** Market-only deps for public reads: the user's own key when usable, else the operator key's fair share. */
export async function readerDeps(ctx: BaseContext): Promise<MarketDeps> {
  return { market: await ctx.deps.reads.forUser(ctx.user.id), logger: ctx.log, now: ctx.deps.now };
}

// The marketplace for reads, as handlers get it (`ctx.deps.reads`): the key is chosen here, never
// by a command. A user's reads go with their own key when it works, else with the operator key's
// fair share; reads for no one in particular (autocomplete) go with the operator key.
import type { MarketApi, MarketClient } from "../market/client.ts";

export interface MarketReads {
  /** Reads on a user's behalf (search, listing, history, stall, similar...). */
  forUser(discordUserId: string): Promise<MarketApi>;
  /** Reads that need no user, per keystroke (item-name suggestions): no database lookup. */
  operator(): MarketApi;
}

export function createMarketReads(opts: {
  readonly market: MarketClient;
  readonly operatorKey: string | undefined;
  readonly forUser: (discordUserId: string) => Promise<MarketApi>;
}): MarketReads {
  return {
    forUser: opts.forUser,
    operator: () => opts.market.forKey(opts.operatorKey),
  };
}

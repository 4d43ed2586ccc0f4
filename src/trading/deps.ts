// What trading verbs need from the outside, passed in by the composition root (or a test).
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { Db } from "../db/types.ts";

/**
 * Market-only verbs (search, offers, selling, trades...). `market` is already bound to the
 * acting user's API key (`client.forKey(key)`), so verbs never see or handle keys.
 */
export interface MarketDeps {
  market: MarketApi;
  logger: Logger;
  /** Injected clock so tests can reason about deadlines and daily caps. */
  now?: () => Date;
}

/** Verbs that also keep state of their own: buying (spend caps) and bidding (tracked bids). */
export interface TradingDeps extends MarketDeps {
  prisma: Db;
}

export const nowOf = (deps: { now?: () => Date }): Date => (deps.now ? deps.now() : new Date());

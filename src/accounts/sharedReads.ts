// Fair use of the operator key (MARKET_API_KEY): users without a linked key read through it, so
// each of them gets a small per-user allowance, and the shared listing feed keeps a reserved share
// of the key's budget. No user can delay everyone's alerts by paging.
import { UserFacingError } from "../errors.ts";
import type { MarketApi, MarketClient } from "../market/client.ts";
import { endpointOf, type RouteName } from "../market/routes.ts";

export interface SharedReadsOptions {
  readonly market: MarketClient;
  /** The operator key; undefined only against a marketplace that serves keyless reads. */
  readonly key: string | undefined;
  /** Reads one user may make at once through the shared key. Default 8. */
  readonly burst?: number;
  /** One more read becomes available this often. Default 5 s (12 a minute). */
  readonly refillMs?: number;
  /**
   * Share of each endpoint's budget kept for the feed: a user's read is refused while fewer than
   * this part of the window's requests remain. Default 0.5.
   */
  readonly reserveShare?: number;
  readonly now?: () => number;
  /** Users remembered at once (least recently seen forgotten first). Default 10,000. */
  readonly maxUsers?: number;
}

export interface SharedReads {
  /** The operator key's API for one Discord user, within their allowance and the feed's reserve. */
  forUser(discordUserId: string): MarketApi;
}

interface Allowance {
  tokens: number;
  at: number;
}

/** Methods whose calls count (each page is a call); the iterators page through the counted ones. */
const COUNTED: Readonly<Record<string, RouteName>> = {
  searchListings: "searchListings",
  searchListingPlaces: "searchListings",
  getListing: "getListing",
  getListingBids: "getListingBids",
  getSimilarListings: "getSimilarListings",
  getHistoryGraph: "getHistoryGraph",
  getHistorySales: "getHistorySales",
  getStall: "getStall",
  getListingBuyOrders: "getListingBuyOrders",
  getSimilarBuyOrders: "getSimilarBuyOrders",
  iterateListings: "searchListings",
  iterateStall: "getStall",
};

export function createSharedReads(opts: SharedReadsOptions): SharedReads {
  const burst = opts.burst ?? 8;
  const refillMs = opts.refillMs ?? 5_000;
  const reserveShare = opts.reserveShare ?? 0.5;
  const now = opts.now ?? Date.now;
  const maxUsers = opts.maxUsers ?? 10_000;
  const allowances = new Map<string, Allowance>();
  const api = opts.market.forKey(opts.key);

  function take(discordUserId: string, route: RouteName): void {
    const t = now();
    const state = opts.market.rateLimitState(opts.key, endpointOf(route));
    if (
      state?.limit !== undefined &&
      state.remaining !== undefined &&
      state.remaining < state.limit * reserveShare
    ) {
      const waitS =
        state.resetAt === undefined ? undefined : Math.max(1, Math.ceil((state.resetAt - t) / 1000));
      throw new UserFacingError(
        "rate_limited",
        `The bot's shared marketplace budget is kept for everyone's alerts right now; try again${waitS === undefined ? " shortly" : ` in ${waitS} s`}, or link your own key with /account link to read at your own key's pace.`,
        { route, remaining: state.remaining, limit: state.limit },
      );
    }
    const a = allowances.get(discordUserId) ?? { tokens: burst, at: t };
    a.tokens = Math.min(burst, a.tokens + (t - a.at) / refillMs);
    a.at = t;
    allowances.delete(discordUserId);
    allowances.set(discordUserId, a);
    if (allowances.size > maxUsers) {
      const oldest = allowances.keys().next().value;
      if (oldest !== undefined) allowances.delete(oldest);
    }
    if (a.tokens < 1) {
      const waitS = Math.max(1, Math.ceil(((1 - a.tokens) * refillMs) / 1000));
      throw new UserFacingError(
        "rate_limited",
        `You are reading the market quickly through the bot's shared key; try again in ${waitS} s, or link your own key with /account link to read at your own key's pace.`,
        { route, discordUserId },
      );
    }
    a.tokens -= 1;
  }

  return {
    forUser(discordUserId) {
      return new Proxy(api, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          const route = typeof prop === "string" ? COUNTED[prop] : undefined;
          if (typeof value !== "function" || route === undefined) return value;
          const fn = value as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            take(discordUserId, route);
            return fn.apply(target, args);
          };
        },
      });
    },
  };
}

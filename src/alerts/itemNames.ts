// Item-name suggestions for /watch: names seen on the newest listings (refreshed now and then),
// names rules already use, then the known catalog (the sandbox's; none live).
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import { ruleItemNames } from "./ruleStore.ts";
import type { Db } from "../db/types.ts";

export interface ItemNameSuggester {
  suggest(
    deps: { prisma: Db; market: MarketApi; logger: Logger; known?: readonly string[] },
    text: string,
    signal?: AbortSignal,
  ): Promise<string[]>;
}

/**
 * Autocomplete has about two seconds, so the market is read at most once per `refreshMs` (one
 * page, public) and everything else comes from memory and one indexed query.
 */
export function createItemNameSuggester(
  opts: { refreshMs?: number; maxNames?: number; now?: () => number } = {},
): ItemNameSuggester {
  const refreshMs = opts.refreshMs ?? 60_000;
  const maxNames = opts.maxNames ?? 2_000;
  const now = opts.now ?? Date.now;
  // Insertion order is recency: a name seen again moves to the end; the oldest fall off.
  const names = new Map<string, string>();
  let refreshedAt = -Infinity;
  let refreshing: Promise<void> | undefined;

  const remember = (name: string) => {
    const key = name.toLowerCase();
    names.delete(key);
    names.set(key, name);
    if (names.size > maxNames) names.delete(names.keys().next().value as string);
  };

  async function refresh(market: MarketApi, logger: Logger): Promise<void> {
    refreshedAt = now();
    try {
      const page = await market.searchListings({ sort_by: "most_recent", limit: 50 });
      for (const l of page.data.slice().reverse()) remember(l.item.market_hash_name);
    } catch (err) {
      logger.debug({ err }, "recent item names not refreshed");
    }
  }

  return {
    async suggest(deps, text, signal) {
      if (now() - refreshedAt > refreshMs) {
        refreshing ??= refresh(deps.market, deps.logger).finally(() => {
          refreshing = undefined;
        });
        // Wait for the first fill only; later refreshes happen behind the answer.
        if (names.size === 0) await refreshing;
      }
      if (signal?.aborted) return [];
      const needle = text.trim().toLowerCase();
      const fromRules = await ruleItemNames(deps.prisma, needle, 25);
      const recent = [...names.values()].reverse().filter((n) => n.toLowerCase().includes(needle));
      const catalog: string[] = [];
      for (const n of deps.known ?? []) {
        if (catalog.length >= 25) break;
        if (n.toLowerCase().includes(needle)) catalog.push(n);
      }
      return [...new Set([...recent, ...fromRules, ...catalog])].slice(0, 25);
    },
  };
}

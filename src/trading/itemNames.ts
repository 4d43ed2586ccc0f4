// Item names for autocomplete, learnt from the newest listings and from search results. Typing
// fires one autocomplete per keystroke: the index asks the marketplace at most once per refresh
// interval (one request in flight at a time) and answers from memory in between.
import type { MarketDeps } from "./deps.ts";

export interface ItemNameIndex {
  /** Names containing every word typed, prefix matches first; never throws. */
  suggest(deps: MarketDeps, typed: string, limit?: number): Promise<string[]>;
  /** Adds names seen elsewhere (search results, sales). */
  remember(names: Iterable<string>): void;
}

export interface ItemNameIndexOptions {
  readonly now: () => number;
  /** Minimum time between two reads of the newest listings. Default 60 s. */
  readonly refreshMs?: number;
  /** Names kept; the least recently seen are dropped. Default 5000. */
  readonly maxNames?: number;
}

const PAGE = 50;

export function createItemNameIndex(opts: ItemNameIndexOptions): ItemNameIndex {
  const refreshMs = opts.refreshMs ?? 60_000;
  const maxNames = opts.maxNames ?? 5_000;
  // Insertion order = recency: re-inserting a name moves it to the end.
  const names = new Map<string, string>();
  let refreshedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;

  const remember = (seen: Iterable<string>) => {
    for (const name of seen) {
      const trimmed = name.trim();
      if (trimmed === "" || trimmed.length > 200) continue;
      names.delete(trimmed);
      names.set(trimmed, trimmed.toLowerCase());
    }
    while (names.size > maxNames) {
      const oldest = names.keys().next().value;
      if (oldest === undefined) break;
      names.delete(oldest);
    }
  };

  const refresh = (deps: MarketDeps): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const page = await deps.market.searchListings({ sort_by: "most_recent", limit: PAGE });
        // Oldest first, so the newest listing's name ends up the most recent.
        remember(page.data.map((l) => l.item.market_hash_name).reverse());
      } catch (error) {
        deps.logger.debug({ err: error }, "item names: could not read the newest listings");
      } finally {
        refreshedAt = opts.now();
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  return {
    async suggest(deps, typed, limit = 25) {
      if (opts.now() - refreshedAt >= refreshMs) {
        // Only the first suggestion waits for the marketplace; later ones answer from memory at
        // once and the refresh lands for the next keystroke.
        const first = refreshedAt === Number.NEGATIVE_INFINITY;
        const refreshing = refresh(deps);
        if (first) await refreshing;
      }
      const words = typed
        .toLowerCase()
        .split(/\s+/)
        .filter((w) => w !== "");
      const recentFirst = [...names].reverse();
      const hits = recentFirst.filter(([, lower]) => words.every((w) => lower.includes(w)));
      const prefix = words.join(" ");
      const ranked = [
        ...hits.filter(([, lower]) => lower.startsWith(prefix)),
        ...hits.filter(([, lower]) => !lower.startsWith(prefix)),
      ];
      return ranked.slice(0, limit).map(([name]) => name);
    },
    remember,
  };
}

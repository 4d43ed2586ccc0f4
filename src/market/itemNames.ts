// The one item-name index: names learnt from the newest listings and from what callers saw (search
// results, sales, checked names), the known catalog (the sandbox's when the bot runs against it;
// none live) and, for /watch, the names watch rules already use. It serves every `item`
// autocomplete and the check of a typed name (src/trading/itemCheck.ts). Typing fires one
// autocomplete per keystroke: the index asks the marketplace at most once per refresh interval
// (one request in flight at a time) and answers from memory in between.
import type { Logger } from "../log.ts";
import type { MarketApi } from "./api.ts";

/** Where the newest listings are read from: the operator's (or no) key, and the caller's logger. */
export interface ItemNameReads {
  readonly market: MarketApi;
  readonly logger: Logger;
}

export interface SuggestOptions {
  /** Default 25, the most Discord shows. */
  readonly limit?: number;
  /** Aborted when the autocomplete budget ran out: nothing more is looked up. */
  readonly signal?: AbortSignal;
  /** Also offer the names watch rules already use (after the names seen on the market). */
  readonly withRuleNames?: boolean;
}

export interface ItemNameIndex {
  /** Names containing every word typed, prefix matches first; never throws but for `ruleNames`. */
  suggest(reads: ItemNameReads, typed: string, opts?: SuggestOptions): Promise<string[]>;
  /** Adds names seen elsewhere (search results, sales). */
  remember(names: Iterable<string>): void;
  /** The name as the catalog or the market spells it, when it is one (any letter case); from memory. */
  canonical(typed: string): string | undefined;
  /** Up to `limit` known names closest to a name that is none, best first; from memory. */
  closest(typed: string, limit?: number): string[];
  /**
   * Known names the typed one is most likely a slip for: a few letters off the whole name, or a
   * part of it (every word typed is in the name, which has more). A new item's name is neither.
   */
  slipsOf(typed: string, limit?: number): string[];
}

export interface ItemNameIndexOptions {
  readonly now: () => number;
  /** Minimum time between two reads of the newest listings. Default 60 s. */
  readonly refreshMs?: number;
  /** Names kept; the least recently seen are dropped. Default 5000. */
  readonly maxNames?: number;
  /** Names that exist whether or not they were seen lately (the sandbox's catalog). */
  readonly known?: readonly string[];
  /**
   * Item names watch rules use that contain `text` (lower case, trimmed), at most `take`: one
   * indexed query, asked only by suggestions `withRuleNames`. None when absent.
   */
  readonly ruleNames?: (text: string, take: number) => Promise<readonly string[]>;
}

const PAGE = 50;
const SUGGESTIONS = 25;

export function createItemNameIndex(opts: ItemNameIndexOptions): ItemNameIndex {
  const refreshMs = opts.refreshMs ?? 60_000;
  const maxNames = opts.maxNames ?? 5_000;
  // Insertion order = recency: re-inserting a name moves it to the end.
  const names = new Map<string, string>();
  let refreshedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  const known = new Map<string, string>((opts.known ?? []).map((n) => [n.toLowerCase(), n]));
  /** Learnt names, most recent first, then `more` and the catalog's, each name once: [name, lower]. */
  const all = (more: readonly string[] = []): [string, string][] => {
    const listed: [string, string][] = [...names].reverse();
    const seen = new Set(listed.map(([, lower]) => lower));
    const others: [string, string][] = [
      ...more.map((n): [string, string] => [n, n.toLowerCase()]),
      ...[...known].map(([lower, n]): [string, string] => [n, lower]),
    ];
    for (const [name, lower] of others) {
      if (seen.has(lower)) continue;
      seen.add(lower);
      listed.push([name, lower]);
    }
    return listed;
  };

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

  const canonical = (typed: string): string | undefined => {
    const lower = typed.trim().toLowerCase();
    for (const [name, l] of names) if (l === lower) return name;
    return known.get(lower);
  };

  const refresh = (reads: ItemNameReads): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const page = await reads.market.searchListings({ sort_by: "most_recent", limit: PAGE });
        // Oldest first, so the newest listing's name ends up the most recent.
        remember(page.data.map((l) => l.item.market_hash_name).reverse());
      } catch (error) {
        reads.logger.debug({ err: error }, "item names: could not read the newest listings");
      } finally {
        refreshedAt = opts.now();
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  return {
    async suggest(reads, typed, { limit = SUGGESTIONS, signal, withRuleNames = false } = {}) {
      if (opts.now() - refreshedAt >= refreshMs) {
        const refreshing = refresh(reads);
        // Only a suggestion with no name learnt yet waits for the marketplace; later ones answer
        // from memory at once and the refresh lands for the next keystroke.
        if (names.size === 0) await refreshing;
      }
      if (signal?.aborted) return [];
      const text = typed.trim().toLowerCase();
      // A rule's name in another letter case is offered as the market spells it.
      const ruleNames =
        withRuleNames && opts.ruleNames
          ? (await opts.ruleNames(text, SUGGESTIONS)).map((n) => canonical(n) ?? n)
          : [];
      const words = text.split(/\s+/).filter((w) => w !== "");
      const hits = all(ruleNames).filter(([, lower]) => words.every((w) => lower.includes(w)));
      const prefix = words.join(" ");
      const ranked = [
        ...hits.filter(([, lower]) => lower.startsWith(prefix)),
        ...hits.filter(([, lower]) => !lower.startsWith(prefix)),
      ];
      return ranked.slice(0, limit).map(([name]) => name);
    },
    remember,
    canonical,
    slipsOf(typed, limit = 3) {
      const target = typed.trim().toLowerCase().replace(/\s+/g, " ");
      if (target === "") return [];
      const words = target.split(/[\s|()]+/).filter((w) => w !== "");
      const slips: { name: string; distance: number }[] = [];
      for (const [name, lower] of all()) {
        const nameWords = lower.split(/[\s|()]+/).filter((w) => w !== "");
        const fragment = words.length < nameWords.length && words.every((w) => nameWords.includes(w));
        // Lengths far apart cannot be a few letters off: skip the distance.
        const near = Math.abs(lower.length - target.length) <= SLIP_LETTERS(target.length);
        const distance = near ? editDistance(target, lower) : Infinity;
        if (fragment || distance <= SLIP_LETTERS(target.length)) slips.push({ name, distance });
      }
      slips.sort((a, b) => a.distance - b.distance);
      return slips.slice(0, limit).map((s) => s.name);
    },
    closest(typed, limit = 3) {
      const target = typed.trim().toLowerCase();
      const scored = all().map(([name, lower]) => ({ name, score: similarity(target, lower) }));
      scored.sort((a, b) => b.score - a.score);
      return scored
        .filter((s) => s.score > 0.3)
        .slice(0, limit)
        .map((s) => s.name);
    },
  };
}

/** Letters a name may be off by and still be a slip for a known one: two, or one in ten of a long name. */
const SLIP_LETTERS = (length: number) => Math.max(2, Math.floor(length / 10));

/**
 * How alike two names are, 0 to 1: the share of the typed words found in the name (a typo'd word
 * counts by its closest word's likeness), so "ember tide pristin" is close to
 * "Falcon Rifle | Ember Tide (Pristine)".
 */
function similarity(typed: string, name: string): number {
  const words = typed.split(/[\s|()]+/).filter((w) => w !== "");
  const nameWords = name.split(/[\s|()]+/).filter((w) => w !== "");
  if (words.length === 0 || nameWords.length === 0) return 0;
  let total = 0;
  for (const w of words) {
    let best = 0;
    for (const n of nameWords) best = Math.max(best, 1 - editDistance(w, n) / Math.max(w.length, n.length));
    total += best;
  }
  // A name with many words the user did not type is a little less likely.
  return (total / words.length) * (1 - Math.min(0.2, Math.abs(nameWords.length - words.length) * 0.02));
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

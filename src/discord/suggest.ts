// Autocomplete from the user's own marketplace data (orders, trades, assets, bids). Discord waits
// about 3 s for choices and fires one request per keystroke: each user's list is read once and
// kept briefly, a read never holds the answer past a short wait (the choices are then empty and
// the read lands for the next keystroke), and a user without a usable key simply gets none.
import type { MarketApi } from "../market/client.ts";
import { truncate } from "./render/format.ts";
import type { AutocompleteContext, Choice } from "./command.ts";
import type { BotDeps } from "./deps.ts";
import { perApp } from "./perApp.ts";

/** How long one user's list is reused. */
export const SUGGEST_TTL_MS = 20_000;
/** Longest a keystroke waits for a read before answering with what it has (nothing). */
export const SUGGEST_WAIT_MS = 1_200;
const MAX_ENTRIES = 2_000;

interface Entry {
  value?: unknown;
  at: number;
  loading?: Promise<unknown> | undefined;
}

export interface SuggestionCache {
  /**
   * The cached list for `key`, else the result of `load` if it arrives within the wait; a stale
   * list is answered at once while a fresh one loads. Undefined when nothing is known in time.
   */
  get<T>(key: string, load: () => Promise<T>, onError: (err: unknown) => void): Promise<T | undefined>;
  /** Drops every list whose key starts with `prefix` (a user's, after they acted). */
  forget(prefix: string): void;
}

export function createSuggestionCache(
  opts: { now?: () => number; ttlMs?: number; waitMs?: number } = {},
): SuggestionCache {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlMs ?? SUGGEST_TTL_MS;
  const waitMs = opts.waitMs ?? SUGGEST_WAIT_MS;
  const entries = new Map<string, Entry>();
  return {
    async get<T>(key: string, load: () => Promise<T>, onError: (err: unknown) => void) {
      let entry = entries.get(key);
      const fresh = entry !== undefined && "value" in entry && now() - entry.at < ttlMs;
      if (fresh) return entry?.value as T;
      if (entry === undefined) {
        entry = { at: 0 };
        entries.set(key, entry);
        if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      }
      const e = entry;
      e.loading ??= load()
        .then((value) => {
          e.value = value;
          e.at = now();
        })
        .catch((err: unknown) => {
          onError(err);
          if (!("value" in e)) entries.delete(key);
        })
        .finally(() => {
          e.loading = undefined;
        });
      if ("value" in e) return e.value as T;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), waitMs);
      });
      const outcome = await Promise.race([e.loading.then(() => "done" as const), late]);
      clearTimeout(timer);
      return outcome === "done" && "value" in e ? (e.value as T) : undefined;
    },
    forget(prefix) {
      for (const key of [...entries.keys()]) if (key.startsWith(prefix)) entries.delete(key);
    },
  };
}

const caches = perApp((_deps: BotDeps) => createSuggestionCache());

/**
 * Forgets a user's lists: called after each of their commands, buttons and forms, which may have
 * made an order, a bid or a trade, so the next keystroke reads them again.
 */
export function forgetUserSuggestions(deps: BotDeps, discordUserId: string): void {
  caches(deps).forget(`${discordUserId}:`);
}

/**
 * Choices built from one of the user's lists (`kind` names it in the cache). No linked key, a
 * refused key or a slow or failing marketplace all give no choices, never an error.
 */
export async function userChoices<T>(
  ctx: AutocompleteContext,
  kind: string,
  load: (account: { market: MarketApi; userId: number; platformId: string | null }) => Promise<T[]>,
  toChoices: (items: T[]) => Choice[],
): Promise<readonly Choice[]> {
  const items = await caches(ctx.deps).get(
    `${ctx.user.id}:${kind}`,
    async () => {
      const { user, market } = await ctx.deps.accounts.require(ctx.user.id);
      return load({ market, userId: user.id, platformId: user.platformId });
    },
    (err) => ctx.log.debug({ err, kind }, "suggestions not read"),
  );
  return items === undefined ? [] : toChoices(items).slice(0, 25);
}

/**
 * A choice label within Discord's 100 characters: the head (an item name) and the tail (price,
 * state) whole when they fit, the id after them when it fits too (the choice's value is the id);
 * else the head is shortened.
 */
export function choiceLabel(head: string, tail: string, id = ""): string {
  // eslint-disable-next-line no-control-regex -- labels are plain text: control characters go
  const clean = head.replace(/[\u0000-\u001f\u007f]+/g, " ");
  const withId = id === "" ? "" : ` · ${id}`;
  if (Array.from(clean + tail + withId).length <= 100) return `${clean}${tail}${withId}`;
  const room = Math.max(10, 100 - tail.length);
  return truncate(`${truncate(clean, room)}${tail}`, 100);
}

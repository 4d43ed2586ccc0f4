// Users, watch rules and listings for the end-to-end scenarios: rules come from the matching bench's
// realistic generator and go into Postgres in bulk; listings are built to satisfy chosen rules.
import type { Database } from "../../src/db/index.ts";
import { Listing } from "../../src/market/schemas.ts";
import { RuleFilters } from "../../src/watch/ruleFilters.ts";
import { compileRules, linearScanCompiled, type MatcherRule } from "../../src/watch/matcher/matcher.ts";
import { snowflake, type DoubleUser } from "../../src/playground/discord/index.ts";
import type { ListingTemplate } from "../../src/sandbox/index.ts";
import { catalogOf, createMarket, generateRules, type CatalogItem, type Market } from "./market.ts";

/**
 * Discord users of the double: u00001, u00002, ... with real-looking snowflake ids, each from its
 * own millisecond: a snowflake's counter has 4,096 values a millisecond, and 10,000 users made in
 * under 3 ms repeated ids (the full scale bench then failed on the users' unique Discord id).
 */
export function benchUsers(count: number): DoubleUser[] {
  const start = Date.now() - count;
  return Array.from({ length: count }, (_, i) => ({
    id: snowflake(start + i),
    username: `u${String(i + 1).padStart(5, "0")}`,
  }));
}

/** Inserts users without a linked key (enough for listing alerts) and returns their database ids in order. */
export async function insertUsers(db: Database, discordIds: readonly string[]): Promise<number[]> {
  const { rows } = await db.pool.query<{ id: number; discord_id: string }>(
    `INSERT INTO users (discord_id, status, updated_at)
     SELECT d, 'unlinked', now() FROM unnest($1::text[]) AS d
     RETURNING id, discord_id`,
    [discordIds],
  );
  const byDiscord = new Map(rows.map((r) => [r.discord_id, r.id]));
  return discordIds.map((d) => {
    const id = byDiscord.get(d);
    if (id === undefined) throw new Error(`user ${d} was not inserted`);
    return id;
  });
}

let ruleCounter = 0;

export interface StoredRule {
  id: number;
  userId: number;
  filters: RuleFilters;
}

/**
 * Bulk INSERT of rules (what thousands of /watch add would have stored), with the same
 * denormalised columns the watch verbs write. Returns the rules with their database ids.
 */
export async function insertRules(
  db: Database,
  rules: readonly { userId: number; filters: RuleFilters }[],
  chunk = 5000,
): Promise<StoredRule[]> {
  const out: StoredRule[] = [];
  // Names must be unique per user; a run-wide counter keeps them unique across calls.
  const first = ruleCounter;
  ruleCounter += rules.length;
  for (let start = 0; start < rules.length; start += chunk) {
    const part = rules.slice(start, start + chunk);
    const names = part.map((_, i) => `bench-${first + start + i + 1}`);
    const { rows } = await db.pool.query<{ id: number; name: string }>(
      `INSERT INTO watch_rules (user_id, name, filters, item_key, def_index, paint_index, destination, updated_at)
       SELECT u, n, f, k, d, p, 'dm', now()
         FROM unnest($1::int[], $2::text[], $3::json[], $4::text[], $5::int[], $6::int[]) AS t(u, n, f, k, d, p)
       RETURNING id, name`,
      [
        part.map((r) => r.userId),
        names,
        part.map((r) => JSON.stringify(r.filters)),
        part.map((r) => r.filters.item?.toLowerCase() ?? null),
        part.map((r) => r.filters.def_index ?? null),
        part.map((r) => r.filters.paint_index ?? null),
      ],
    );
    const idByName = new Map(rows.map((r) => [r.name, r.id]));
    part.forEach((r, i) => {
      const id = idByName.get(names[i] as string);
      if (id === undefined) throw new Error(`rule ${names[i]} was not inserted`);
      out.push({ id, userId: r.userId, filters: r.filters });
    });
  }
  return out;
}

export interface RuleSet {
  market: Market;
  catalog: Map<string, CatalogItem>;
  /** Generated filters, validated by the stored-rule schema. */
  filters: RuleFilters[];
}

/**
 * `count` realistic rules (bench/matching.ts's generator), each checked against the stored-rule
 * schema. `itemless`: the share of rules naming no item (see generateRules).
 */
export function ruleSet(count: number, seed = 42, opts: { itemless?: number } = {}): RuleSet {
  const market = createMarket(seed);
  const filters = generateRules(market, count, opts).map((r) => RuleFilters.parse(r.filters));
  return { market, catalog: catalogOf(market), filters };
}

/** Spreads rules over users at random (some users watch many things, most a few). */
export function assignOwners(count: number, userIds: readonly number[], rnd: () => number): number[] {
  return Array.from({ length: count }, () => userIds[Math.floor(rnd() * userIds.length)] as number);
}

const clampFloat = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * A listing template that satisfies an item rule: its item, a float inside its range, one of its
 * seeds, a price at or under its ceiling and a reference that gives at least its discount.
 * Undefined for rules without an item (sticker, seed-across-weapon... rules).
 */
export function listingForRule(
  set: RuleSet,
  filters: RuleFilters,
  rnd: () => number,
): ListingTemplate | undefined {
  if (filters.item === undefined) return undefined;
  const item = set.catalog.get(filters.item.toLowerCase());
  if (item === undefined) return undefined;
  const lo = Math.max(item.minFloat, filters.min_float ?? 0);
  const hi = Math.min(item.maxFloat, filters.max_float ?? 1);
  if (lo > hi) return undefined;
  // Inside [lo, hi) with a margin, so rounding never pushes it out.
  const float = clampFloat(lo + (hi - lo) * (0.05 + 0.9 * rnd()));
  const seeds = filters.paint_seeds;
  const seed = seeds ? (seeds[Math.floor(rnd() * seeds.length)] as number) : Math.floor(rnd() * 1001);
  let price =
    filters.max_price !== undefined
      ? Math.max(3, Math.floor(filters.max_price * (0.85 + 0.15 * rnd())))
      : Math.max(3, Math.round(item.reference * (0.9 + 0.15 * rnd())));
  if (filters.max_price !== undefined) price = Math.min(price, filters.max_price);
  let reference = item.reference;
  if (filters.min_discount !== undefined) {
    // (reference - price) / reference >= min_discount%, with a point to spare.
    reference = Math.max(reference, Math.ceil(price / (1 - (filters.min_discount + 1) / 100)));
  }
  return {
    market_hash_name: item.name,
    def_index: item.skin.defIndex,
    paint_index: item.skin.paintIndex,
    float_value: float,
    paint_seed: seed,
    price,
    reference_price: reference,
    type: filters.type ?? "buy_now",
    is_statcounter: item.statcounter,
    stickers: [],
    keychains: [],
  };
}

/** A listing nobody hunts: a random item above its reference price. */
export function noiseListing(set: RuleSet, rnd: () => number): ListingTemplate {
  const items = [...set.catalog.values()];
  const item = items[Math.floor(rnd() * items.length)] as CatalogItem;
  return {
    market_hash_name: item.name,
    def_index: item.skin.defIndex,
    paint_index: item.skin.paintIndex,
    float_value: clampFloat(item.minFloat + (item.maxFloat - item.minFloat) * (0.05 + 0.9 * rnd())),
    paint_seed: Math.floor(rnd() * 1001),
    price: Math.max(3, Math.round(item.reference * (1.1 + 0.4 * rnd()))),
    reference_price: item.reference,
    type: "buy_now",
    is_statcounter: item.statcounter,
    stickers: [],
    keychains: [],
  };
}

/** The reference semantics (a linear scan of every rule): which stored rules a listing should alert. */
export function expectedMatcher(rules: readonly StoredRule[]): (listing: Listing) => number[] {
  const asMatcher: MatcherRule[] = rules.map((r) => ({
    id: String(r.id),
    userId: String(r.userId),
    filters: r.filters,
  }));
  const compiled = compileRules(asMatcher);
  return (listing) => linearScanCompiled(compiled, listing).map((ref) => Number(ref.id));
}

/** The listing a template will become, close enough to count the rules it matches before creating it. */
export function previewListing(t: ListingTemplate): Listing {
  return Listing.parse({
    id: "1",
    created_at: new Date().toISOString(),
    type: t.type ?? "buy_now",
    price: t.price,
    state: "listed",
    item: {
      market_hash_name: t.market_hash_name,
      def_index: t.def_index,
      paint_index: t.paint_index,
      paint_seed: t.paint_seed,
      float_value: t.float_value,
      is_statcounter: t.is_statcounter ?? false,
      is_souvenir: false,
      stickers: [],
      keychains: [],
    },
    reference:
      typeof t.reference_price === "number"
        ? { predicted_price: t.reference_price, base_price: t.reference_price, quantity: 50 }
        : null,
  });
}

/** Fisher-Yates with the given random source. */
export function shuffle<T>(items: T[], rnd: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

// Random watch rules and listings from small value domains, for the tests that hold the matcher index to the linear scan and the filter registry.
import { RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { Listing } from "../../../src/market/schemas.ts";
import { seededRandom } from "../../../src/util/rng.ts";
import type { RawListing } from "../fixtures.ts";

// Small value domains on purpose: random rules and listings then collide often, so matches,
// near-misses and boundary values (equal price, equal float) all occur many times.
export const NAMES = [
  "Falcon Rifle | Ember Tide (Pristine)",
  "Viper SMG | Frost Web (Field Worn)",
  "★ Talon Knife | Fade (Pristine)",
  "Onyx Pistol | Neon Bloom (Scarred)",
];
export const FLOATS = [0, 0.01, 0.07, 0.15, 0.38, 0.5, 1];
export const FADES = [80, 90, 95, 97, 98.5, 100];
export const BLUES = [0, 20, 40.1, 74.2, 90];

export interface Gen {
  rnd: () => number;
  int: (lo: number, hi: number) => number;
  pick: <T>(xs: readonly T[]) => T;
  chance: (p: number) => boolean;
}

export function gen(seed: number): Gen {
  const rnd = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  return {
    rnd,
    int,
    pick: (xs) => xs[int(0, xs.length - 1)] as (typeof xs)[number],
    chance: (p) => rnd() < p,
  };
}

function randomCase(g: Gen, name: string): string {
  return g.chance(0.3) ? name.toUpperCase() : g.chance(0.3) ? name.toLowerCase() : name;
}

/** Filters that bound a rule enough on their own; a random rule with none of them gets a price cap. */
const BOUNDING_KEYS = [
  "def_index",
  "paint_index",
  "paint_seeds",
  "min_float",
  "max_float",
  "max_price",
  "min_discount",
  "stickers",
  "keychains",
];
export function randomFilters(g: Gen): RuleFilters {
  const f: Record<string, unknown> = {};
  if (g.chance(0.45)) f["item"] = randomCase(g, g.pick(NAMES));
  if (g.chance(0.3)) f["def_index"] = g.int(1, 3);
  if (g.chance(0.3)) f["paint_index"] = g.int(10, 12);
  // Mostly short seed lists (indexed by seed), sometimes long ones (indexed elsewhere).
  if (g.chance(0.2))
    f["paint_seeds"] = [
      ...new Set(Array.from({ length: g.chance(0.2) ? g.int(11, 16) : g.int(1, 3) }, () => g.int(0, 15))),
    ];
  if (g.chance(0.3)) {
    const [a, b] = [g.pick(FLOATS), g.pick(FLOATS)].sort((x, y) => x - y);
    if (g.chance(0.7)) f["min_float"] = a;
    if (g.chance(0.7)) f["max_float"] = b;
  }
  if (g.chance(0.4)) f["max_price"] = g.int(10, 100) * 10;
  if (g.chance(0.3)) f["min_discount"] = g.pick([0, 5, 10, 15, 20, 29, 50]);
  if (g.chance(0.15)) f["min_ref_qty"] = g.int(0, 50);
  if (g.chance(0.2)) f["type"] = g.pick(["buy_now", "auction"]);
  if (g.chance(0.25)) f["category"] = g.pick(["any", "normal", "statcounter", "souvenir"]);
  if (g.chance(0.2)) {
    const stickers = new Map<string, { id: number; slot?: number }>();
    for (let i = g.int(1, 2); i > 0; i--) {
      const s = g.chance(0.5) ? { id: g.int(1, 5), slot: g.int(0, 3) } : { id: g.int(1, 5) };
      stickers.set(`${s.id}|${s.slot}`, s);
    }
    f["stickers"] = [...stickers.values()];
  }
  if (g.chance(0.1)) f["keychains"] = [...new Set([g.int(1, 3), g.int(1, 3)])];
  // Deal filters: bounds on the values randomListing draws from the same small domains, so
  // equal values (a net of exactly the minimum, a fade of exactly 97%) occur.
  if (g.chance(0.06)) f["min_profit"] = g.pick([0, 100, 200, 500]);
  if (g.chance(0.06)) f["min_profit_pct"] = g.pick([0, 5, 10, 50]);
  if (g.chance(0.06)) f["min_exit_profit"] = g.pick([0, 50, 100]);
  if (g.chance(0.06)) {
    const [a, b] = [g.pick(FADES), g.pick(FADES)].sort((x, y) => x - y);
    if (g.chance(0.7)) f["min_fade"] = a;
    if (g.chance(0.5)) f["max_fade"] = b;
  }
  if (g.chance(0.05)) f["min_playside_blue"] = g.pick(BLUES);
  if (g.chance(0.05)) f["min_backside_blue"] = g.pick(BLUES);
  if (g.chance(0.05)) f["max_float_rank"] = g.int(1, 6);
  if (g.chance(0.05)) f["min_sticker_value"] = g.pick([0, 50, 100, 300]);
  if (g.chance(0.05)) f["min_sticker_pct"] = g.pick([0, 10, 25, 50]);
  if (!["item", ...BOUNDING_KEYS].some((k) => k in f)) {
    f["max_price"] = g.int(10, 100) * 10;
  }
  return RuleFilters.parse(f);
}

/**
 * A rule naming no item: random filters without the name, most index keys dropped, and more
 * whole-market bounds (discount, float, deal), so broad, def-only, paint-only, seed, sticker and
 * keychain buckets and every sorted bound in them get many rules.
 */
export function randomItemlessFilters(g: Gen): RuleFilters {
  const f: Record<string, unknown> = { ...randomFilters(g) };
  delete f["item"];
  for (const key of ["def_index", "paint_index", "paint_seeds", "stickers", "keychains"]) {
    if (g.chance(0.5)) delete f[key];
  }
  if (g.chance(0.25)) f["min_discount"] = g.pick([0, 5, 10, 15, 20, 29, 50]);
  if (g.chance(0.2) && f["min_float"] === undefined) f["max_float"] = g.pick(FLOATS);
  if (g.chance(0.1) && f["max_float"] === undefined) f["min_float"] = g.pick(FLOATS);
  if (g.chance(0.1)) f["min_profit_pct"] = g.pick([0, 5, 10, 50]);
  if (g.chance(0.08)) f["max_float_rank"] = g.int(1, 6);
  if (g.chance(0.08) && f["min_fade"] === undefined) f["max_fade"] = g.pick(FADES);
  if (
    ![
      ...BOUNDING_KEYS,
      "min_profit",
      "min_profit_pct",
      "min_exit_profit",
      "min_fade",
      "max_fade",
      "min_playside_blue",
      "min_backside_blue",
      "max_float_rank",
      "min_sticker_value",
      "min_sticker_pct",
    ].some((k) => k in f)
  ) {
    f["max_price"] = g.int(10, 100) * 10;
  }
  return RuleFilters.parse(f);
}

export function randomListing(g: Gen, n: number): Listing {
  const opt = <T>(p: number, v: () => T): T | null => (g.chance(p) ? v() : null);
  const price = g.int(10, 100) * 10;
  const reference = () => ({
    predicted_price: opt(0.7, () => g.int(10, 100) * 10),
    base_price: opt(0.7, () => g.int(10, 100) * 10),
    quantity: opt(0.7, () => g.int(0, 50)),
    buy_order: opt(0.4, () => ({ max_price: opt(0.9, () => g.int(10, 100) * 10), quantity: g.int(1, 5) })),
  });
  const raw: RawListing = {
    id: String(1_000_000 + n),
    type: g.chance(0.7) ? "buy_now" : "auction",
    price,
    state: g.chance(0.9) ? "listed" : g.pick(["sold", "delisted"]),
    item: {
      market_hash_name: g.pick(NAMES),
      def_index: opt(0.9, () => g.int(1, 3)),
      paint_index: opt(0.9, () => g.int(10, 12)),
      paint_seed: opt(0.9, () => g.int(0, 15)),
      float_value: opt(0.85, () => (g.chance(0.5) ? g.pick(FLOATS) : g.rnd())),
      is_statcounter: opt(0.8, () => g.chance(0.2)),
      is_souvenir: opt(0.8, () => g.chance(0.1)),
      stickers: opt(0.6, () =>
        Array.from({ length: g.int(0, 4) }, (_, i) => ({
          stickerId: g.int(1, 5),
          slot: g.chance(0.9) ? i : null,
          wear: opt(0.7, () => g.pick([0, 0.1, 0.5, 1])),
          reference: opt(0.8, () => ({ price: opt(0.9, () => g.pick([20, 50, 100, 250])) })),
        })),
      ),
      fade: opt(0.3, () => ({
        percentage: opt(0.9, () => g.pick(FADES)),
        rank: opt(0.5, () => g.int(1, 9)),
      })),
      blue_gem: opt(0.3, () => ({
        playside_blue: opt(0.8, () => g.pick(BLUES)),
        backside_blue: opt(0.8, () => g.pick(BLUES)),
      })),
      low_rank: opt(0.3, () => g.int(1, 9)),
      keychains: opt(0.3, () => [{ stickerId: g.int(1, 3) }]),
      reference: opt(0.5, reference),
    },
    reference: opt(0.6, reference),
  };
  return Listing.parse(raw);
}

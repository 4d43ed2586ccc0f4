// The filter registry is the meaning of a match: for every filter, rules at its bounds and listings around them, the compiled linear match and the packed matcher index answer as it does.
import { describe, expect, it } from "vitest";
import { editNarrows } from "../../../src/watch/ruleEdit.ts";
import { createMatcherIndex, type MatcherRule } from "../../../src/watch/matcher/matcher.ts";
import { compileFilters, matchesFacts, prepareListing, RuleFilters } from "../../../src/watch/ruleFilters.ts";
import {
  DEAL_BOUNDS,
  FILTER_OPTIONS,
  RULE_FILTER_SHAPE,
  RULE_FILTERS,
  ruleMatches,
} from "../../../src/watch/filters/registry.ts";
import type { RuleFilter } from "../../../src/watch/filters/filter.ts";
import type { Listing } from "../../../src/market/schemas.ts";
import { BASE_LISTING, listingWith } from "../fixtures.ts";
import { gen, randomFilters, randomItemlessFilters, randomListing } from "../matcher/randomRules.ts";

const NAME = BASE_LISTING.item.market_hash_name;
const OTHER_NAME = "Viper SMG | Frost Web (Field Worn)";
/** Passes every listing: the companion of a filter that does not narrow the market alone. */
const ANY_PRICE = { max_price: 100_000_000_000 };
const FILTERS: readonly RuleFilter[] = RULE_FILTERS;

// The fixture: price $85.00, reference $100.00, quantity 120, float 0.0512, seed 661, def 7,
// paint 282, stickers 4761 (slot 0) and 5012 (slot 2), keychain 21. Each listing below changes
// one thing, to either side of a bound the rules below sit on.
const REF = BASE_LISTING.reference;
const POOL: readonly Listing[] = [
  listingWith(),
  listingWith({ state: "sold" }),
  listingWith({ item: { market_hash_name: OTHER_NAME } }),
  listingWith({ item: { market_hash_name: NAME.toUpperCase() } }),
  listingWith({ item: { def_index: 8 } }),
  listingWith({ item: { def_index: 0 } }),
  listingWith({ item: { def_index: null } }),
  listingWith({ item: { paint_index: 283 } }),
  listingWith({ item: { paint_index: null } }),
  listingWith({ item: { paint_seed: 660 } }),
  listingWith({ item: { paint_seed: 0 } }),
  listingWith({ item: { paint_seed: 1000 } }),
  listingWith({ item: { paint_seed: null } }),
  listingWith({ item: { float_value: 0.0511999 } }),
  listingWith({ item: { float_value: 0.0512001 } }),
  listingWith({ item: { float_value: 0 } }),
  listingWith({ item: { float_value: 1 } }),
  listingWith({ item: { float_value: null } }),
  listingWith({ price: 8499 }),
  listingWith({ price: 8501 }),
  listingWith({ price: 3 }),
  // 29% below a $100.00 reference, which binary fractions make 28.999999999999996%.
  listingWith({ price: 7100 }),
  listingWith({ reference: null, item: { reference: null } }),
  listingWith({ reference: { ...REF, quantity: 119 } }),
  listingWith({ reference: { ...REF, quantity: 121 } }),
  listingWith({ reference: { ...REF, buy_order: { max_price: 9500, quantity: 2 } } }),
  listingWith({ reference: { ...REF, buy_order: { max_price: 8000, quantity: 1 } } }),
  listingWith({ type: "auction" }),
  listingWith({ item: { is_statcounter: true } }),
  listingWith({ item: { is_souvenir: true } }),
  listingWith({ item: { is_statcounter: null, is_souvenir: null } }),
  listingWith({ item: { stickers: null } }),
  listingWith({ item: { stickers: [{ stickerId: 4761, slot: null, wear: 0 }] } }),
  listingWith({ item: { stickers: [{ stickerId: 4761, slot: 1, wear: 0 }] } }),
  listingWith({
    item: {
      stickers: [
        { stickerId: 4761, slot: 0, wear: 0, reference: { price: 2500 } },
        { stickerId: 4761, slot: 1, wear: 0.5, reference: { price: 2500 } },
        { stickerId: 5012, slot: 2, wear: 0, reference: { price: 400 } },
      ],
    },
  }),
  listingWith({ item: { keychains: null } }),
  listingWith({ item: { keychains: [{ stickerId: 21 }, { stickerId: 22 }] } }),
  listingWith({ item: { fade: { percentage: 97, rank: 3 } } }),
  listingWith({ item: { fade: { percentage: 95.5, rank: null } } }),
  listingWith({ item: { blue_gem: { playside_blue: 70, backside_blue: 40.1 } } }),
  listingWith({ item: { blue_gem: { playside_blue: 74.2, backside_blue: null } } }),
  listingWith({ item: { low_rank: 5 } }),
  listingWith({ item: { low_rank: 1 } }),
];

type Raw = Record<string, unknown>;

/** A deal filter's rules: each bound at every value a listing of the pool has, and just either side. */
function boundRules(filter: RuleFilter): Raw[] {
  const out: Raw[] = [];
  for (const bound of filter.deal ?? []) {
    const at = DEAL_BOUNDS.indexOf(bound);
    const values = new Set(POOL.map((l) => prepareListing(l).deal[at] as number).filter(Number.isFinite));
    for (const v of values) for (const d of [0, -1, 1, -0.5, 0.5]) out.push({ [bound.key]: v + d });
  }
  // Every bound at once, at one listing's values (fade 97-97, blue gem 70/40.1).
  for (const l of POOL) {
    const facts = prepareListing(l);
    const all: Raw = {};
    for (const bound of filter.deal ?? []) all[bound.key] = facts.deal[DEAL_BOUNDS.indexOf(bound)];
    if (Object.values(all).every((v) => Number.isFinite(v))) out.push(all);
  }
  return out;
}

/**
 * Each filter's rules, at the fixture's values and just past them. Adding a filter adds its cases
 * here (a deal filter's are made from its bounds); a test below fails until it does.
 */
const CASES: Record<string, Raw[] | "bounds"> = {
  item: [{ item: NAME }, { item: NAME.toLowerCase() }, { item: OTHER_NAME }],
  def_index: [{ def_index: 7 }, { def_index: 8 }, { def_index: 0 }],
  paint_index: [{ paint_index: 282 }, { paint_index: 283 }],
  paint_seeds: [
    { paint_seeds: [661] },
    { paint_seeds: [660, 662] },
    { paint_seeds: [0] },
    // Longer than a seed key holds: filed under def/paint or elsewhere, checked from the lists.
    { paint_seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 661] },
    { paint_seeds: [661, 1000], tier: "patterns" },
  ],
  float: [
    { min_float: 0.0512 },
    { max_float: 0.0512 },
    { min_float: 0.0512, max_float: 0.0512 },
    { min_float: 0.05, max_float: 0.06 },
    { max_float: 0.01 },
    { min_float: 0, max_float: 1 },
  ],
  max_price: [{ max_price: 8500 }, { max_price: 8499 }, { max_price: 3 }, { max_price: 0 }, ANY_PRICE],
  min_discount: [
    { min_discount: 15 },
    { min_discount: 14.9 },
    { min_discount: 15.1 },
    { min_discount: 29 },
    { min_discount: 0 },
    { min_discount: 100 },
  ],
  min_profit: "bounds",
  min_profit_pct: "bounds",
  min_exit_profit: "bounds",
  fade: "bounds",
  blue_gem: "bounds",
  max_float_rank: "bounds",
  min_sticker_value: "bounds",
  min_sticker_pct: "bounds",
  min_ref_qty: [
    { ...ANY_PRICE, min_ref_qty: 120 },
    { ...ANY_PRICE, min_ref_qty: 121 },
    { ...ANY_PRICE, min_ref_qty: 0 },
  ],
  // Not part of the synchronous match (salesRate.ts applies it after the index).
  min_sales_per_day: [{ ...ANY_PRICE, min_sales_per_day: 3 }],
  type: [
    { ...ANY_PRICE, type: "buy_now" },
    { ...ANY_PRICE, type: "auction" },
  ],
  category: [
    { ...ANY_PRICE, category: "normal" },
    { ...ANY_PRICE, category: "statcounter" },
    { ...ANY_PRICE, category: "souvenir" },
    { ...ANY_PRICE, category: "any" },
  ],
  stickers: [
    { stickers: [{ id: 4761 }] },
    { stickers: [{ id: 4761, slot: 0 }] },
    { stickers: [{ id: 4761, slot: 1 }] },
    { stickers: [{ id: 5012 }, { id: 4761 }] },
    {
      stickers: [
        { id: 4761, slot: 0 },
        { id: 4761, slot: 1 },
      ],
    },
    { stickers: [{ id: 9 }] },
  ],
  keychains: [{ keychains: [21] }, { keychains: [21, 22] }, { keychains: [22] }],
};

/** Filters the synchronous match never refuses (applied after it). */
const APPLIED_AFTER = new Set(["min_sales_per_day"]);

function rulesOf(filter: RuleFilter): RuleFilters[] {
  const raw = CASES[filter.name];
  const rules = raw === "bounds" ? boundRules(filter) : (raw ?? []);
  // Values a bound cannot take (a negative profit, a fractional cent) are skipped.
  return rules.flatMap((r) => {
    const parsed = RuleFilters.safeParse(r);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The same rule under each kind of key the index files rules by (a name, def and paint, a seed, a
 * sticker, a keychain, a broad bucket) and with a price ceiling and float range beside it, each
 * added only where the rule does not set it already.
 */
function placements(rule: RuleFilters): RuleFilters[] {
  const extra: Raw[] = [
    {},
    { item: NAME },
    { def_index: 7, paint_index: 282 },
    { def_index: 7 },
    { paint_index: 282 },
    { paint_seeds: [661, 660] },
    { stickers: [{ id: 4761 }] },
    { keychains: [21] },
    { max_price: 9000 },
    { max_price: 9000, min_float: 0.01, max_float: 0.5 },
    { type: "buy_now", min_discount: 10 },
  ];
  return extra.flatMap((e) => {
    if (Object.keys(e).some((k) => k in rule || (k === "paint_seeds" && "tier" in rule))) return [];
    const parsed = RuleFilters.safeParse({ ...rule, ...e });
    return parsed.success ? [parsed.data] : [];
  });
}

interface Disagreement {
  rule: RuleFilters;
  listing: string;
  registry: boolean;
  linear: boolean;
  index: boolean;
}

/** Every rule against every listing: the registry's answer, the compiled linear one and the index's. */
function compare(rules: readonly RuleFilters[], listings: readonly Listing[]): Disagreement[] {
  const index = createMatcherIndex({ capacity: rules.length });
  const matcherRules: MatcherRule[] = rules.map((filters, i) => ({
    id: String(i + 1),
    userId: "u1",
    filters,
  }));
  for (const rule of matcherRules) index.add(rule);
  const compiled = rules.map((r) => compileFilters(r));
  const out: Disagreement[] = [];
  for (const listing of listings) {
    const facts = prepareListing(listing);
    const hits = new Set(index.matchIds(listing).map(String));
    rules.forEach((rule, i) => {
      const registry = ruleMatches(rule, facts);
      const linear = matchesFacts(compiled[i] as (typeof compiled)[number], facts);
      const indexed = hits.has(String(i + 1));
      if (registry !== linear || registry !== indexed)
        out.push({ rule, listing: listing.id, registry, linear, index: indexed });
    });
  }
  return out;
}

describe("the filter registry", () => {
  it("GIVEN the registry WHEN its entries are listed THEN each has cases here, and its keys, options and meaning are its own", () => {
    expect(Object.keys(CASES).sort()).toEqual(FILTERS.map((f) => f.name).sort());
    const storedKeys = FILTERS.flatMap((f) => Object.keys(f.stored));
    expect(new Set(storedKeys).size).toBe(storedKeys.length);
    expect(storedKeys.sort()).toEqual(Object.keys(RULE_FILTER_SHAPE).sort());
    const optionNames = FILTER_OPTIONS.map((o) => o.name);
    expect(new Set(optionNames).size).toBe(optionNames.length);
    for (const f of FILTERS) {
      const own = Object.keys(f.stored);
      for (const k of [...f.narrowing, ...Object.values(f.replaces ?? {}).flat()])
        expect(own, f.name).toContain(k);
      for (const option of Object.keys(f.replaces ?? {}))
        expect(
          f.options.map((o) => o.name),
          f.name,
        ).toContain(option);
      // The meaning is either a predicate or deal bounds, never both.
      expect((f.matches === undefined) !== (f.deal === undefined), f.name).toBe(true);
      for (const b of f.deal ?? []) expect(own, f.name).toContain(b.key);
    }
    // Deal bounds: one axis rank each.
    expect(new Set(DEAL_BOUNDS.map((b) => b.axisRank)).size).toBe(DEAL_BOUNDS.length);
  });

  for (const filter of FILTERS) {
    it(`GIVEN rules on ${filter.name} at its bounds, under every kind of index key WHEN listings around them arrive THEN the compiled match and the packed index answer as the registry does`, () => {
      const own = rulesOf(filter);
      expect(own.length, "cases that parse").toBeGreaterThan(0);
      const rules = own.flatMap(placements);
      expect(compare(rules, POOL)).toEqual([]);

      // The cases have teeth: among listed listings the filter's own rules both match and refuse
      // (only the filter decides: the companion price passes every listing).
      const listed = POOL.filter((l) => l.state === "listed").map((l) => prepareListing(l));
      const answers = own.flatMap((r) => listed.map((facts) => ruleMatches(r, facts)));
      expect(answers, "some match").toContain(true);
      if (!APPLIED_AFTER.has(filter.name)) expect(answers, "some refuse").toContain(false);

      // Packing: the filter writes something the matcher reads (a rule of category "any" or at
      // the companion's own price compiles as the bare rule), unless it is not indexed.
      if (!APPLIED_AFTER.has(filter.name)) {
        const bare = JSON.stringify(compileFilters(RuleFilters.parse(ANY_PRICE)));
        expect(own.some((r) => JSON.stringify(compileFilters(r)) !== bare)).toBe(true);
      }
    });
  }

  it("GIVEN two rules of one filter WHEN an edit from one to the other narrows THEN every listing the second matches, the first matched", () => {
    const unsound: string[] = [];
    const facts = POOL.map((l) => prepareListing(l));
    for (const filter of FILTERS) {
      const rules = rulesOf(filter);
      for (const before of rules) {
        expect(editNarrows(before, before), JSON.stringify(before)).toBe(true);
        for (const after of rules) {
          if (!editNarrows(before, after)) continue;
          if (facts.some((l) => ruleMatches(after, l) && !ruleMatches(before, l)))
            unsound.push(`${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
        }
      }
    }
    expect(unsound).toEqual([]);
  });

  it("GIVEN 3000 random rules WHEN 600 random listings arrive THEN the registry, the compiled match and the index agree on every pair", () => {
    const g = gen(20260401);
    const rules = Array.from({ length: 3000 }, () =>
      g.chance(0.5) ? randomItemlessFilters(g) : randomFilters(g),
    );
    const listings = Array.from({ length: 600 }, (_, n) => randomListing(g, n));
    const differences = compare(rules, listings);
    expect(differences.slice(0, 5)).toEqual([]);
    // Matches are common but not universal.
    const matched = listings.filter((l) => rules.some((r) => ruleMatches(r, prepareListing(l))));
    expect(matched.length).toBeGreaterThan(300);
  });
});

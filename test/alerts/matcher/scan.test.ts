// The bound-decided scan (scan.ts) steps over four entries at a time: every place a part can stop, within a step or after it, gives the linear scan's answer.
import { describe, expect, it } from "vitest";
import { createMatcherIndex, linearScanMatch, type MatcherRule } from "../../../src/watch/matcher/matcher.ts";
import type { RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { listingWith } from "../fixtures.ts";

describe("bound-decided scan", () => {
  it("GIVEN one item's rules in every kind of bound-decided part, 1 to 11 of them per ceiling run, some for another listing type WHEN listings priced at, between and past every ceiling arrive, floats inside and outside the ranges THEN the index returns exactly the linear scan's rules", () => {
    const item = listingWith().item.market_hash_name;
    const rules: MatcherRule[] = [];
    const shapes: Array<(k: number) => RuleFilters> = [
      // The price axis' plain part (the pair alone), its float part, and the discount axis' plain part.
      (k) => ({ item, max_price: 100 * k }),
      (k) => ({ item, max_price: 100 * k, min_float: 0.01 * (k % 3), max_float: 0.02 + 0.01 * k }),
      (k) => ({ item, min_discount: k, max_price: 2000 - 50 * k }),
    ];
    for (const [s, shape] of shapes.entries())
      for (let run = 1; run <= 11; run++)
        for (let k = 1; k <= run; k++) {
          const filters: RuleFilters = { ...shape(k), ...(k % 5 === 0 ? { type: "auction" } : {}) };
          rules.push({ id: String(rules.length + 1), userId: `u${s}`, filters });
        }
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    let compared = 0;
    for (let price = 0; price <= 1250; price += 50)
      for (const float_value of [0.005, 0.03, 0.07, 0.2]) {
        const listing = listingWith({ price, item: { float_value }, reference: { predicted_price: 1300 } });
        const expected = linearScanMatch(rules, listing)
          .map((r) => r.id)
          .sort();
        compared += expected.length;
        expect({ price, float_value, ids: index.matchIds(listing).map(String).sort() }).toEqual({
          price,
          float_value,
          ids: expected,
        });
      }
    expect(compared).toBeGreaterThan(1000);
  });
});

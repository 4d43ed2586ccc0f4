// The rule "Watch similar" proposes from a listing.
import { describe, expect, it } from "vitest";
import { similarRuleOf } from "../../../src/watch/similarRule.ts";
import { listingWith } from "../fixtures.ts";

describe("similarRuleOf", () => {
  it("GIVEN a plain skin THEN the rule has its item, its price as ceiling and a float range around its float, but no seed", () => {
    const rule = similarRuleOf(
      listingWith({
        price: 9_840,
        item: {
          market_hash_name: "Falcon Rifle | Ember Tide (Pristine)",
          float_value: 0.005,
          paint_seed: 12,
        },
      }),
    );
    expect(rule.filters).toEqual({
      item: "Falcon Rifle | Ember Tide (Pristine)",
      max_price: 9_840,
      min_float: 0,
      max_float: 0.015,
    });
    expect(rule.name).toBe("Ember Tide (Pristine) ≤ $98.40");
  });

  it("GIVEN a patterned skin with a long non-ASCII name THEN its seed is kept and the name fits in 50 characters", () => {
    const rule = similarRuleOf(
      listingWith({
        price: 100,
        item: {
          market_hash_name: `Ножик | ${"龍".repeat(80)} (Factory New)`,
          float_value: 0.995,
          paint_seed: 661,
          fade: { percentage: 98 },
        },
      }),
    );
    expect(rule.filters.paint_seeds).toEqual([661]);
    expect(rule.filters.max_float).toBe(1);
    expect([...rule.name].length).toBeLessThanOrEqual(50);
    expect(rule.name.endsWith("≤ $1.00")).toBe(true);
  });
});

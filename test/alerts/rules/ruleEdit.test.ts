// Editing a rule's filters: what an edit sets, clears and keeps, and whether it only narrows what the rule may buy.
import { describe, expect, it } from "vitest";
import { applyEdit, editNarrows, parseClear } from "../../../src/watch/ruleEdit.ts";
import type { RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { UserFacingError } from "../../../src/errors.ts";

const ITEM = "Falcon Rifle | Ember Tide (Pristine)";
const base: RuleFilters = { item: ITEM, max_price: 3_000, min_float: 0.1, max_float: 0.3 };

describe("editNarrows", () => {
  const narrows = (after: RuleFilters, before: RuleFilters = base) => editNarrows(before, after);

  it("GIVEN the same filters, a lower max_price, a tighter float range or an added filter THEN the edit narrows", () => {
    expect(narrows({ ...base })).toBe(true);
    expect(narrows({ ...base, max_price: 2_000 })).toBe(true);
    expect(narrows({ ...base, min_float: 0.15, max_float: 0.2 })).toBe(true);
    expect(narrows({ ...base, min_discount: 10, stickers: [{ id: 5 }] })).toBe(true);
    expect(narrows({ ...base, item: ITEM.toUpperCase() })).toBe(true);
    expect(narrows({ ...base, paint_seeds: [661] }, { ...base, paint_seeds: [661, 670] })).toBe(true);
  });

  it("GIVEN a higher or removed max_price, a wider or removed float range, another item or a removed filter THEN the edit widens", () => {
    expect(narrows({ ...base, max_price: 3_001 })).toBe(false);
    const { max_price: _p, ...noPrice } = base;
    expect(narrows(noPrice)).toBe(false);
    expect(narrows({ ...base, max_float: 0.4 })).toBe(false);
    expect(narrows({ ...base, min_float: 0.05 })).toBe(false);
    const { min_float: _a, max_float: _b, ...noFloat } = base;
    expect(narrows(noFloat)).toBe(false);
    expect(narrows({ ...base, item: "Falcon Rifle | Ember Tide (Worn)" })).toBe(false);
    const { item: _i, ...noItem } = base;
    expect(narrows({ ...noItem, def_index: 7 })).toBe(false);
    expect(narrows({ ...base }, { ...base, min_discount: 10 })).toBe(false);
    expect(narrows({ ...base, min_discount: 5 }, { ...base, min_discount: 10 })).toBe(false);
    expect(narrows({ ...base, paint_seeds: [661, 1] }, { ...base, paint_seeds: [661] })).toBe(false);
    expect(narrows({ ...base }, { ...base, stickers: [{ id: 5, slot: 1 }] })).toBe(false);
    expect(narrows({ ...base, type: "auction" }, { ...base, type: "buy_now" })).toBe(false);
    expect(narrows({ ...base, max_fade: 100 }, { ...base, max_fade: 99 })).toBe(false);
  });
});

describe("applyEdit", () => {
  it("GIVEN an option set to the value it has THEN the filters come out equal (the reply can say nothing changed)", () => {
    const after = applyEdit(base, { max_price: 30 }, []);
    expect(after).toEqual(base);
  });

  it("GIVEN options given and cleared THEN those change and every other filter is kept", () => {
    const after = applyEdit({ ...base, min_fade: 90, max_fade: 100 }, { max_price: 45, fade: "95" }, [
      "min_float",
    ]);
    expect(after).toEqual({ item: ITEM, max_price: 4_500, max_float: 0.3, min_fade: 95 });
  });

  it("GIVEN a tier rule WHEN seeds are given THEN the tier link goes with the old seeds", () => {
    const after = applyEdit({ ...base, paint_seeds: [1, 2], tier: "t1" }, { paint_seeds: "661" }, []);
    expect(after.paint_seeds).toEqual([661]);
    expect(after.tier).toBeUndefined();
  });

  it("GIVEN an edit that leaves no narrowing filter, a flipped float range or an option both set and cleared THEN a user-facing error names the problem", () => {
    const problem = (run: () => unknown) => {
      try {
        run();
      } catch (err) {
        expect(err).toBeInstanceOf(UserFacingError);
        return (err as UserFacingError).message;
      }
      throw new Error("no error");
    };
    expect(problem(() => applyEdit(base, {}, ["item", "max_price", "min_float", "max_float"]))).toContain(
      "narrow",
    );
    expect(problem(() => applyEdit(base, { min_float: 0.5 }, []))).toContain("min_float");
    expect(problem(() => applyEdit(base, { max_price: 5 }, ["max_price"]))).toContain("max_price");
    expect(problem(() => parseClear("max_price, colour"))).toContain("colour");
  });
});

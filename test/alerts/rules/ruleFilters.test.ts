// Watch-rule filters: the stored schema, building from options, the description line, and each filter's meaning.
import { describe, expect, it } from "vitest";
import { UserFacingError } from "../../../src/errors.ts";
import { describeFilters } from "../../../src/watch/describeFilters.ts";
import { referencePriceOf } from "../../../src/market/reference.ts";
import { toListingSummary } from "../../../src/trading/views.ts";
import { matchesListing, RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { ruleFromOptions } from "../../../src/watch/ruleOptions.ts";
import { listingWith } from "../fixtures.ts";

const NAME = "Falcon Rifle | Ember Tide (Pristine)";

function errorOf(run: () => unknown): UserFacingError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof UserFacingError) return error;
    throw error;
  }
  return undefined;
}

describe("RuleFilters stored JSON", () => {
  it("GIVEN stored JSON with several filters WHEN parsed THEN every filter is kept", () => {
    const stored = JSON.parse(
      '{"item":"Falcon Rifle | Ember Tide (Pristine)","max_float":0.07,"max_price":12000,"stickers":[{"id":4761,"slot":0}]}',
    );
    expect(RuleFilters.parse(stored)).toEqual({
      item: NAME,
      max_float: 0.07,
      max_price: 12000,
      stickers: [{ id: 4761, slot: 0 }],
    });
  });

  it("GIVEN stored JSON with a filter this build does not know WHEN parsed THEN it is refused rather than widened", () => {
    expect(RuleFilters.safeParse({ item: NAME, max_wear_rank: 3 }).success).toBe(false);
  });

  it("GIVEN stored JSON with min_float above max_float WHEN parsed THEN it is refused", () => {
    expect(RuleFilters.safeParse({ item: NAME, min_float: 0.5, max_float: 0.1 }).success).toBe(false);
  });

  it("GIVEN stored JSON with only type and category WHEN parsed THEN it is refused", () => {
    expect(RuleFilters.safeParse({ type: "auction", category: "souvenir" }).success).toBe(false);
  });

  it("GIVEN a rule WHEN written to JSON and read back THEN it is unchanged", () => {
    const rule = ruleFromOptions({
      item: NAME,
      paint_seeds: "661, 670",
      stickers: "4761|0, 5012",
      max_price: "120",
    });
    expect(RuleFilters.parse(JSON.parse(JSON.stringify(rule)))).toEqual(rule);
  });
});

describe("ruleFromOptions", () => {
  it("GIVEN typed options WHEN built THEN values are parsed into filters and 'any' category is dropped", () => {
    const filters = ruleFromOptions({
      item: `  ${NAME}  `,
      min_float: "0",
      max_float: 0.07,
      max_price: "120",
      min_discount: "15%",
      paint_seeds: "661, 670",
      min_ref_qty: "20",
      type: "auction",
      category: "any",
      stickers: "4761|0, 5012",
      keychains: "21",
      def_index: null,
      paint_index: undefined,
    });
    expect(filters).toEqual({
      item: NAME,
      min_float: 0,
      max_float: 0.07,
      max_price: 12000,
      min_discount: 15,
      paint_seeds: [661, 670],
      min_ref_qty: 20,
      type: "auction",
      stickers: [{ id: 4761, slot: 0 }, { id: 5012 }],
      keychains: [21],
    });
  });

  it("GIVEN only type and category WHEN built THEN the user is asked for a narrowing filter", () => {
    const error = errorOf(() =>
      ruleFromOptions({ type: "buy_now", category: "statcounter", min_ref_qty: 5 }),
    );
    expect(error?.code).toBe("invalid_input");
    expect(error?.userMessage).toContain("Add at least one filter that narrows the rule");
    expect(error?.context).toEqual({ reason: "no_narrowing_filter" });
  });

  it("GIVEN min_float above max_float WHEN built THEN the message names both options", () => {
    const error = errorOf(() => ruleFromOptions({ item: NAME, min_float: "0.5", max_float: "0.1" }));
    expect(error?.userMessage).toContain("min_float (0.5) is above max_float (0.1)");
  });

  it("GIVEN a float of 2 WHEN built THEN the message names max_float", () => {
    const error = errorOf(() => ruleFromOptions({ item: NAME, max_float: "2" }));
    expect(error?.userMessage).toBe("`max_float`: must be between 0 and 1");
  });

  it("GIVEN an unknown listing type WHEN built THEN the message names type", () => {
    expect(errorOf(() => ruleFromOptions({ item: NAME, type: "cheap" }))?.userMessage).toBe(
      "`type`: must be buy_now or auction",
    );
  });

  it("GIVEN an unknown category WHEN built THEN the message names category", () => {
    expect(errorOf(() => ruleFromOptions({ item: NAME, category: "rare" }))?.context).toEqual({
      option: "category",
    });
  });

  it("GIVEN an item name with a line break WHEN built THEN the message names item", () => {
    expect(errorOf(() => ruleFromOptions({ item: "Falcon\nRifle" }))?.context).toEqual({ option: "item" });
  });
});

describe("describeFilters", () => {
  it("GIVEN an item, float range, price and discount WHEN described THEN one short line", () => {
    const line = describeFilters({
      item: NAME,
      min_float: 0,
      max_float: 0.07,
      max_price: 12000,
      min_discount: 15,
    });
    expect(line).toBe("Falcon Rifle | Ember Tide (Pristine) · float 0–0.07 · ≤ $120.00 · ≥ 15% below ref");
  });

  it("GIVEN every other filter WHEN described THEN each appears", () => {
    const line = describeFilters({
      def_index: 7,
      paint_index: 282,
      paint_seeds: [1, 2, 3, 4, 5, 6, 7],
      min_float: 0.15,
      min_ref_qty: 20,
      type: "auction",
      category: "normal",
      stickers: [{ id: 4761, slot: 0 }, { id: 5012 }],
      keychains: [21, 22],
    });
    expect(line).toBe(
      "def 7 · paint 282 · seed 1, 2, 3, 4, 5 +2 more · float ≥ 0.15 · ref qty ≥ 20 · auctions · " +
        "not statcounter/souvenir · stickers 4761 (slot 0), 5012 · keychains 21, 22",
    );
  });

  it("GIVEN an item name typed with a mention and markdown WHEN described THEN neither is live", () => {
    const line = describeFilters({ item: "@everyone **free**" });
    expect(line).toBe("@\u200beveryone \\*\\*free\\*\\*");
  });
});

describe("matchesListing: what each filter means", () => {
  const listing = listingWith();

  it("GIVEN a rule with every filter set to fit WHEN the base listing appears THEN it matches", () => {
    const filters = RuleFilters.parse({
      item: NAME,
      def_index: 7,
      paint_index: 282,
      paint_seeds: [1, 661],
      min_float: 0.05,
      max_float: 0.07,
      max_price: 8500,
      min_discount: 15,
      min_ref_qty: 120,
      type: "buy_now",
      category: "normal",
      stickers: [{ id: 4761, slot: 0 }, { id: 5012 }],
      keychains: [21],
    });
    expect(matchesListing(filters, listing)).toBe(true);
  });

  describe("item", () => {
    it("GIVEN a rule with the name in other case WHEN the listing appears THEN it matches", () => {
      expect(matchesListing({ item: NAME.toUpperCase() }, listing)).toBe(true);
    });
    it("GIVEN a rule with a prefix of the name WHEN the listing appears THEN no match (exact names only)", () => {
      expect(matchesListing({ item: "Falcon Rifle | Ember Tide" }, listing)).toBe(false);
    });
  });

  describe("def_index and paint_index", () => {
    it("GIVEN a def_index rule WHEN a listing of another def_index appears THEN no match", () => {
      expect(matchesListing({ def_index: 7 }, listing)).toBe(true);
      expect(matchesListing({ def_index: 8 }, listing)).toBe(false);
    });
    it("GIVEN a paint_index rule WHEN a listing without paint_index appears THEN no match", () => {
      expect(matchesListing({ paint_index: 282 }, listing)).toBe(true);
      expect(matchesListing({ paint_index: 282 }, listingWith({ item: { paint_index: null } }))).toBe(false);
    });
  });

  describe("paint_seeds", () => {
    it("GIVEN a seed list WHEN the listing's seed is any of them THEN it matches", () => {
      expect(matchesListing({ paint_seeds: [955, 661] }, listing)).toBe(true);
    });
    it("GIVEN a seed list WHEN the listing's seed is not in it THEN no match", () => {
      expect(matchesListing({ paint_seeds: [955, 670] }, listing)).toBe(false);
    });
    it("GIVEN a seed list WHEN a listing without a seed appears THEN no match", () => {
      expect(matchesListing({ paint_seeds: [661] }, listingWith({ item: { paint_seed: null } }))).toBe(false);
    });
  });

  describe("float", () => {
    it("GIVEN a float range WHEN the float sits exactly on either bound THEN it matches (inclusive)", () => {
      expect(matchesListing({ min_float: 0.0512, max_float: 0.07 }, listing)).toBe(true);
      expect(matchesListing({ min_float: 0, max_float: 0.0512 }, listing)).toBe(true);
    });
    it("GIVEN a float range WHEN a listing outside it appears THEN no match", () => {
      expect(matchesListing({ min_float: 0, max_float: 0.0511 }, listing)).toBe(false);
      expect(matchesListing({ min_float: 0.0513 }, listing)).toBe(false);
    });
    it("GIVEN a float rule WHEN a listing without float_value appears THEN no match, even for 0-1", () => {
      const noFloat = listingWith({ item: { float_value: null } });
      expect(matchesListing({ min_float: 0, max_float: 1 }, noFloat)).toBe(false);
      expect(matchesListing({ item: NAME }, noFloat)).toBe(true);
    });
  });

  describe("max_price", () => {
    it("GIVEN a max_price equal to the price WHEN the listing appears THEN it matches (inclusive)", () => {
      expect(matchesListing({ max_price: 8500 }, listing)).toBe(true);
    });
    it("GIVEN a max_price one cent below the price WHEN the listing appears THEN no match", () => {
      expect(matchesListing({ max_price: 8499 }, listing)).toBe(false);
    });
  });

  describe("min_discount and the reference price", () => {
    it("GIVEN min_discount 15 WHEN the price is exactly 15% below the reference THEN it matches", () => {
      expect(matchesListing({ min_discount: 15 }, listing)).toBe(true);
    });
    it("GIVEN min_discount 15 WHEN the price is one cent above 15% below THEN no match", () => {
      expect(matchesListing({ min_discount: 15 }, listingWith({ price: 8501 }))).toBe(false);
    });
    it("GIVEN min_discount 29 WHEN the discount is exactly 29% in binary-fraction arithmetic THEN it matches", () => {
      const cheap = listingWith({ price: 71, reference: { predicted_price: 100 } });
      expect(((100 - 71) / 100) * 100).toBeLessThan(29);
      expect(matchesListing({ min_discount: 29 }, cheap)).toBe(true);
    });
    it("GIVEN both reference prices WHEN measuring the discount THEN predicted_price is the reference", () => {
      const l = listingWith({ reference: { predicted_price: 10000, base_price: 8000 } });
      expect(referencePriceOf(l)).toBe(10000);
      expect(matchesListing({ min_discount: 15 }, l)).toBe(true);
    });
    it("GIVEN only base_price on the listing WHEN measuring the discount THEN base_price is the reference", () => {
      const l = listingWith({ reference: { base_price: 9000, quantity: 5 } });
      expect(referencePriceOf(l)).toBe(9000);
      expect(matchesListing({ min_discount: 15 }, l)).toBe(false);
      expect(matchesListing({ min_discount: 5.5 }, l)).toBe(true);
    });
    it("GIVEN no listing reference WHEN the item carries one THEN the item's reference is used", () => {
      const l = listingWith({ reference: null });
      expect(referencePriceOf(l)).toBe(9900);
      expect(matchesListing({ min_discount: 14 }, l)).toBe(true);
      expect(matchesListing({ min_discount: 15 }, l)).toBe(false);
    });
    it("GIVEN a listing reference without prices and an item reference WHEN the rule and /listing read it THEN both take the item's $99.00: the discount a rule matched on is the one shown", () => {
      const l = listingWith({ reference: { quantity: 3 } });
      expect(referencePriceOf(l)).toBe(9900);
      expect(toListingSummary(l).referencePriceCents).toBe(9900);
    });
    it("GIVEN a zero reference on the listing WHEN /listing reads it THEN it shows no reference, as a rule sees none", () => {
      const l = listingWith({ reference: { predicted_price: 0 }, item: { reference: null } });
      expect(toListingSummary(l).referencePriceCents).toBeUndefined();
    });
    it("GIVEN no reference anywhere WHEN a min_discount rule meets the listing THEN no match, even at 0%", () => {
      const l = listingWith({ reference: null, item: { reference: null } });
      expect(matchesListing({ min_discount: 0 }, l)).toBe(false);
      expect(matchesListing({ max_price: 8500 }, l)).toBe(true);
    });
    it("GIVEN a zero reference price WHEN a min_discount rule meets the listing THEN no match", () => {
      const l = listingWith({ reference: { predicted_price: 0 }, item: { reference: null } });
      expect(matchesListing({ min_discount: 0 }, l)).toBe(false);
    });
  });

  describe("min_ref_qty", () => {
    it("GIVEN min_ref_qty equal to the reference quantity WHEN the listing appears THEN it matches", () => {
      expect(matchesListing({ item: NAME, min_ref_qty: 120 }, listing)).toBe(true);
      expect(matchesListing({ item: NAME, min_ref_qty: 121 }, listing)).toBe(false);
    });
    it("GIVEN no listing reference WHEN the item reference has a quantity THEN that quantity is used", () => {
      const l = listingWith({ reference: null });
      expect(matchesListing({ item: NAME, min_ref_qty: 40 }, l)).toBe(true);
      expect(matchesListing({ item: NAME, min_ref_qty: 41 }, l)).toBe(false);
    });
    it("GIVEN no reference quantity anywhere WHEN a min_ref_qty rule meets the listing THEN no match", () => {
      const l = listingWith({ reference: { predicted_price: 10000 }, item: { reference: null } });
      expect(matchesListing({ item: NAME, min_ref_qty: 0 }, l)).toBe(false);
    });
  });

  describe("type", () => {
    it("GIVEN an auction rule WHEN a buy-now listing appears THEN no match", () => {
      expect(matchesListing({ item: NAME, type: "auction" }, listing)).toBe(false);
      expect(matchesListing({ item: NAME, type: "auction" }, listingWith({ type: "auction" }))).toBe(true);
    });
  });

  describe("category", () => {
    const statcounter = listingWith({ item: { is_statcounter: true } });
    const souvenir = listingWith({ item: { is_souvenir: true } });
    const unflagged = listingWith({ item: { is_statcounter: null, is_souvenir: null } });

    it("GIVEN category normal WHEN statcounter or souvenir listings appear THEN no match", () => {
      expect(matchesListing({ item: NAME, category: "normal" }, listing)).toBe(true);
      expect(matchesListing({ item: NAME, category: "normal" }, unflagged)).toBe(true);
      expect(matchesListing({ item: NAME, category: "normal" }, statcounter)).toBe(false);
      expect(matchesListing({ item: NAME, category: "normal" }, souvenir)).toBe(false);
    });
    it("GIVEN category statcounter WHEN listings appear THEN only is_statcounter true matches", () => {
      expect(matchesListing({ item: NAME, category: "statcounter" }, statcounter)).toBe(true);
      expect(matchesListing({ item: NAME, category: "statcounter" }, unflagged)).toBe(false);
      expect(matchesListing({ item: NAME, category: "statcounter" }, souvenir)).toBe(false);
    });
    it("GIVEN category souvenir WHEN listings appear THEN only is_souvenir true matches", () => {
      expect(matchesListing({ item: NAME, category: "souvenir" }, souvenir)).toBe(true);
      expect(matchesListing({ item: NAME, category: "souvenir" }, listing)).toBe(false);
    });
    it("GIVEN category any WHEN any listing appears THEN category does not filter", () => {
      expect(matchesListing({ item: NAME, category: "any" }, statcounter)).toBe(true);
      expect(matchesListing({ item: NAME, category: "any" }, souvenir)).toBe(true);
    });
  });

  describe("stickers", () => {
    it("GIVEN a sticker without slot WHEN the listing carries it in any slot THEN it matches", () => {
      expect(matchesListing({ stickers: [{ id: 5012 }] }, listing)).toBe(true);
    });
    it("GIVEN a sticker at a slot WHEN the listing carries it at another slot THEN no match", () => {
      expect(matchesListing({ stickers: [{ id: 5012, slot: 2 }] }, listing)).toBe(true);
      expect(matchesListing({ stickers: [{ id: 5012, slot: 1 }] }, listing)).toBe(false);
    });
    it("GIVEN two stickers WHEN the listing carries only one THEN no match", () => {
      expect(matchesListing({ stickers: [{ id: 4761 }, { id: 9999 }] }, listing)).toBe(false);
    });
    it("GIVEN a sticker rule WHEN a listing without stickers appears THEN no match", () => {
      expect(matchesListing({ stickers: [{ id: 4761 }] }, listingWith({ item: { stickers: null } }))).toBe(
        false,
      );
    });
    it("GIVEN a slot selector WHEN the listing's sticker has no slot THEN no match", () => {
      const l = listingWith({ item: { stickers: [{ stickerId: 4761 }] } });
      expect(matchesListing({ stickers: [{ id: 4761 }] }, l)).toBe(true);
      expect(matchesListing({ stickers: [{ id: 4761, slot: 0 }] }, l)).toBe(false);
    });
    it("GIVEN one sticker asked at two slots WHEN the listing has one copy THEN no match", () => {
      const two = listingWith({
        item: {
          stickers: [
            { stickerId: 4761, slot: 0 },
            { stickerId: 4761, slot: 1 },
          ],
        },
      });
      const rule: RuleFilters = {
        stickers: [
          { id: 4761, slot: 0 },
          { id: 4761, slot: 1 },
        ],
      };
      expect(matchesListing(rule, two)).toBe(true);
      expect(matchesListing(rule, listing)).toBe(false);
    });
  });

  describe("keychains", () => {
    it("GIVEN keychain ids WHEN the listing carries each THEN it matches, else not", () => {
      expect(matchesListing({ keychains: [21] }, listing)).toBe(true);
      expect(matchesListing({ keychains: [21, 22] }, listing)).toBe(false);
      expect(matchesListing({ keychains: [21] }, listingWith({ item: { keychains: null } }))).toBe(false);
    });
  });

  describe("state", () => {
    it.each(["sold", "delisted", "refunded", "some_future_state"])(
      "GIVEN a matching rule WHEN a listing in state %s appears THEN no match",
      (state) => {
        expect(matchesListing({ item: NAME }, listingWith({ state }))).toBe(false);
      },
    );
  });
});

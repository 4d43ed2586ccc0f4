// Deal-quality filters: net profit after the fee, instant exit, fade, blue gem, float rank and sticker value, from options to meaning.
import { describe, expect, it } from "vitest";
import { stickerValueCents } from "../../../src/watch/deal.ts";
import { describeFilters } from "../../../src/watch/describeFilters.ts";
import { matchesListing, RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { ruleFromOptions } from "../../../src/watch/ruleOptions.ts";
import { UserFacingError } from "../../../src/errors.ts";
import { feeModel } from "../../../src/market/fees.ts";
import { Sticker } from "../../../src/market/schemas.ts";
import { BASE_LISTING, listingWith } from "../fixtures.ts";

const NAME = "Falcon Rifle | Ember Tide (Pristine)";
// The base listing: price $85.00, reference $100.00 (the listing's predicted price). After the
// default 2% fee a resale at the reference nets 10000 - 200 - 8500 = $13.00, 15.29% of the price.

function errorOf(run: () => unknown): UserFacingError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof UserFacingError) return error;
    throw error;
  }
  return undefined;
}

const matches = (filters: Record<string, unknown>, listing = listingWith()) =>
  matchesListing(RuleFilters.parse({ item: NAME, ...filters }), listing);

describe("net profit at the reference, after the seller fee", () => {
  it("GIVEN min_profit at the exact net WHEN the base listing appears THEN it matches, and a cent more does not", () => {
    expect(matches({ min_profit: 1300 })).toBe(true);
    expect(matches({ min_profit: 1301 })).toBe(false);
  });

  it("GIVEN a 0% fee model WHEN matched THEN the whole $15.00 gap counts", () => {
    const rule = RuleFilters.parse({ item: NAME, min_profit: 1500 });
    expect(matchesListing(rule, listingWith(), feeModel(0))).toBe(true);
    expect(matchesListing(rule, listingWith())).toBe(false);
  });

  it("GIVEN min_profit_pct WHEN matched THEN the net is measured against the price", () => {
    expect(matches({ min_profit_pct: 15.29 })).toBe(true);
    expect(matches({ min_profit_pct: 15.3 })).toBe(false);
  });

  it("GIVEN a listing without any reference WHEN a profit rule is checked THEN it does not match", () => {
    const bare = listingWith({ reference: null, item: { reference: null } });
    expect(matches({ min_profit: 0 }, bare)).toBe(false);
    expect(matches({ min_profit_pct: 0 }, bare)).toBe(false);
  });
});

describe("instant exit to the highest buy order", () => {
  const withOrder = (where: "listing" | "item", maxPrice: number) =>
    where === "listing"
      ? listingWith({
          reference: { ...BASE_LISTING.reference, buy_order: { max_price: maxPrice, quantity: 2 } },
        })
      : listingWith({
          reference: null,
          item: {
            reference: { ...BASE_LISTING.item.reference, buy_order: { max_price: maxPrice, quantity: 1 } },
          },
        });

  it("GIVEN a $90.00 buy order on the listing WHEN min_exit_profit is $3.20 THEN it matches (9000 - 180 - 8500), $3.21 does not", () => {
    expect(matches({ min_exit_profit: 320 }, withOrder("listing", 9000))).toBe(true);
    expect(matches({ min_exit_profit: 321 }, withOrder("listing", 9000))).toBe(false);
  });

  it("GIVEN the buy order only on the item's reference WHEN checked THEN that one is used", () => {
    expect(matches({ min_exit_profit: 320 }, withOrder("item", 9000))).toBe(true);
  });

  it("GIVEN no buy order WHEN min_exit_profit is $0 THEN it does not match", () => {
    expect(matches({ min_exit_profit: 0 })).toBe(false);
  });
});

describe("special values", () => {
  const fade = (percentage: number) => listingWith({ item: { fade: { percentage, rank: 3, seed: 661 } } });

  it("GIVEN min_fade 97 WHEN fades of 97% and 90% appear THEN only the 97% one matches", () => {
    expect(matches({ min_fade: 97 }, fade(97))).toBe(true);
    expect(matches({ min_fade: 97 }, fade(90))).toBe(false);
  });

  it("GIVEN max_fade 95 WHEN a 97% fade appears THEN it does not match; no fade data matches neither bound", () => {
    expect(matches({ max_fade: 95 }, fade(97))).toBe(false);
    expect(matches({ max_fade: 95 }, fade(95))).toBe(true);
    expect(matches({ max_fade: 100 })).toBe(false);
  });

  it("GIVEN blue-gem minimums WHEN the item's percentages are on both sides THEN each side is checked", () => {
    const gem = listingWith({ item: { blue_gem: { playside_blue: 74.2, backside_blue: 40.1 } } });
    expect(matches({ min_playside_blue: 74.2, min_backside_blue: 40 }, gem)).toBe(true);
    expect(matches({ min_playside_blue: 75 }, gem)).toBe(false);
    expect(matches({ min_backside_blue: 41 }, gem)).toBe(false);
    expect(matches({ min_playside_blue: 0 })).toBe(false);
  });

  it("GIVEN max_float_rank 12 WHEN ranks 12 and 13 appear THEN only rank 12 matches", () => {
    expect(matches({ max_float_rank: 12 }, listingWith({ item: { low_rank: 12 } }))).toBe(true);
    expect(matches({ max_float_rank: 12 }, listingWith({ item: { low_rank: 13 } }))).toBe(false);
    expect(matches({ max_float_rank: 12 })).toBe(false);
  });
});

describe("sticker value", () => {
  const stickers = [
    { stickerId: 1, slot: 0, wear: 0.12, reference: { price: 1000 } },
    { stickerId: 2, slot: 1, reference: { price: 500 } },
    { stickerId: 3, slot: 2, wear: 0.5 },
  ];

  it("GIVEN stickers with wear, without wear and without a price WHEN valued THEN price × (1 − wear) is summed", () => {
    expect(stickerValueCents(stickers.map((s) => Sticker.parse(s)))).toBe(880 + 500);
    expect(stickerValueCents([Sticker.parse({ stickerId: 1, wear: 1, reference: { price: 999 } })])).toBe(0);
    expect(stickerValueCents(undefined)).toBeUndefined();
  });

  it("GIVEN min_sticker_value and min_sticker_pct WHEN the $13.80 of stickers on an $85 listing is checked THEN the bounds hold", () => {
    const listing = listingWith({ item: { stickers } });
    expect(matches({ min_sticker_value: 1380 }, listing)).toBe(true);
    expect(matches({ min_sticker_value: 1381 }, listing)).toBe(false);
    expect(matches({ min_sticker_pct: 16.2 }, listing)).toBe(true);
    expect(matches({ min_sticker_pct: 16.3 }, listing)).toBe(false);
  });
});

describe("deal options and their description", () => {
  it("GIVEN every deal option WHEN built THEN money is cents and percentages are kept", () => {
    const f = ruleFromOptions({
      item: NAME,
      min_profit: 12.5,
      min_profit_pct: 8,
      min_exit_profit: 0,
      fade: "95-99.5",
      blue_gem: "70/40",
      max_float_rank: 12,
      min_sticker_value: 40,
      min_sticker_pct: 10,
      min_sales_per_day: 2.5,
    });
    expect(f).toEqual({
      item: NAME,
      min_profit: 1250,
      min_profit_pct: 8,
      min_exit_profit: 0,
      min_fade: 95,
      max_fade: 99.5,
      min_playside_blue: 70,
      min_backside_blue: 40,
      max_float_rank: 12,
      min_sticker_value: 4000,
      min_sticker_pct: 10,
      min_sales_per_day: 2.5,
    });
    expect(describeFilters(f)).toBe(
      `${NAME} · net ≥ $12.50 · net ≥ 8% of price · instant exit ≥ $0.00 · fade 95%–99.5% · ` +
        "playside blue ≥ 70% · backside blue ≥ 40% · float rank ≤ #12 · stickers ≥ $40.00 · " +
        "stickers ≥ 10% of price · ≥ 2.5 sales/day",
    );
  });

  it("GIVEN a fade of '97' or a blue gem of '/40' WHEN built THEN only the given bound is set", () => {
    expect(ruleFromOptions({ fade: "97" })).toEqual({ min_fade: 97 });
    expect(ruleFromOptions({ fade: "-90" })).toEqual({ max_fade: 90 });
    expect(ruleFromOptions({ blue_gem: "/40" })).toEqual({ min_backside_blue: 40 });
  });

  it.each([
    ["fade", "abc"],
    ["fade", "99-95"],
    ["fade", "101"],
    ["blue_gem", "70/40/10"],
    ["blue_gem", "x/40"],
    ["min_profit", "-1"],
    ["min_sales_per_day", "lots"],
  ])("GIVEN %s = %j WHEN built THEN the message names %s", (option, value) => {
    const error = errorOf(() => ruleFromOptions({ item: NAME, [option]: value }));
    expect(error?.code).toBe("invalid_input");
    expect(error?.message).toContain(option);
  });

  it("GIVEN only min_sales_per_day WHEN built THEN a narrowing filter is asked for; min_profit alone narrows", () => {
    expect(errorOf(() => ruleFromOptions({ min_sales_per_day: 3 }))?.context).toEqual({
      reason: "no_narrowing_filter",
    });
    expect(ruleFromOptions({ min_profit: 5 })).toEqual({ min_profit: 500 });
  });

  it("GIVEN a tier with its seeds WHEN built THEN the name and the seeds are stored; with paint_seeds too it is refused", () => {
    expect(ruleFromOptions({ tier: "t1" }, { tierSeeds: [661, 670] })).toEqual({
      tier: "t1",
      paint_seeds: [661, 670],
    });
    expect(
      errorOf(() => ruleFromOptions({ tier: "t1", paint_seeds: "1" }, { tierSeeds: [2] }))?.message,
    ).toContain("tier");
  });

  it("GIVEN stored JSON with min_fade above max_fade, or a tier without seeds WHEN parsed THEN it is refused", () => {
    expect(RuleFilters.safeParse({ min_fade: 99, max_fade: 90 }).success).toBe(false);
    expect(RuleFilters.safeParse({ item: NAME, tier: "t1" }).success).toBe(false);
  });
});

// "Matches my rule" in the control panel: the listing it creates is one the rule's own matcher accepts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchesListing, RuleFilters } from "../../src/watch/ruleFilters.ts";
import { Listing } from "../../src/market/schemas.ts";
import { listingMatching } from "../../src/playground/ruleListing.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
  await sandbox?.close();
});

const RULES: Record<string, RuleFilters> = {
  "an item under a price cap": { item: "Falcon Rifle | Ember Tide (Field Worn)", max_price: 2000 },
  "a float window on auctions": { min_float: 0.15, max_float: 0.18, type: "auction" },
  "a discount against a well-sampled reference": { min_discount: 30, min_ref_qty: 50, max_price: 5000 },
  "statcounter items of one name": {
    item: "Statcounter Viper SMG | Night Bloom (Lightly Used)",
    category: "statcounter",
  },
  "normal items only": { category: "normal", max_price: 900 },
  "seeds, stickers at a slot and a keychain": {
    paint_seeds: [661, 670],
    stickers: [{ id: 1101, slot: 2 }, { id: 1103 }],
    keychains: [31],
  },
  "a weapon and finish by index": { def_index: 7, paint_index: 44 },
  "a fade window that nets a profit": {
    item: "Glider Knife | Molten Gradient (Pristine)",
    min_fade: 95,
    max_fade: 99,
    min_profit: 2000,
    min_profit_pct: 10,
    max_price: 30_000,
  },
  "blue gem percentages and a float rank": {
    def_index: 3,
    min_playside_blue: 70,
    min_backside_blue: 40,
    max_float_rank: 10,
  },
};

describe("matches my rule", () => {
  for (const [what, raw] of Object.entries(RULES)) {
    it(`GIVEN a rule on ${what} WHEN the panel creates its listing THEN the rule matches it`, () => {
      const filters = RuleFilters.parse(raw);
      const created = sandbox.control.createListing(listingMatching(filters));
      const listing = Listing.parse(created);
      expect(matchesListing(filters, listing)).toBe(true);
    });
  }

  it("GIVEN a rule WHEN the listing was made for a different rule THEN the rule does not match it (the check has teeth)", () => {
    const floatWindow = RuleFilters.parse(RULES["a float window on auctions"]);
    const other = Listing.parse(
      sandbox.control.createListing(listingMatching(RuleFilters.parse(RULES["normal items only"]))),
    );
    expect(matchesListing(floatWindow, other)).toBe(false);
  });
});

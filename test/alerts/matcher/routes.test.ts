// A listing name's route keeps its buckets' region offsets: it must be found again whenever a region moves, not only when a bucket is made or dropped.
import { describe, expect, it } from "vitest";
import { createMatcherIndex, linearScanMatch, type MatcherRule } from "../../../src/watch/matcher/matcher.ts";
import { listingWith } from "../fixtures.ts";

describe("matcher routes", () => {
  it("GIVEN a listing already matched (its name's region offsets remembered) WHEN rules join and leave its buckets, which moves their regions without making or dropping a bucket THEN each next listing of that name meets exactly the rules there are", () => {
    const listing = listingWith({ price: 150 });
    const item = listing.item.market_hash_name;
    const rules: MatcherRule[] = [
      { id: "1", userId: "u1", filters: { item, max_price: 200 } },
      { id: "2", userId: "u1", filters: { item: "Viper SMG | Ash Line (Worn)", max_price: 200 } },
    ];
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    const check = () =>
      expect(index.matchIds(listing).map(String).sort()).toEqual(
        linearScanMatch(rules, listing)
          .map((r) => r.id)
          .sort(),
      );
    check();
    for (let i = 3; i < 40; i++) {
      const rule: MatcherRule = { id: String(i), userId: "u2", filters: { item, max_price: 100 + 10 * i } };
      rules.push(rule);
      index.add(rule);
      check();
      if (i % 3 === 0) {
        const gone = rules.splice(rules.length - 2, 1)[0] as MatcherRule;
        index.remove(gone.id);
        check();
      }
    }
    expect(index.matchIds(listing).length).toBeGreaterThan(20);
  });
});

// Matcher index: same answers as a linear scan over random rules and listings, and add/remove/update behaviour.
import { describe, expect, it } from "vitest";
import {
  createMatcherIndex,
  linearScanMatch,
  MatchIds,
  type MatcherRule,
  type RuleRef,
} from "../../../src/watch/matcher/matcher.ts";
import { listingWith } from "../fixtures.ts";
import { FLOATS, gen, randomFilters, randomItemlessFilters, randomListing } from "./randomRules.ts";
import type { RuleFilters } from "../../../src/watch/ruleFilters.ts";

const ids = (refs: readonly RuleRef[]) => refs.map((r) => r.id).sort();

describe("matcher index equals a linear scan", () => {
  it("GIVEN 4000 random rules WHEN 1500 random listings arrive THEN the index returns exactly the linear scan's rules", () => {
    const g = gen(20250307);
    const rules: MatcherRule[] = Array.from({ length: 4000 }, (_, i) => ({
      id: `r${i}`,
      userId: `u${i % 97}`,
      filters: randomFilters(g),
    }));
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    expect(index.size).toBe(rules.length);

    let total = 0;
    let listingsWithMatches = 0;
    const keysSeenInMatches = new Set<string>();
    const byId = new Map(rules.map((r) => [r.id, r]));
    // Differences are collected and asserted once: thousands of expect() calls would dominate the run.
    const differences: Array<{ listing: string; index: string[]; linear: string[] }> = [];
    const wrongUsers: string[] = [];
    for (let n = 0; n < 1500; n++) {
      const listing = randomListing(g, n);
      const expected = ids(linearScanMatch(rules, listing));
      const actual = index.match(listing);
      const got = ids(actual);
      if (got.join() !== expected.join())
        differences.push({ listing: listing.id, index: got, linear: expected });
      for (const ref of actual) {
        const rule = byId.get(ref.id);
        if (ref.userId !== rule?.userId) wrongUsers.push(ref.id);
        for (const key of Object.keys(rule?.filters ?? {})) keysSeenInMatches.add(key);
      }
      total += expected.length;
      if (expected.length > 0) listingsWithMatches++;
    }
    expect(differences).toEqual([]);
    expect(wrongUsers).toEqual([]);
    // The comparison means something only if matches are common but not universal, and every
    // kind of filter took part in some match.
    expect(total).toBeGreaterThan(5000);
    expect(listingsWithMatches).toBeGreaterThan(500);
    expect(listingsWithMatches).toBeLessThan(1500);
    expect([...keysSeenInMatches].sort()).toEqual(
      [
        "category",
        "def_index",
        "item",
        "keychains",
        "max_fade",
        "max_float",
        "max_float_rank",
        "max_price",
        "min_backside_blue",
        "min_discount",
        "min_exit_profit",
        "min_fade",
        "min_float",
        "min_playside_blue",
        "min_profit",
        "min_profit_pct",
        "min_ref_qty",
        "min_sticker_pct",
        "min_sticker_value",
        "paint_index",
        "paint_seeds",
        "stickers",
        "type",
      ].sort(),
    );
  });

  it("GIVEN 4000 random rules of which four in five name no item WHEN 1500 random listings arrive THEN the index returns exactly the linear scan's rules", () => {
    const g = gen(20261125);
    const rules: MatcherRule[] = Array.from({ length: 4000 }, (_, i) => ({
      id: String(i + 1),
      userId: `u${i % 89}`,
      filters: g.chance(0.8) ? randomItemlessFilters(g) : randomFilters(g),
    }));
    const index = createMatcherIndex({ capacity: 100 });
    for (const rule of rules) index.add(rule);
    const byId = new Map(rules.map((r) => [r.id, r]));
    const differences: Array<{ listing: string; index: string[]; linear: string[] }> = [];
    const wrongUsers: string[] = [];
    const keysSeenInMatches = new Set<string>();
    let itemlessMatches = 0;
    for (let n = 0; n < 1500; n++) {
      const listing = randomListing(g, n);
      const expected = ids(linearScanMatch(rules, listing));
      const actual = index.match(listing);
      const got = ids(actual);
      if (got.join() !== expected.join())
        differences.push({ listing: listing.id, index: got, linear: expected });
      for (const ref of actual) {
        const rule = byId.get(ref.id);
        if (ref.userId !== rule?.userId) wrongUsers.push(ref.id);
        if (rule?.filters.item === undefined) itemlessMatches++;
        for (const key of Object.keys(rule?.filters ?? {})) keysSeenInMatches.add(key);
      }
    }
    expect(differences).toEqual([]);
    expect(wrongUsers).toEqual([]);
    // Item-less rules of every kind took part in matches, not only the named ones.
    expect(itemlessMatches).toBeGreaterThan(10_000);
    for (const key of [
      "category",
      "type",
      "def_index",
      "paint_index",
      "paint_seeds",
      "stickers",
      "keychains",
      "min_discount",
      "max_float",
      "min_float",
      "max_price",
      "min_profit_pct",
      "max_float_rank",
      "max_fade",
    ]) {
      expect(keysSeenInMatches, key).toContain(key);
    }
  });

  it("GIVEN random adds, updates and removes between matches WHEN listings arrive THEN the index still equals the linear scan", () => {
    const g = gen(77);
    const index = createMatcherIndex();
    const live = new Map<string, MatcherRule>();
    let nextId = 0;
    let compared = 0;
    const differences: Array<{ step: number; index: string[]; linear: string[] }> = [];
    const sizeErrors: number[] = [];
    for (let step = 0; step < 6000; step++) {
      const op = g.rnd();
      const existing = [...live.keys()];
      if (op < 0.4 || existing.length === 0) {
        const filters = g.chance(0.5) ? randomItemlessFilters(g) : randomFilters(g);
        // Numeric ids (as database ids are) and other strings take different paths in the index.
        const rule = {
          id: g.chance(0.5) ? String(nextId++) : `r${nextId++}`,
          userId: `u${g.int(1, 20)}`,
          filters,
        };
        index.add(rule);
        live.set(rule.id, rule);
      } else if (op < 0.55) {
        const filters = g.chance(0.5) ? randomItemlessFilters(g) : randomFilters(g);
        const rule = { id: g.pick(existing), userId: `u${g.int(1, 20)}`, filters };
        index.update(rule);
        live.set(rule.id, rule);
      } else if (op < 0.7) {
        const id = g.pick(existing);
        if (!index.remove(id)) sizeErrors.push(step);
        live.delete(id);
      } else {
        const listing = randomListing(g, step);
        const got = ids(index.match(listing));
        const expected = ids(linearScanMatch([...live.values()], listing));
        if (got.join() !== expected.join()) differences.push({ step, index: got, linear: expected });
        compared++;
      }
      if (index.size !== live.size) sizeErrors.push(step);
    }
    expect(differences).toEqual([]);
    expect(sizeErrors).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });
});

describe("matcher index maintenance", () => {
  const listing = listingWith();
  const byName: MatcherRule = {
    id: "1",
    userId: "u1",
    filters: { item: "Falcon Rifle | Ember Tide (Pristine)" },
  };

  it("GIVEN a rule WHEN it is removed THEN a matching listing no longer returns it", () => {
    const index = createMatcherIndex();
    index.add(byName);
    expect(index.match(listing).map((r) => ({ id: r.id, userId: r.userId }))).toEqual([
      { id: "1", userId: "u1" },
    ]);
    expect(index.remove("1")).toBe(true);
    expect(index.match(listing)).toEqual([]);
    expect(index.size).toBe(0);
  });

  it("GIVEN numeric and other ids, filed whole or bound-decided WHEN the feed's matchIds runs THEN numeric ids come back as numbers, others as given, and ownerOf names each owner", () => {
    const index = createMatcherIndex();
    const name = "Falcon Rifle | Ember Tide (Pristine)";
    // A price ceiling alone is decided by the scan; a reference quantity needs the full check.
    index.add({ id: "41", userId: "u1", filters: { item: name, max_price: 1_000_000 } });
    index.add({ id: "r42", userId: "u2", filters: { item: name, max_price: 1_000_000 } });
    index.add({ id: "43", userId: "u3", filters: { item: name, min_ref_qty: 0, max_price: 1_000_000 } });
    index.add({ id: "r44", userId: "u4", filters: { item: name, min_ref_qty: 0, max_price: 1_000_000 } });
    const got = index.matchIds(listing);
    expect([...got].sort()).toEqual([41, 43, "r42", "r44"]);
    expect(got.map((id) => index.ownerOf(id)).sort()).toEqual(["u1", "u2", "u3", "u4"]);
    expect(index.ownerOf("41")).toBe("u1");
    expect(index.ownerOf(7)).toBeUndefined();
    // Removing from the bound-decided part and the full part alike.
    expect(index.remove("r42")).toBe(true);
    expect(index.remove("43")).toBe(true);
    expect([...index.matchIds(listing)].sort()).toEqual([41, "r44"]);
  });

  it("GIVEN numeric ids whose packed code leaves 32 bits, and ids past 31 bits WHEN listings of each type arrive THEN each rule's kind decides it exactly as for small ids", () => {
    const index = createMatcherIndex();
    const name = "Falcon Rifle | Ember Tide (Pristine)";
    // 2^27 + 1 is past what a 32-bit code holds (id * 16 + kind): it is filed by its slot and
    // comes back as its number; 2^40 + 3 is past what is kept as a number (it comes back as its
    // string, from its slot).
    const big = [2 ** 27 + 1, 2 ** 40 + 3];
    for (const id of big) {
      index.add({ id, userId: "u1", filters: { item: name, max_price: 1_000_000, type: "auction" } });
      index.add({ id: id + 1, userId: "u2", filters: { item: name, max_price: 1_000_000 } });
    }
    index.add({ id: 5, userId: "u3", filters: { item: name, max_price: 1_000_000, type: "auction" } });
    const auction = { ...listing, type: "auction" as const };
    expect([...index.matchIds(listing)].sort((a, b) => Number(a) - Number(b))).toEqual([
      2 ** 27 + 2,
      String(2 ** 40 + 4),
    ]);
    expect([...index.matchIds(auction)].sort((a, b) => Number(a) - Number(b))).toEqual([
      5,
      2 ** 27 + 1,
      2 ** 27 + 2,
      String(2 ** 40 + 3),
      String(2 ** 40 + 4),
    ]);
    // An entry filed by its slot is found and taken out by its id.
    expect(index.remove(2 ** 27 + 2)).toBe(true);
    expect([...index.matchIds(listing)]).toEqual([String(2 ** 40 + 4)]);
  });

  it("GIVEN price ceilings at and past what a bound-decided entry holds (about $21 million) WHEN listings priced around them arrive THEN each ceiling decides exactly as the linear scan does", () => {
    const name = "Falcon Rifle | Ember Tide (Pristine)";
    const ceilings = [
      undefined,
      0,
      2_146_435_070,
      2_146_435_071,
      2_146_435_072,
      3_000_000_000,
      100_000_000_000,
    ];
    const rules: MatcherRule[] = ceilings.flatMap((max_price, i) => [
      // On the price axis, and on the discount axis (where the ceiling is checked beside it).
      {
        id: String(i),
        userId: "u1",
        filters: { item: name, ...(max_price === undefined ? {} : { max_price }) },
      },
      {
        id: String(100 + i),
        userId: "u1",
        filters: { item: name, min_discount: 1, ...(max_price === undefined ? {} : { max_price }) },
      },
    ]);
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    const prices = [
      0, 1, 2_146_435_070, 2_146_435_071, 2_146_435_072, 2_999_999_999, 3_000_000_000, 3_000_000_001, 5e10,
      1e11,
    ];
    for (const price of prices) {
      const priced = listingWith({ price, reference: { predicted_price: 2e11 } });
      const expected = linearScanMatch(rules, priced)
        .map((r) => r.id)
        .sort();
      expect(expected.length).toBeGreaterThan(0);
      expect({ price, ids: index.matchIds(priced).map(String).sort() }).toEqual({ price, ids: expected });
    }
  });

  it("GIVEN more matches than a reused MatchIds has room for, numeric and string ids mixed WHEN the feed matches listing after listing into it THEN each match reads back exactly its own rules", () => {
    const index = createMatcherIndex();
    const name = "Falcon Rifle | Ember Tide (Pristine)";
    // Bound-decided (price only) and full (reference quantity) entries, ids kept as numbers and as strings.
    for (let i = 0; i < 1500; i++) {
      const filters =
        i % 3 === 0
          ? { item: name, max_price: 1000 + i, min_ref_qty: 0 }
          : { item: name, max_price: 1000 + i };
      index.add({ id: i % 2 === 0 ? i : `r${i}`, userId: "u1", filters });
    }
    const found = new MatchIds();
    for (const price of [500, 2000, 2499, 1200, 9999]) {
      const count = index.matchInto(listingWith({ price }), found);
      const expected = Array.from({ length: 1500 }, (_, i) => i)
        .filter((i) => price <= 1000 + i)
        .map((i) => (i % 2 === 0 ? i : `r${i}`));
      expect(count).toBe(expected.length);
      expect(found.ids().map(String).sort()).toEqual(expected.map(String).sort());
    }
  });

  it("GIVEN owners given as numbers (as a load passes them) and as strings WHEN rules come and go THEN one owner is one owner, named by its string", () => {
    const index = createMatcherIndex();
    const name = "Falcon Rifle | Ember Tide (Pristine)";
    index.add({ id: 1, userId: 7, filters: { item: name, max_price: 1_000_000 } });
    index.add({ id: 2, userId: "7", filters: { item: name, max_price: 1_000_000 } });
    index.add({ id: 3, userId: "007", filters: { item: name, max_price: 1_000_000 } });
    expect([1, 2, 3].map((id) => index.ownerOf(id))).toEqual(["7", "7", "007"]);
    // The owner's first rule goes; the second still names them (their entry is counted, not dropped).
    index.remove(1);
    expect(index.ownerOf(2)).toBe("7");
    index.remove(2);
    // Owner 7 is gone: their place is reused, and 7 coming back is 7 again, not its heir.
    index.add({ id: 4, userId: 8, filters: { item: name, max_price: 1_000_000 } });
    index.add({ id: 5, userId: 7, filters: { item: name, max_price: 1_000_000 } });
    expect([3, 4, 5].map((id) => index.ownerOf(id))).toEqual(["007", "8", "7"]);
  });

  it("GIVEN an unknown id WHEN removed THEN nothing changes and false is returned", () => {
    const index = createMatcherIndex();
    index.add(byName);
    expect(index.remove("nope")).toBe(false);
    expect(index.size).toBe(1);
  });

  it("GIVEN a rule WHEN added twice with the same id THEN it is stored and returned once", () => {
    const index = createMatcherIndex();
    index.add(byName);
    index.add({ ...byName, userId: "u2" });
    expect(index.size).toBe(1);
    expect(index.match(listing).map((r) => r.userId)).toEqual(["u2"]);
  });

  it("GIVEN a rule WHEN updated to filters that do not fit THEN the listing no longer returns it", () => {
    const index = createMatcherIndex();
    index.add(byName);
    index.update({ ...byName, filters: { max_price: 100 } });
    expect(index.match(listing)).toEqual([]);
    index.update({ ...byName, filters: { stickers: [{ id: 4761, slot: 0 }] } });
    expect(ids(index.match(listing))).toEqual(["1"]);
  });

  it("GIVEN a sticker rule WHEN a listing carries that sticker twice THEN the rule is returned once", () => {
    const index = createMatcherIndex();
    index.add({ id: "s", userId: "u", filters: { stickers: [{ id: 4761 }] } });
    const twice = listingWith({
      item: {
        stickers: [
          { stickerId: 4761, slot: 0 },
          { stickerId: 4761, slot: 1 },
        ],
      },
    });
    expect(ids(index.match(twice))).toEqual(["s"]);
  });

  it("GIVEN a seed rule WHEN it lists a seed twice THEN it is returned once", () => {
    const index = createMatcherIndex();
    index.add({ id: "seed", userId: "u", filters: { paint_seeds: [661, 661] } });
    expect(ids(index.match(listing))).toEqual(["seed"]);
  });

  it("GIVEN matching rules WHEN the listing is sold THEN nothing is returned", () => {
    const index = createMatcherIndex();
    index.add(byName);
    index.add({ id: "2", userId: "u", filters: { max_price: 10_000 } });
    expect(index.match(listingWith({ state: "sold" }))).toEqual([]);
    expect(ids(index.match(listing))).toEqual(["1", "2"]);
  });

  it("GIVEN rules added after a match WHEN the next listing arrives THEN the new rules are found", () => {
    const index = createMatcherIndex();
    index.add({
      id: "a",
      userId: "u",
      filters: { item: "falcon rifle | ember tide (pristine)", max_price: 9000 },
    });
    expect(ids(index.match(listing))).toEqual(["a"]);
    index.add({
      id: "b",
      userId: "u",
      filters: { item: "FALCON RIFLE | EMBER TIDE (PRISTINE)", max_price: 20_000 },
    });
    index.add({
      id: "c",
      userId: "u",
      filters: { item: "Falcon Rifle | Ember Tide (Pristine)", max_price: 100 },
    });
    expect(ids(index.match(listing))).toEqual(["a", "b"]);
  });

  it("GIVEN a listing already matched (its name's buckets remembered) WHEN rules under its def, paint, def+paint or name come and go THEN the next listing of that name meets exactly the rules there are", () => {
    const index = createMatcherIndex();
    // The listing's def is 7, its paint 282; a rule elsewhere keeps the index from being empty.
    index.add({ id: "other", userId: "u", filters: { def_index: 8, max_price: 9000 } });
    expect(ids(index.match(listing))).toEqual([]);
    const keyed: MatcherRule[] = [
      { id: "def", userId: "u", filters: { def_index: 7, max_price: 9000 } },
      { id: "paint", userId: "u", filters: { paint_index: 282, max_price: 9000 } },
      { id: "skin", userId: "u", filters: { def_index: 7, paint_index: 282, max_price: 9000 } },
      { id: "name", userId: "u", filters: { item: "Falcon Rifle | Ember Tide (Pristine)", max_price: 9000 } },
    ];
    const live: string[] = [];
    for (const rule of keyed) {
      index.add(rule);
      live.push(String(rule.id));
      expect(ids(index.match(listing))).toEqual([...live].sort());
    }
    for (const rule of keyed) {
      index.remove(rule.id);
      live.shift();
      expect(ids(index.match(listing))).toEqual([...live].sort());
    }
  });

  it("GIVEN long seed lists in every kind of seed bucket WHEN listings carry seeds in, between, below and above them, or none THEN the index equals the linear scan", () => {
    // Enough seed rules that each seed list (an item's, a weapon's, a weapon and skin's, the
    // item-less one; bound-decided and fully checked parts) is long enough to get a directory,
    // with seeds bunched and spread, rules listing the same seed more than once, and type and
    // category filters on some.
    const g = gen(0x5eed);
    const rules: MatcherRule[] = [];
    const seedsOf = () =>
      Array.from({ length: g.int(1, 4) }, () => (g.chance(0.3) ? g.int(655, 665) : g.int(0, 1000)));
    for (let i = 0; i < 800; i++) {
      const f: RuleFilters = { paint_seeds: seedsOf() };
      const home = i % 4;
      if (home === 0) f.item = "falcon rifle | ember tide (pristine)";
      if (home === 1) f.def_index = 7;
      // A pattern hunt on one skin; some on another skin of the same weapon, which must not match.
      if (home === 3) Object.assign(f, { def_index: 7, paint_index: g.chance(0.8) ? 282 : 283 });
      if (g.chance(0.5)) f.max_price = g.int(1, 20_000);
      if (g.chance(0.3)) f.max_float = g.pick(FLOATS);
      if (g.chance(0.2)) f.type = g.pick(["buy_now", "auction"]);
      if (g.chance(0.2)) f.category = g.pick(["normal", "statcounter", "souvenir"]);
      // Fully checked: a sticker the bucket's key does not decide.
      if (g.chance(0.25)) f.stickers = [{ id: 4761, ...(g.chance(0.5) ? { slot: g.int(0, 1) } : {}) }];
      rules.push({ id: String(i + 1), userId: `u${i % 7}`, filters: f });
    }
    const index = createMatcherIndex();
    for (const rule of rules) index.add(rule);
    const seeds = [-1, 0, 1, 400, 654, 655, 660, 661, 665, 666, 999, 1000, 1001, 5000, null];
    let compared = 0;
    for (const paint_seed of seeds)
      for (const type of ["buy_now", "auction"] as const)
        for (const is_statcounter of [false, true]) {
          const listing = listingWith({
            type,
            price: g.int(1, 20_000),
            item: { paint_seed, is_statcounter, float_value: g.pick(FLOATS) },
          });
          expect(ids(index.match(listing))).toEqual(ids(linearScanMatch(rules, listing)));
          compared += index.match(listing).length;
        }
    // The comparison is not vacuous: listings do meet seed rules.
    expect(compared).toBeGreaterThan(20);
  });

  it("GIVEN a rule added with a numeric id WHEN it is updated and removed by its decimal string THEN it is one rule throughout", () => {
    const index = createMatcherIndex();
    index.add({ id: 41, userId: "u", filters: { max_price: 100_000 } });
    index.update({ id: "41", userId: "u", filters: { max_price: 1 } });
    expect(index.size).toBe(1);
    expect(index.match(listing)).toEqual([]);
    index.update({ id: 41, userId: "u", filters: { max_price: 100_000 } });
    expect(ids(index.match(listing))).toEqual(["41"]);
    expect(index.ownerOf("41")).toBe("u");
    expect(index.remove("41")).toBe(true);
    expect(index.size).toBe(0);
    // Not canonical (a leading zero): a different id, kept as the string it is.
    index.add({ id: "041", userId: "v", filters: { max_price: 100_000 } });
    expect(index.remove(41)).toBe(false);
    expect(ids(index.match(listing))).toEqual(["041"]);
  });
});

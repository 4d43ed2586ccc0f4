// The fast check of stored rule JSON: whatever it accepts, the RuleFilters schema accepts as the same value.
import { describe, expect, it } from "vitest";
import { RuleFilters } from "../../../src/watch/ruleFilters.ts";
import { storedFiltersFast } from "../../../src/watch/storedFilters.ts";
import { seededRandom } from "../../../src/util/rng.ts";

/** Values near every bound the schema has, and some of the wrong type. */
function randomValue(rnd: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  return pick<unknown>([
    0,
    -0,
    1,
    -1,
    0.5,
    1.0000001,
    5,
    99.9,
    100,
    100.5,
    6,
    1001,
    100_000,
    100_001,
    2_147_483_647,
    2_147_483_648,
    1_000_000_000,
    1_000_000_001,
    100_000_000_000,
    100_000_000_001,
    "x",
    "",
    " Falcon Rifle ",
    "Falcon Rifle | Ember Tide (Pristine)",
    "a".repeat(128),
    "a".repeat(129),
    "buy_now",
    "auction",
    "any",
    "normal",
    "statcounter",
    "souvenir",
    null,
    true,
    [],
    [1],
    [0, 5, 100_000],
    [1.5],
    Array.from({ length: 101 }, (_, i) => i),
    [1, 2, 3, 4, 5],
    [{ id: 1 }],
    [{ id: 1, slot: 5 }],
    [{ id: 1, slot: 6 }],
    [{ slot: 1 }],
    [{ id: 1, wear: 0 }],
    [{}],
    Array.from({ length: 7 }, () => ({ id: 1 })),
    {},
  ]);
}

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

const KEYS = [
  "item",
  "def_index",
  "paint_index",
  "paint_seeds",
  "min_float",
  "max_float",
  "max_price",
  "min_discount",
  "min_ref_qty",
  "type",
  "category",
  "stickers",
  "keychains",
  "min_profit",
  "tier",
  "unknown_filter",
];

describe("stored filters fast check", () => {
  it("GIVEN random stored JSON near every bound WHEN the fast check accepts it THEN the schema accepts the same value", () => {
    const rnd = seededRandom(424242);
    const disagreements: Array<{ input: unknown; schema: unknown }> = [];
    let accepted = 0;
    let schemaValid = 0;
    for (let n = 0; n < 20_000; n++) {
      const input: Record<string, unknown> = {};
      for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
        input[KEYS[Math.floor(rnd() * KEYS.length)] as string] = randomValue(rnd);
      }
      // Through JSON, as the column hands it over.
      const stored: unknown = JSON.parse(JSON.stringify(input));
      const schema = RuleFilters.safeParse(stored);
      if (schema.success) schemaValid++;
      const fast = storedFiltersFast(stored);
      if (fast === undefined) continue;
      accepted++;
      if (!schema.success || canonical(schema.data) !== canonical(fast))
        disagreements.push({ input: stored, schema: schema.success ? schema.data : schema.error.issues });
    }
    expect(disagreements).toEqual([]);
    // The comparison means something only if the fast check accepts most of what the schema does.
    expect(schemaValid).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(schemaValid / 2);
  });

  it("GIVEN filters the fast check does not know WHEN checked THEN it leaves them to the schema", () => {
    expect(storedFiltersFast({ item: "x", min_profit: 100 })).toBeUndefined();
    expect(storedFiltersFast({ item: " padded " })).toBeUndefined();
    expect(storedFiltersFast({ type: "auction" })).toBeUndefined();
    expect(storedFiltersFast({ min_float: 0.5, max_float: 0.1 })).toBeUndefined();
    expect(storedFiltersFast([{ item: "x" }])).toBeUndefined();
  });

  it("GIVEN the common shape WHEN checked THEN the value itself comes back", () => {
    const stored = { item: "Falcon Rifle | Ember Tide (Pristine)", max_price: 900, min_discount: 12.5 };
    expect(storedFiltersFast(stored)).toBe(stored);
  });
});

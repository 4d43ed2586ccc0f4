import { describe, expect, it } from "vitest";
import { Arena, EMPTY_AT, type ArenaTenant } from "../../../src/watch/matcher/arena.ts";

const tenant = (): ArenaTenant => ({ at: EMPTY_AT, length: 0 });
const region = (arena: Arena, t: ArenaTenant) => Array.from(arena.data.subarray(t.at, t.at + t.length));
const filled = (n: number, from: number) => Float64Array.from({ length: n }, (_, i) => from + i);

describe("matcher arena", () => {
  it("GIVEN regions placed, replaced and freed past the array's size WHEN it grows and compacts THEN every live region reads back what was placed and offset 0 stays an empty header", () => {
    const arena = new Arena(0);
    const tenants = Array.from({ length: 40 }, tenant);
    const expected = new Map<ArenaTenant, number[]>();
    let seed = 0;
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < tenants.length; i++) {
        const t = tenants[i] as ArenaTenant;
        // Some tenants grow, some are freed, others stay: garbage piles up and forces compactions.
        if ((i + round) % 7 === 0) {
          arena.free(t);
          expected.delete(t);
        } else if ((i * round) % 3 === 0) {
          const d = filled(1 + ((i * 13 + round * 5) % 97), (seed += 1000));
          arena.place(t, d);
          expected.set(t, Array.from(d));
        }
      }
      for (const t of tenants) {
        if (expected.has(t)) expect(region(arena, t)).toEqual(expected.get(t));
        else expect([t.at, t.length]).toEqual([EMPTY_AT, 0]);
      }
      expect(arena.data[EMPTY_AT]).toBe(0);
    }
    const live = [...expected.values()].reduce((sum, d) => sum + d.length, 0);
    expect(arena.usage.live).toBe(live);
    // Disjoint regions: no two live tenants overlap.
    const spans = [...expected.keys()]
      .map((t) => [t.at, t.at + t.length] as const)
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    expect(spans[0]![0]).toBeGreaterThan(EMPTY_AT);
  });

  it("GIVEN an arena with much more room than its live regions WHEN trimmed THEN it shrinks to them and their contents stay", () => {
    const arena = new Arena(100_000);
    const a = tenant();
    const b = tenant();
    arena.place(a, filled(10, 1));
    arena.place(b, filled(5, 100));
    arena.free(a);
    arena.trim();
    expect(arena.usage).toEqual({ live: 5, capacity: 6 });
    expect(region(arena, b)).toEqual([100, 101, 102, 103, 104]);
  });
});

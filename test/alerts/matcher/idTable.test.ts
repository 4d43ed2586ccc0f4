import { describe, expect, it } from "vitest";
import { IdTable } from "../../../src/watch/matcher/idTable.ts";
import { seededRandom } from "../../../src/util/rng.ts";

describe("matcher id table", () => {
  it("GIVEN random sets and deletes of small, large, negative and fractional ids WHEN read back THEN it answers exactly as a Map, size included", () => {
    const rnd = seededRandom(7);
    const table = new IdTable<string>();
    const map = new Map<number, string>();
    const ids = [0, 1, 5, 4095, 65_535, 65_536, 1e9, -1, -65_536, 2.5, 70_000.25];
    for (let step = 0; step < 4000; step++) {
      const id = rnd() < 0.3 ? (ids[Math.floor(rnd() * ids.length)] as number) : Math.floor(rnd() * 3000);
      if (rnd() < 0.6) {
        table.set(id, `v${step}`);
        map.set(id, `v${step}`);
      } else expect(table.delete(id)).toBe(map.delete(id));
      expect(table.size).toBe(map.size);
    }
    for (const id of [...ids, ...Array.from({ length: 3000 }, (_, i) => i), NaN])
      expect(table.get(id)).toBe(map.get(id));
  });
});

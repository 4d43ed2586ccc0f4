// Sales per day for min_sales_per_day: the 7-day window, one history read per item per hour, unreadable history.
import { describe, expect, it } from "vitest";
import { createSalesRate, salesPerDay } from "../../../src/feed/salesRate.ts";
import { createLogger } from "../../../src/log.ts";
import type { HistoryPoint } from "../../../src/market/schemas.ts";

const NOW = new Date("2026-11-25T18:00:00.000Z");
const point = (day: string, count: number): HistoryPoint => ({ day, count, avg_price: 1000 });

/** A logger whose lines land in `lines` (pino writes one JSON object per line). */
function capturingLogger(lines: Array<Record<string, unknown>>) {
  return createLogger(
    { level: "debug" },
    { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Record<string, unknown>) },
  );
}

describe("salesPerDay", () => {
  it("GIVEN points inside and outside the last 7 days WHEN averaged THEN only the window counts, over 7 days", () => {
    const points = [
      point("2026-11-25", 4), // today
      point("2026-11-19", 3), // the 7th day back, included
      point("2026-11-18", 100), // the 8th: outside
      point("2026-11-26", 50), // tomorrow: not yet
    ];
    expect(salesPerDay(points, NOW)).toBe(1);
  });

  it("GIVEN no points WHEN averaged THEN zero", () => {
    expect(salesPerDay([], NOW)).toBe(0);
  });
});

describe("createSalesRate", () => {
  it("GIVEN two asks for one item within the hour WHEN answered THEN the history is read once; after the hour, again", async () => {
    let now = NOW;
    const reads: string[] = [];
    const rate = createSalesRate({
      readGraph: async (name) => {
        reads.push(name);
        return [point("2026-11-25", 14)];
      },
      logger: createLogger({ level: "silent" }),
      now: () => now,
    });
    const [a, b] = await Promise.all([rate.perDay("A"), rate.perDay("A")]);
    expect([a, b]).toEqual([2, 2]);
    expect(await rate.perDay("B")).toBe(2);
    now = new Date(NOW.getTime() + 59 * 60_000);
    await rate.perDay("A");
    expect(reads).toEqual(["A", "B"]);
    now = new Date(NOW.getTime() + 60 * 60_000);
    await rate.perDay("A");
    expect(reads).toEqual(["A", "B", "A"]);
  });

  it("GIVEN an unreadable history WHEN asked twice in the hour THEN undefined, one read and one debug line", async () => {
    const lines: Array<Record<string, unknown>> = [];
    let reads = 0;
    const rate = createSalesRate({
      readGraph: async () => {
        reads++;
        throw new Error("503 from the marketplace");
      },
      logger: capturingLogger(lines),
      now: () => NOW,
    });
    expect(await rate.perDay("A")).toBeUndefined();
    expect(await rate.perDay("A")).toBeUndefined();
    expect(reads).toBe(1);
    const unreadable = lines.filter((l) => String(l["msg"]).includes("price history unreadable"));
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatchObject({ level: 20, itemName: "A" });
  });
});

// The P&L method on hand-made ledgers: FIFO cost per item, fees, refunds, reversals dated on their
// own day, hold releases ignored, and the reversal window /trades falls back to.
import { describe, expect, it } from "vitest";
import { feeModel } from "../../src/market/fees.ts";
import { Trade, Transaction } from "../../src/market/schemas.ts";
import { buildBook } from "../../src/portfolio/book.ts";
import { isReversal, toLedgerEntry, type LedgerEntry } from "../../src/portfolio/ledgerEntry.ts";
import { positionsOf, summarize } from "../../src/portfolio/summary.ts";
import { reversalWindowEnd, toTradeView } from "../../src/trading/views.ts";

const DAY = 86_400_000;
const NOW = new Date("2026-11-25T12:00:00Z");
let seq = 100;

function entry(
  type: string,
  daysAgo: number,
  balance: number,
  pending: number,
  details: Record<string, string> = {},
): LedgerEntry {
  seq += 1;
  // Parsed as the market client parses answers: details arrive as numeric strings.
  return toLedgerEntry(
    Transaction.parse({
      id: String(seq),
      type,
      created_at: new Date(NOW.getTime() - daysAgo * DAY).toISOString(),
      balance_offset: balance,
      pending_offset: pending,
      details,
    }),
  );
}

const NAMES: Record<string, string> = {
  "1": "Rifle",
  "2": "Rifle",
  "3": "Rifle",
  "4": "Pistol",
  "5": "Pistol",
};
const itemOf = (id: string) => NAMES[id] ?? `listing ${id}`;

describe("P&L book", () => {
  it("GIVEN two purchases of an item at different costs WHEN one unit sells THEN the oldest cost is matched (FIFO)", () => {
    const book = buildBook(
      [
        entry("contract_purchased", 10, -1000, 0, { contract_id: "1" }),
        entry("contract_purchased", 9, -1400, 0, { contract_id: "2" }),
        entry("contract_sold", 2, 0, 1470, { contract_id: "3", fee_amount: "30.00" }),
        entry("trade_verified", 1, 1470, -1470, { contract_id: "3", trade_id: "9" }),
      ],
      itemOf,
    );
    const all = summarize(book, { period: "all", now: NOW });
    expect(all.pnlCents).toBe(470);
    expect(all.feesCents).toBe(30);
    expect(book.open.map((l) => l.costCents)).toEqual([1400]);
    const positions = positionsOf(book, { references: new Map([["Rifle", 1500]]), fees: feeModel(200) });
    expect(positions).toEqual([
      expect.objectContaining({
        item: "Rifle",
        quantity: 1,
        costCents: 1400,
        valueCents: 1470,
        unrealisedCents: 70,
      }),
    ]);
  });

  it("GIVEN a sale reversed a week later WHEN summarised by period THEN the sale's period keeps its profit and the reversal's period takes the loss", () => {
    const book = buildBook(
      [
        entry("contract_purchased", 20, -500, 0, { contract_id: "4" }),
        entry("contract_sold", 15, 0, 900, { contract_id: "5" }),
        entry("trade_verified", 14, 900, -900, { contract_id: "5", trade_id: "7" }),
        entry("rollback", 3, -900, 0, { contract_id: "5", trade_id: "7" }),
      ],
      itemOf,
    );
    expect(summarize(book, { period: "all", now: NOW }).pnlCents).toBe(0);
    expect(summarize(book, { period: "7d", now: NOW }).pnlCents).toBe(-400);
    expect(summarize(book, { period: "7d", now: NOW }).reversals).toBe(1);
    expect(book.open.map((l) => l.item)).toEqual(["Pistol"]);
  });

  it("GIVEN a refunded purchase, a fine and a released bid hold WHEN summarised THEN only the fine is P&L and nothing is held", () => {
    const hold = entry("rollback", 1, 300, -300, { contract_id: "77", reason: "outbid" });
    expect(isReversal(hold)).toBe(false);
    const book = buildBook(
      [
        entry("contract_purchased", 5, -800, 0, { contract_id: "1" }),
        entry("contract_purchase_refund", 4, 800, 0, { contract_id: "1", trade_id: "8" }),
        entry("fine", 2, -150, 0, { reason: "late transfer" }),
        entry("bid_posted", 2, -300, 300, { contract_id: "77" }),
        hold,
        entry("deposit", 30, 5000, 0),
      ],
      itemOf,
    );
    const all = summarize(book, { period: "all", now: NOW });
    expect(all.pnlCents).toBe(-150);
    expect(all.spentCents).toBe(0);
    expect(book.open).toEqual([]);
  });

  it("GIVEN a sale of an item never bought WHEN summarised THEN it is counted apart, not as profit", () => {
    const book = buildBook([entry("contract_sold", 0, 0, 2000, { contract_id: "99" })], itemOf);
    const s = summarize(book, { period: "today", now: NOW });
    expect(s.pnlCents).toBe(0);
    expect(s.unknownCostSales).toBe(1);
    expect(s.unknownCostCents).toBe(2000);
  });
});

describe("reversal window", () => {
  const verified = { id: "5", state: "verified", verified_at: "2026-11-20T00:00:00Z" };

  it("GIVEN a verified trade without trade_protection_ends_at WHEN asked THEN verification plus the configured window", () => {
    expect(reversalWindowEnd(toTradeView(Trade.parse(verified)), 7 * DAY)?.toISOString()).toBe(
      "2026-11-27T00:00:00.000Z",
    );
  });

  it("GIVEN the trade's own trade_protection_ends_at WHEN asked THEN that wins; a pending trade has none", () => {
    const own = { ...verified, trade_protection_ends_at: "2026-11-22T06:00:00Z" };
    expect(reversalWindowEnd(toTradeView(Trade.parse(own)), 7 * DAY)?.toISOString()).toBe(
      "2026-11-22T06:00:00.000Z",
    );
    expect(
      reversalWindowEnd(toTradeView(Trade.parse({ ...verified, state: "pending" })), 7 * DAY),
    ).toBeUndefined();
  });
});

// Money parsing and formatting: users type dollars, the bot keeps integer cents.
import { describe, expect, it } from "vitest";
import { MAX_CENTS, discountPercent, formatCents, parseDollars } from "../src/money.ts";

describe("parseDollars", () => {
  it.each([
    ["12.5", 1250],
    ["12.50", 1250],
    ["$3", 300],
    ["1,234.56", 123456],
    ["0.03", 3],
    [" 7 ", 700],
    ["$ 4.05", 405],
    ["1,000,000", 100_000_000],
    ["$1,000,000,000", MAX_CENTS],
  ])("GIVEN %j WHEN parsed THEN it is %i cents", (input, cents) => {
    expect(parseDollars(input)).toBe(cents);
  });

  it.each([
    "abc",
    "-1",
    "1e999",
    "1.234",
    "",
    " ",
    "12.",
    ".5",
    "1,2345",
    "1234,567",
    ",123",
    "12,34",
    "$$3",
    "3$",
    "1 000",
    "1000000001",
    "99999999999999999999999",
  ])("GIVEN %j WHEN parsed THEN it is rejected", (input) => {
    expect(parseDollars(input)).toBeUndefined();
  });

  it("GIVEN numbers from a Discord Number option WHEN parsed THEN floats round to exact cents only", () => {
    expect(parseDollars(12.5)).toBe(1250);
    expect(parseDollars(0.1 + 0.2)).toBe(30);
    expect(parseDollars(1.234)).toBeUndefined();
    expect(parseDollars(-1)).toBeUndefined();
    expect(parseDollars(Number.NaN)).toBeUndefined();
    expect(parseDollars(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseDollars(1e21)).toBeUndefined();
  });
});

describe("formatCents", () => {
  it("GIVEN 1250 cents WHEN formatted THEN it reads $12.50", () => {
    expect(formatCents(1250)).toBe("$12.50");
  });

  it("GIVEN large, small and signed amounts WHEN formatted THEN dollars are grouped and cents padded", () => {
    expect(formatCents(123456)).toBe("$1,234.56");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(-250)).toBe("-$2.50");
    expect(formatCents(250, { sign: true })).toBe("+$2.50");
  });

  it("GIVEN any typed amount WHEN parsed and formatted THEN the round trip keeps the value", () => {
    for (const cents of [0, 3, 99, 100, 1250, 123456, MAX_CENTS]) {
      expect(parseDollars(formatCents(cents))).toBe(cents);
    }
  });
});

describe("discountPercent", () => {
  it("GIVEN a price below its reference WHEN compared THEN the discount is positive", () => {
    expect(discountPercent(900, 1000)).toBeCloseTo(10);
    expect(discountPercent(1100, 1000)).toBeCloseTo(-10);
    expect(discountPercent(900, undefined)).toBeUndefined();
    expect(discountPercent(900, 0)).toBeUndefined();
  });
});

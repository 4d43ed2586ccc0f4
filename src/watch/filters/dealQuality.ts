// Deal-quality filters (profit after fees, instant exit, fade, blue gem, float rank, sticker value, liquidity): each a bound on a deal fact (deal.ts).
import { z } from "zod";
import { invalidOption } from "../../errors.ts";
import { formatCents, MAX_CENTS } from "../../money.ts";
import { parseIntOption, parsePrice, parseRange, type RawOption } from "../../input/parse.ts";
import { defineFilter, given, keepsMaximum, keepsMinimum, type ListingSample } from "./filter.ts";

/** A percent of the price can pass 100 (a $1 skin with $40 of stickers is 4000%). */
const MAX_PRICE_PERCENT = 100_000;
const MAX_RANK = 1_000_000;
const MAX_SALES_PER_DAY = 100_000;

// Money in cents, percentages as numbers (15 = 15%).
const CentsBound = z.number().int().min(0).max(MAX_CENTS);
const Percent = z.number().min(0).max(100);
const PricePercent = z.number().min(0).max(MAX_PRICE_PERCENT);

function decimalIn(option: string, raw: RawOption, min: number, max: number, example: string): number {
  const text = typeof raw === "string" ? raw.trim().replace(/\s*%$/, "") : raw;
  const value = typeof text === "number" ? text : /^\+?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value)) throw invalidOption(option, `enter a number, e.g. ${example}`);
  if (value < min || value > max) throw invalidOption(option, `must be between ${min} and ${max}`);
  return value === 0 ? 0 : value;
}

const percent = (option: string, raw: RawOption) => decimalIn(option, raw, 0, 100, "97.5");
const pct = (v: number) => `${v}%`;

/** Fee margin for profit samples: references are set as if the seller fee were 10%. */
const FEE_SLACK = 0.9;

/** A reference high enough that reselling at it clears `profit` cents after the fee. */
function sampleProfit(t: ListingSample, profit: number): void {
  const resale = Math.ceil((t.price + profit + 100) / FEE_SLACK);
  t.reference_price = Math.max(t.reference_price ?? 0, resale);
}

export const minProfit = defineFilter({
  name: "min_profit",
  group: "deal",
  /** Net resale (sale at the reference, after the seller fee) at least this, cents. */
  stored: { min_profit: CentsBound.optional() },
  narrowing: ["min_profit"],
  options: [
    {
      name: "min_profit",
      description: "Net profit reselling at the reference, after the seller fee, at least (USD)",
      type: "number",
      min_value: 0,
    },
  ],
  parse: (o) =>
    given(o["min_profit"])
      ? { min_profit: parsePrice("min_profit", o["min_profit"], { allowZero: true }) }
      : {},
  describe(f, parts) {
    if (f.min_profit !== undefined) parts.push(`net ≥ ${formatCents(f.min_profit)}`);
  },
  deal: [{ key: "min_profit", max: false, fact: "netResaleCents", axisRank: 2 }],
  narrows: keepsMinimum("min_profit"),
  sample(f, t) {
    if (f.min_profit !== undefined) sampleProfit(t, f.min_profit);
  },
});

export const minProfitPct = defineFilter({
  name: "min_profit_pct",
  group: "deal",
  /** Net resale as a percent of the price, at least. */
  stored: { min_profit_pct: PricePercent.optional() },
  narrowing: ["min_profit_pct"],
  options: [
    {
      name: "min_profit_pct",
      description: "Net profit reselling at the reference, as % of the price, at least",
      type: "number",
      min_value: 0,
      max_value: 100_000,
    },
  ],
  parse: (o) =>
    given(o["min_profit_pct"])
      ? { min_profit_pct: decimalIn("min_profit_pct", o["min_profit_pct"], 0, MAX_PRICE_PERCENT, "10") }
      : {},
  describe(f, parts) {
    if (f.min_profit_pct !== undefined) parts.push(`net ≥ ${pct(f.min_profit_pct)} of price`);
  },
  // "40% net profit" is met by deals only: the first axis among the deal bounds.
  deal: [{ key: "min_profit_pct", max: false, fact: "netResalePercent", axisRank: 0 }],
  narrows: keepsMinimum("min_profit_pct"),
  sample(f, t) {
    if (f.min_profit_pct !== undefined) sampleProfit(t, (t.price * f.min_profit_pct) / 100);
  },
});

export const minExitProfit = defineFilter({
  name: "min_exit_profit",
  group: "deal",
  /** Instant exit (sale to the highest buy order, after the fee) at least this, cents. */
  stored: { min_exit_profit: CentsBound.optional() },
  narrowing: ["min_exit_profit"],
  options: [
    {
      name: "min_exit_profit",
      description: "Profit selling at once to the best buy order, after the fee, at least (USD)",
      type: "number",
      min_value: 0,
    },
  ],
  parse: (o) =>
    given(o["min_exit_profit"])
      ? { min_exit_profit: parsePrice("min_exit_profit", o["min_exit_profit"], { allowZero: true }) }
      : {},
  describe(f, parts) {
    if (f.min_exit_profit !== undefined) parts.push(`instant exit ≥ ${formatCents(f.min_exit_profit)}`);
  },
  deal: [{ key: "min_exit_profit", max: false, fact: "exitCents", axisRank: 3 }],
  narrows: keepsMinimum("min_exit_profit"),
  // No sample: the exit depends on other users' buy orders, which one listing cannot set.
});

/**
 * Fade as one option: "95-100" (a range), "97" (at least). Discord allows 25 options per
 * subcommand, so the two bounds share one.
 */
function parseFadeRange(raw: RawOption): { min: number | undefined; max: number | undefined } {
  const text = String(raw).trim();
  const range = /^([^-]*)-([^-]*)$/.exec(text);
  const min = range ? range[1]?.trim() || undefined : text;
  const max = range ? range[2]?.trim() || undefined : undefined;
  if (min === undefined && max === undefined) throw invalidOption("fade", 'enter a range such as "95-100"');
  const lo = min === undefined ? undefined : percent("fade", min);
  const hi = max === undefined ? undefined : percent("fade", max);
  return parseRange("fade", lo, "the fade maximum", hi, (v) => `${v}%`);
}

export const fade = defineFilter({
  name: "fade",
  group: "deal",
  stored: { min_fade: Percent.optional(), max_fade: Percent.optional() },
  narrowing: ["min_fade", "max_fade"],
  options: [
    {
      name: "fade",
      description: 'Fade %: a range "95-100", or "97" for at least 97',
      type: "string",
      max_length: 20,
    },
  ],
  replaces: { fade: ["min_fade", "max_fade"] },
  refine: [
    {
      check: (f) => f.min_fade === undefined || f.max_fade === undefined || f.min_fade <= f.max_fade,
      message: "min_fade must not be above max_fade",
      path: ["min_fade"],
    },
  ],
  parse(o) {
    let min = given(o["min_fade"]) ? percent("min_fade", o["min_fade"]) : undefined;
    let max = given(o["max_fade"]) ? percent("max_fade", o["max_fade"]) : undefined;
    if (given(o["fade"])) ({ min, max } = parseFadeRange(o["fade"]));
    parseRange("min_fade", min, "max_fade", max);
    return {
      ...(min === undefined ? {} : { min_fade: min }),
      ...(max === undefined ? {} : { max_fade: max }),
    };
  },
  describe(f, parts) {
    if (f.min_fade !== undefined && f.max_fade !== undefined)
      parts.push(`fade ${pct(f.min_fade)}–${pct(f.max_fade)}`);
    else if (f.min_fade !== undefined) parts.push(`fade ≥ ${pct(f.min_fade)}`);
    else if (f.max_fade !== undefined) parts.push(`fade ≤ ${pct(f.max_fade)}`);
  },
  deal: [
    { key: "min_fade", max: false, fact: "fadePercent", axisRank: 6 },
    { key: "max_fade", max: true, fact: "fadePercent", axisRank: 7 },
  ],
  narrows: (before, after) =>
    keepsMinimum("min_fade")(before, after) && keepsMaximum("max_fade")(before, after),
  sample(f, t) {
    if (f.min_fade === undefined && f.max_fade === undefined) return;
    const low = f.min_fade ?? 80;
    const high = f.max_fade ?? 100;
    t.fade = { percentage: Number(((low + high) / 2).toFixed(1)), rank: 3 };
  },
});

/**
 * Blue gem as one option: "70/40" (playside at least 70%, backside at least 40%), "70" (playside
 * only), "/40" (backside only).
 */
function parseBlueGem(raw: RawOption): { playside: number | undefined; backside: number | undefined } {
  const [front = "", back = "", ...rest] = String(raw).split("/");
  if (rest.length > 0 || (front.trim() === "" && back.trim() === "")) {
    throw invalidOption("blue_gem", 'enter playside/backside blue percentages, e.g. "70/40" or "/40"');
  }
  return {
    playside: front.trim() === "" ? undefined : percent("blue_gem", front),
    backside: back.trim() === "" ? undefined : percent("blue_gem", back),
  };
}

export const blueGem = defineFilter({
  name: "blue_gem",
  group: "deal",
  stored: { min_playside_blue: Percent.optional(), min_backside_blue: Percent.optional() },
  narrowing: ["min_playside_blue", "min_backside_blue"],
  options: [
    {
      name: "blue_gem",
      description: 'Least blue %, playside/backside: "70/40", "70" or "/40"',
      type: "string",
      max_length: 20,
    },
  ],
  replaces: { blue_gem: ["min_playside_blue", "min_backside_blue"] },
  parse(o) {
    let playside = given(o["min_playside_blue"])
      ? percent("min_playside_blue", o["min_playside_blue"])
      : undefined;
    let backside = given(o["min_backside_blue"])
      ? percent("min_backside_blue", o["min_backside_blue"])
      : undefined;
    if (given(o["blue_gem"])) ({ playside, backside } = parseBlueGem(o["blue_gem"]));
    return {
      ...(playside === undefined ? {} : { min_playside_blue: playside }),
      ...(backside === undefined ? {} : { min_backside_blue: backside }),
    };
  },
  describe(f, parts) {
    if (f.min_playside_blue !== undefined) parts.push(`playside blue ≥ ${pct(f.min_playside_blue)}`);
    if (f.min_backside_blue !== undefined) parts.push(`backside blue ≥ ${pct(f.min_backside_blue)}`);
  },
  deal: [
    { key: "min_playside_blue", max: false, fact: "playsideBlue", axisRank: 8 },
    { key: "min_backside_blue", max: false, fact: "backsideBlue", axisRank: 9 },
  ],
  narrows: (before, after) =>
    keepsMinimum("min_playside_blue")(before, after) && keepsMinimum("min_backside_blue")(before, after),
  sample(f, t) {
    if (f.min_playside_blue === undefined && f.min_backside_blue === undefined) return;
    t.blue_gem = {
      playside_blue: Math.min(100, (f.min_playside_blue ?? 50) + 5),
      backside_blue: Math.min(100, (f.min_backside_blue ?? 30) + 5),
    };
  },
});

export const maxFloatRank = defineFilter({
  name: "max_float_rank",
  group: "deal",
  /** item.low_rank at most this: rank 1 is the lowest float of its kind. */
  stored: { max_float_rank: z.number().int().min(1).max(MAX_RANK).optional() },
  narrowing: ["max_float_rank"],
  options: [
    {
      name: "max_float_rank",
      description: "Float rank at most this (1 = the lowest float of its kind)",
      type: "integer",
      min_value: 1,
      max_value: 1_000_000,
    },
  ],
  parse: (o) =>
    given(o["max_float_rank"])
      ? { max_float_rank: parseIntOption("max_float_rank", o["max_float_rank"], 1, MAX_RANK) }
      : {},
  describe(f, parts) {
    if (f.max_float_rank !== undefined) parts.push(`float rank ≤ #${f.max_float_rank}`);
  },
  deal: [{ key: "max_float_rank", max: true, fact: "floatRank", axisRank: 5 }],
  narrows: keepsMaximum("max_float_rank"),
  sample(f, t) {
    if (f.max_float_rank !== undefined) t.low_rank = Math.max(1, Math.floor(f.max_float_rank / 2));
  },
});

export const minStickerValue = defineFilter({
  name: "min_sticker_value",
  group: "deal",
  /** Applied stickers' value (see stickerValueCents) at least this, cents. */
  stored: { min_sticker_value: CentsBound.optional() },
  narrowing: ["min_sticker_value"],
  options: [
    {
      name: "min_sticker_value",
      description: "Applied stickers worth at least this, wear counted (USD)",
      type: "number",
      min_value: 0,
    },
  ],
  parse: (o) =>
    given(o["min_sticker_value"])
      ? { min_sticker_value: parsePrice("min_sticker_value", o["min_sticker_value"], { allowZero: true }) }
      : {},
  describe(f, parts) {
    if (f.min_sticker_value !== undefined) parts.push(`stickers ≥ ${formatCents(f.min_sticker_value)}`);
  },
  deal: [{ key: "min_sticker_value", max: false, fact: "stickerValueCents", axisRank: 4 }],
  narrows: keepsMinimum("min_sticker_value"),
  // No sample: sticker prices are the market's, which one listing cannot set.
});

export const minStickerPct = defineFilter({
  name: "min_sticker_pct",
  group: "deal",
  /** Sticker value as a percent of the price, at least. */
  stored: { min_sticker_pct: PricePercent.optional() },
  narrowing: ["min_sticker_pct"],
  options: [
    {
      name: "min_sticker_pct",
      description: "Applied stickers worth at least this % of the price",
      type: "number",
      min_value: 0,
      max_value: 100_000,
    },
  ],
  parse: (o) =>
    given(o["min_sticker_pct"])
      ? { min_sticker_pct: decimalIn("min_sticker_pct", o["min_sticker_pct"], 0, MAX_PRICE_PERCENT, "10") }
      : {},
  describe(f, parts) {
    if (f.min_sticker_pct !== undefined) parts.push(`stickers ≥ ${pct(f.min_sticker_pct)} of price`);
  },
  deal: [{ key: "min_sticker_pct", max: false, fact: "stickerPercent", axisRank: 1 }],
  narrows: keepsMinimum("min_sticker_pct"),
});

export const minSalesPerDay = defineFilter({
  name: "min_sales_per_day",
  group: "deal",
  /**
   * Item sales per day over the last 7 days, at least. Needs the price history, so it is not
   * part of the synchronous match: listingAlerts.ts applies it after the index (see salesRate.ts).
   */
  stored: { min_sales_per_day: z.number().min(0).max(MAX_SALES_PER_DAY).optional() },
  // Alone it would match the whole market.
  narrowing: [],
  options: [
    {
      name: "min_sales_per_day",
      description: "Item sold at least this many times a day (last 7 days)",
      type: "number",
      min_value: 0,
      max_value: 100_000,
    },
  ],
  parse: (o) =>
    given(o["min_sales_per_day"])
      ? {
          min_sales_per_day: decimalIn(
            "min_sales_per_day",
            o["min_sales_per_day"],
            0,
            MAX_SALES_PER_DAY,
            "2.5",
          ),
        }
      : {},
  describe(f, parts) {
    if (f.min_sales_per_day !== undefined) parts.push(`≥ ${f.min_sales_per_day} sales/day`);
  },
  // Not indexed and not part of the synchronous match: applied after it (salesRate.ts).
  matches: () => true,
  narrows: keepsMinimum("min_sales_per_day"),
});

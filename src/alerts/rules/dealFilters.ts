// Deal-quality filters of a watch rule (profit after fees, instant exit, fade, blue gem, float rank, sticker value, liquidity): schema, options, description and meaning.
import { z } from "zod";
import { formatCents, MAX_CENTS } from "../../money.ts";
import { invalidOption } from "../../errors.ts";
import { parseIntOption, parsePrice, parseRange, type RawOption } from "../../input/parse.ts";
import type { DealFacts } from "./deal.ts";

export const MAX_TIER_NAME = 32;
/** A percent of the price can pass 100 (a $1 skin with $40 of stickers is 4000%). */
const MAX_PRICE_PERCENT = 100_000;
const MAX_RANK = 1_000_000;
const MAX_SALES_PER_DAY = 100_000;

const CentsBound = z.number().int().min(0).max(MAX_CENTS);
const Percent = z.number().min(0).max(100);
const PricePercent = z.number().min(0).max(MAX_PRICE_PERCENT);

/** Spread into RuleFilters (ruleFilters.ts). Money in cents, percentages as numbers (15 = 15%). */
export const DEAL_FILTER_SHAPE = {
  /** Net resale (sale at the reference, after the seller fee) at least this, cents. */
  min_profit: CentsBound.optional(),
  /** Net resale as a percent of the price, at least. */
  min_profit_pct: PricePercent.optional(),
  /** Instant exit (sale to the highest buy order, after the fee) at least this, cents. */
  min_exit_profit: CentsBound.optional(),
  min_fade: Percent.optional(),
  max_fade: Percent.optional(),
  min_playside_blue: Percent.optional(),
  min_backside_blue: Percent.optional(),
  /** item.low_rank at most this: rank 1 is the lowest float of its kind. */
  max_float_rank: z.number().int().min(1).max(MAX_RANK).optional(),
  /** Applied stickers' value (see stickerValueCents) at least this, cents. */
  min_sticker_value: CentsBound.optional(),
  /** Sticker value as a percent of the price, at least. */
  min_sticker_pct: PricePercent.optional(),
  /**
   * Item sales per day over the last 7 days, at least. Needs the price history, so it is not
   * part of the synchronous match: listingAlerts.ts applies it after the index (see salesRate.ts).
   */
  min_sales_per_day: z.number().min(0).max(MAX_SALES_PER_DAY).optional(),
  /** The seed tier the rule's paint_seeds came from (its seeds are copied into paint_seeds). */
  tier: z.string().trim().min(1).max(MAX_TIER_NAME).optional(),
};

type DealFilterValues = { [K in keyof typeof DEAL_FILTER_SHAPE]?: z.infer<(typeof DEAL_FILTER_SHAPE)[K]> };

/** Deal filters that narrow the market on their own (a listing needs the value to match at all). */
export const NARROWING_DEAL_FILTERS = [
  "min_profit",
  "min_profit_pct",
  "min_exit_profit",
  "min_fade",
  "max_fade",
  "min_playside_blue",
  "min_backside_blue",
  "max_float_rank",
  "min_sticker_value",
  "min_sticker_pct",
] as const;

// ---------------------------------------------------------------------------------------------
// Options

const given = (v: RawOption | null | undefined): v is RawOption => v !== undefined && v !== null && v !== "";

function decimalIn(option: string, raw: RawOption, min: number, max: number, example: string): number {
  const text = typeof raw === "string" ? raw.trim().replace(/\s*%$/, "") : raw;
  const value = typeof text === "number" ? text : /^\+?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value)) throw invalidOption(option, `enter a number, e.g. ${example}`);
  if (value < min || value > max) throw invalidOption(option, `must be between ${min} and ${max}`);
  return value === 0 ? 0 : value;
}

const percent = (option: string, raw: RawOption) => decimalIn(option, raw, 0, 100, "97.5");

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

/** Raw Discord options of the deal filters (fade and blue_gem combine two filters each). */
export interface DealOptions {
  min_profit?: RawOption | null | undefined;
  min_profit_pct?: RawOption | null | undefined;
  min_exit_profit?: RawOption | null | undefined;
  fade?: RawOption | null | undefined;
  min_fade?: RawOption | null | undefined;
  max_fade?: RawOption | null | undefined;
  blue_gem?: RawOption | null | undefined;
  min_playside_blue?: RawOption | null | undefined;
  min_backside_blue?: RawOption | null | undefined;
  max_float_rank?: RawOption | null | undefined;
  min_sticker_value?: RawOption | null | undefined;
  min_sticker_pct?: RawOption | null | undefined;
  min_sales_per_day?: RawOption | null | undefined;
}

export function dealFiltersFromOptions(o: DealOptions): DealFilterValues {
  const f: DealFilterValues = {};
  if (given(o.min_profit)) f.min_profit = parsePrice("min_profit", o.min_profit, { allowZero: true });
  if (given(o.min_profit_pct))
    f.min_profit_pct = decimalIn("min_profit_pct", o.min_profit_pct, 0, MAX_PRICE_PERCENT, "10");
  if (given(o.min_exit_profit))
    f.min_exit_profit = parsePrice("min_exit_profit", o.min_exit_profit, { allowZero: true });
  let minFade = given(o.min_fade) ? percent("min_fade", o.min_fade) : undefined;
  let maxFade = given(o.max_fade) ? percent("max_fade", o.max_fade) : undefined;
  if (given(o.fade)) ({ min: minFade, max: maxFade } = parseFadeRange(o.fade));
  parseRange("min_fade", minFade, "max_fade", maxFade);
  if (minFade !== undefined) f.min_fade = minFade;
  if (maxFade !== undefined) f.max_fade = maxFade;
  let playside = given(o.min_playside_blue) ? percent("min_playside_blue", o.min_playside_blue) : undefined;
  let backside = given(o.min_backside_blue) ? percent("min_backside_blue", o.min_backside_blue) : undefined;
  if (given(o.blue_gem)) ({ playside, backside } = parseBlueGem(o.blue_gem));
  if (playside !== undefined) f.min_playside_blue = playside;
  if (backside !== undefined) f.min_backside_blue = backside;
  if (given(o.max_float_rank))
    f.max_float_rank = parseIntOption("max_float_rank", o.max_float_rank, 1, MAX_RANK);
  if (given(o.min_sticker_value))
    f.min_sticker_value = parsePrice("min_sticker_value", o.min_sticker_value, { allowZero: true });
  if (given(o.min_sticker_pct))
    f.min_sticker_pct = decimalIn("min_sticker_pct", o.min_sticker_pct, 0, MAX_PRICE_PERCENT, "10");
  if (given(o.min_sales_per_day))
    f.min_sales_per_day = decimalIn("min_sales_per_day", o.min_sales_per_day, 0, MAX_SALES_PER_DAY, "2.5");
  return f;
}

// ---------------------------------------------------------------------------------------------
// Describing

const pct = (v: number) => `${v}%`;

/** Appends the deal filters' parts (the tier is described with the seeds, in describeFilters.ts). */
export function describeDeal(f: DealFilterValues, parts: string[]): void {
  if (f.min_profit !== undefined) parts.push(`net ≥ ${formatCents(f.min_profit)}`);
  if (f.min_profit_pct !== undefined) parts.push(`net ≥ ${pct(f.min_profit_pct)} of price`);
  if (f.min_exit_profit !== undefined) parts.push(`instant exit ≥ ${formatCents(f.min_exit_profit)}`);
  if (f.min_fade !== undefined && f.max_fade !== undefined)
    parts.push(`fade ${pct(f.min_fade)}–${pct(f.max_fade)}`);
  else if (f.min_fade !== undefined) parts.push(`fade ≥ ${pct(f.min_fade)}`);
  else if (f.max_fade !== undefined) parts.push(`fade ≤ ${pct(f.max_fade)}`);
  if (f.min_playside_blue !== undefined) parts.push(`playside blue ≥ ${pct(f.min_playside_blue)}`);
  if (f.min_backside_blue !== undefined) parts.push(`backside blue ≥ ${pct(f.min_backside_blue)}`);
  if (f.max_float_rank !== undefined) parts.push(`float rank ≤ #${f.max_float_rank}`);
  if (f.min_sticker_value !== undefined) parts.push(`stickers ≥ ${formatCents(f.min_sticker_value)}`);
  if (f.min_sticker_pct !== undefined) parts.push(`stickers ≥ ${pct(f.min_sticker_pct)} of price`);
  if (f.min_sales_per_day !== undefined) parts.push(`≥ ${f.min_sales_per_day} sales/day`);
}

// ---------------------------------------------------------------------------------------------
// Matching. A rule's deal bounds and a listing's deal values are parallel arrays (same order),
// NaN for "not set" / "absent". One function decides them for matchesFacts and the index alike.

/** A numeric field of DealFacts. */
type DealFact = {
  [K in keyof DealFacts]-?: DealFacts[K] extends number | undefined ? K : never;
}[keyof DealFacts];

/** The filter (and whether it is a maximum) and the listing value (a DealFacts field) behind each position. */
const DEAL_BOUNDS = [
  { filter: "min_profit", max: false, fact: "netResaleCents" },
  { filter: "min_profit_pct", max: false, fact: "netResalePercent" },
  { filter: "min_exit_profit", max: false, fact: "exitCents" },
  { filter: "min_fade", max: false, fact: "fadePercent" },
  { filter: "max_fade", max: true, fact: "fadePercent" },
  { filter: "min_playside_blue", max: false, fact: "playsideBlue" },
  { filter: "min_backside_blue", max: false, fact: "backsideBlue" },
  { filter: "max_float_rank", max: true, fact: "floatRank" },
  { filter: "min_sticker_value", max: false, fact: "stickerValueCents" },
  { filter: "min_sticker_pct", max: false, fact: "stickerPercent" },
] as const satisfies ReadonlyArray<{
  filter: (typeof NARROWING_DEAL_FILTERS)[number];
  max: boolean;
  fact: DealFact;
}>;
const IS_MAX = DEAL_BOUNDS.map((b) => b.max);
const FACTS: readonly DealFact[] = DEAL_BOUNDS.map((b) => b.fact);
/** Per position: whether the bound is a maximum (the index sorts each position's bounds by it). */
export const DEAL_BOUND_IS_MAX: readonly boolean[] = IS_MAX;
/** Percentages computed in binary fractions: a rule at exactly 8.1% must still match 8.1%. */
const DEAL_EPSILON = 1e-9;

/** Every position NaN: what a listing without deal facts has. */
const NO_VALUES: readonly number[] = FACTS.map(() => NaN);
/** The positions of each fact (a fact can back a minimum and a maximum). */
const POSITIONS: ReadonlyMap<string, readonly number[]> = new Map(
  [...new Set(FACTS)].map((fact) => [fact, FACTS.flatMap((f, i) => (f === fact ? [i] : []))]),
);

/** The listing's values in DEAL_BOUNDS order; NaN where the listing does not have it. */
export function dealValuesOf(d: DealFacts): number[] {
  // A plain array filled field by field: a Float64Array per listing (a native buffer each) and
  // Float64Array.from with a function per position cost a microsecond a listing between them, on
  // the feed's hot path. The facts a listing has (a few) are visited, not every position: a
  // lookup per position by a varying key on objects of varying shape was a third of preparing a
  // listing.
  const out = NO_VALUES.slice();
  for (const fact in d) {
    const at = POSITIONS.get(fact);
    if (at === undefined) continue;
    const value = d[fact as DealFact] ?? NaN;
    for (const i of at) out[i] = value;
  }
  return out;
}

/** Each deal filter's position in DEAL_BOUNDS. */
const FILTER_POSITION: ReadonlyMap<string, number> = new Map(DEAL_BOUNDS.map((b, i) => [b.filter, i]));

/** The rule's bounds in DEAL_BOUNDS order (NaN: not set); null for a rule without any (most rules). */
export function compileDeal(f: DealFilterValues): Float64Array | null {
  // The filters a rule has (a few) are visited, as dealValuesOf visits a listing's facts: asking
  // each rule for every deal filter by name, on rules of many shapes, was ~0.45 us a rule in the
  // app's million-rule load (a twentieth of it), nearly all spent learning the rule had none.
  let bounds: Float64Array | null = null;
  for (const filter in f) {
    const at = FILTER_POSITION.get(filter);
    const value: unknown = f[filter as keyof DealFilterValues];
    if (at === undefined || typeof value !== "number") continue;
    bounds ??= new Float64Array(DEAL_BOUNDS.length).fill(NaN);
    bounds[at] = value;
  }
  return bounds;
}

/** One set bound at position i is met by the value; a NaN value (the listing lacks it) meets none. */
export function meetsDealBound(i: number, bound: number, value: number): boolean {
  const limit = dealLimit(i, bound);
  return IS_MAX[i] === true ? value <= limit : value >= limit;
}

/** The last value meeting bound i: the highest for a maximum, the lowest for a minimum (meetsDealBound's margin applied). */
export const dealLimit = (i: number, bound: number): number =>
  IS_MAX[i] === true ? bound + DEAL_EPSILON : bound - DEAL_EPSILON;

/** Every set bound is met; a NaN value (the listing lacks it) meets none. */
export function matchesDeal(bounds: ArrayLike<number>, values: ArrayLike<number>): boolean {
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i] as number;
    if (b !== b) continue;
    if (!meetsDealBound(i, b, values[i] as number)) return false;
  }
  return true;
}

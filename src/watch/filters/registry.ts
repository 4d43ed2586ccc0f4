// The watch-rule filter registry: every filter once, and what the bot derives from the list (stored shape, options, parsing, words, meaning, packing).
import { category, type } from "./kinds.ts";
import { defIndex, item, paintIndex, seeds } from "./identity.ts";
import { float, maxPrice, minDiscount, minRefQty } from "./bounds.ts";
import { keychains, stickers } from "./attachments.ts";
import {
  blueGem,
  fade,
  maxFloatRank,
  minExitProfit,
  minProfit,
  minProfitPct,
  minSalesPerDay,
  minStickerPct,
  minStickerValue,
} from "./dealQuality.ts";
import { meetsBound, type ListingFacts } from "./facts.ts";
import type {
  DealBoundSpec,
  FilterContext,
  ListingSample,
  RawFilterOptions,
  RuleFilter,
  ValuesOf,
} from "./filter.ts";

/**
 * Every filter, in the order /watch shows their options. Adding a filter is one entry here (its
 * file beside this one) and its tests: test/alerts/rules/filterRegistry.test.ts asks every entry for
 * cases around its bounds and holds the matcher to its meaning.
 */
export const RULE_FILTERS = [
  item,
  defIndex,
  paintIndex,
  seeds,
  float,
  maxPrice,
  minDiscount,
  minProfit,
  minProfitPct,
  minExitProfit,
  fade,
  blueGem,
  maxFloatRank,
  minStickerValue,
  minStickerPct,
  minRefQty,
  minSalesPerDay,
  type,
  category,
  stickers,
  keychains,
] as const;

type Entry = (typeof RULE_FILTERS)[number];
const ALL: readonly RuleFilter[] = RULE_FILTERS;

/**
 * The order of the words (/watch list, alerts), of the stored keys and of everything else said
 * about a rule: what the listing is first, then how good a deal it is.
 */
export const SUMMARY_ORDER: readonly RuleFilter[] = [
  ...ALL.filter((f) => f.group === "listing"),
  ...ALL.filter((f) => f.group === "deal"),
];

// ---------------------------------------------------------------------------------------------
// The stored shape (RuleFilters, ruleFilters.ts)

type ShapeOf<F> = F extends { readonly stored: infer S } ? S : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Flat<T> = { [K in keyof T]: T[K] };

/** Every stored key with its schema. */
export type RuleFilterShape = Flat<Intersection<ShapeOf<Entry>>>;
export const RULE_FILTER_SHAPE = Object.assign({}, ...SUMMARY_ORDER.map((f) => f.stored)) as RuleFilterShape;
export type StoredKey = keyof RuleFilterShape & string;
/** A rule's filters as the registry reads them (RuleFilters' type, without importing it). */
export type FilterValues = ValuesOf<RuleFilterShape>;

/** Keys that narrow the market on their own: a rule needs one (type, category... alone would not). */
export const NARROWING_KEYS = SUMMARY_ORDER.flatMap((f) => f.narrowing) as readonly StoredKey[];
/** The stored schema's checks across keys. */
export const REFINES = SUMMARY_ORDER.flatMap((f) => f.refine ?? []);

// ---------------------------------------------------------------------------------------------
// Options

type OptionOf<F> = F extends { readonly options: readonly (infer O)[] } ? O : never;
/** A filter's slash option, its literal types kept (commands/watch/addOptions.ts maps them to Discord's). */
export type FilterOption = OptionOf<Entry>;
export type FilterOptionName = FilterOption["name"];
/** Every filter option, in the registry's order. */
export const FILTER_OPTIONS = ALL.flatMap((f) => f.options) as readonly FilterOption[];

/**
 * Each option an edit may set or clear, and the stored keys it replaces (in the summary order: when
 * an option is both given and cleared, the first such is named).
 */
export const EDIT_OPTION_KEYS = Object.fromEntries(
  SUMMARY_ORDER.flatMap((f) => f.options.map((o) => [o.name, f.replaces?.[o.name] ?? [o.name]])),
) as Readonly<Record<FilterOptionName, readonly StoredKey[]>>;

/**
 * The filters the given options set, each parsed and bounded, every problem naming its option.
 * Deal filters are read first: when several options are wrong, the one named is the one it
 * always was.
 */
export function parseFilterOptions(o: RawFilterOptions, context: FilterContext = {}): FilterValues {
  const f: Record<string, unknown> = {};
  for (const filter of PARSE_ORDER) Object.assign(f, filter.parse(o, context));
  return f as FilterValues;
}
const PARSE_ORDER = [...ALL.filter((f) => f.group === "deal"), ...ALL.filter((f) => f.group === "listing")];

// ---------------------------------------------------------------------------------------------
// Words

/** A short human line, e.g. "Falcon Rifle | Ember Tide (Pristine) · float 0–0.07 · ≤ $120.00 · ≥ 15% below ref". */
export function describeRule(f: FilterValues): string {
  const parts: string[] = [];
  for (const filter of SUMMARY_ORDER) filter.describe(f, parts);
  return parts.join(" · ");
}

// ---------------------------------------------------------------------------------------------
// Meaning

/** Every deal bound, numbered in this order (ListingFacts.deal, CompiledFilters.deal). */
export const DEAL_BOUNDS: readonly DealBoundSpec[] = SUMMARY_ORDER.flatMap((f) => f.deal ?? []);

/** A deal filter's meaning: each bound it sets is met by the listing's value for it. */
function dealMeaning(filter: RuleFilter): (f: FilterValues, l: ListingFacts) => boolean {
  const bounds = (filter.deal ?? []).map((b) => ({ key: b.key, max: b.max, at: DEAL_BOUNDS.indexOf(b) }));
  return (f, l) => {
    for (const b of bounds) {
      const bound = (f as Record<string, unknown>)[b.key];
      if (typeof bound === "number" && !meetsBound(b.max, bound, l.deal[b.at] as number)) return false;
    }
    return true;
  };
}

const MEANINGS = ALL.map((filter): ((f: FilterValues, l: ListingFacts) => boolean) =>
  filter.matches === undefined ? dealMeaning(filter) : (f, l) => filter.matches?.(f, l) ?? true,
);

/**
 * THE definition of a match: a listing in state "listed" that meets every filter of the rule.
 * matchesFacts (ruleFilters.ts) and the matcher's packed check (matcher/slots.ts) are fast forms
 * of it; test/alerts/rules/filterRegistry.test.ts holds both to it, filter by filter.
 */
export function ruleMatches(f: FilterValues, l: ListingFacts): boolean {
  if (!l.listed) return false;
  for (const meets of MEANINGS) if (!meets(f, l)) return false;
  return true;
}

/** True when every listing `after` accepts, `before` accepted too (see each filter's narrows). */
export const ruleNarrows = (before: FilterValues, after: FilterValues): boolean =>
  ALL.every((f) => f.narrows(before, after));

/** Sets on a sandbox listing what each filter of the rule needs (the playground's "matches my rule"). */
export function sampleListing(f: FilterValues, t: ListingSample): void {
  for (const filter of SUMMARY_ORDER) filter.sample?.(f, t);
}

// ---------------------------------------------------------------------------------------------
// Packing and the fast load: lookups by stored key

const byKey = <T>(entries: Array<[string, T]>): Readonly<Record<string, T>> =>
  Object.assign(Object.create(null) as Record<string, T>, Object.fromEntries(entries));

/** The filter that packs each stored key (compileFilters, ruleFilters.ts); deal keys are packed by position. */
export const PACKER_OF = byKey<RuleFilter>(
  SUMMARY_ORDER.flatMap((f) =>
    f.pack === undefined ? [] : Object.keys(f.stored).map((k): [string, RuleFilter] => [k, f]),
  ),
);
/** What the fast load (storedFilters.ts) knows of a stored key: its check, and what its presence says. */
export interface FastKey {
  check(v: unknown): boolean;
  /** The key narrows the market alone. */
  readonly narrowing: boolean;
  /** Its filter has checks across keys (refine) that the value must pass too. */
  readonly refined: boolean;
}

/** Each stored key that has a fast check (a key without one sends the rule to the schema). */
export const FAST_KEY = byKey<FastKey>(
  SUMMARY_ORDER.flatMap((f) =>
    Object.entries(f.fastCheck ?? {}).flatMap(([k, check]): Array<[string, FastKey]> =>
      check === undefined
        ? []
        : [[k, { check, narrowing: f.narrowing.includes(k), refined: (f.refine ?? []).length > 0 }]],
    ),
  ),
);

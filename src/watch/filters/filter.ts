// The contract of one watch-rule filter in the registry (registry.ts): its options, stored schema, parsing, words, meaning and packing.
import type { z } from "zod";
import type { RawOption } from "../../input/parse.ts";
import type { CompiledDraft, ListingFacts } from "./facts.ts";

/**
 * A slash option of a filter, as Discord's option JSON except `type`, which is a word here (domain
 * code does not import discord.js): commands/watch/addOptions.ts swaps in Discord's number and
 * keeps every other key, in this order, so the registered JSON is what is written here.
 */
export type FilterOptionSpec =
  | {
      readonly name: string;
      readonly description: string;
      readonly type: "string";
      readonly autocomplete?: true;
      readonly max_length?: number;
      readonly choices?: readonly { readonly name: string; readonly value: string }[];
    }
  | {
      readonly name: string;
      readonly description: string;
      readonly type: "integer" | "number";
      readonly min_value?: number;
      readonly max_value?: number;
    };

/** The options a user typed, by name; null, undefined or "" = not given. */
export type RawFilterOptions = Readonly<Record<string, RawOption | null | undefined>>;

/** What parsing cannot know alone: the seeds of the tier named in the options (the caller reads them). */
export interface FilterContext {
  tierSeeds?: readonly number[] | undefined;
}

/** The zod schemas of a filter's stored keys (each optional: a rule sets the filters it uses). */
export type StoredShape = Record<string, z.ZodOptional<z.ZodType>>;

/** A filter's stored values, as read from a rule (absent when not set). */
export type ValuesOf<S extends StoredShape> = { [K in keyof S]?: z.output<S[K]> };

/**
 * One deal bound of a deal filter: the filter is met when the listing's `fact` (a DealFacts field,
 * deal.ts) is at least the bound (at most, for a maximum), with a 1e-9 margin; a listing without
 * the fact meets none. The registry numbers the bounds in its order (ListingFacts.deal,
 * CompiledFilters.deal); the matcher files a rule by the bound with the lowest `axisRank` it has.
 */
export interface DealBoundSpec {
  readonly key: string;
  readonly max: boolean;
  readonly fact: DealFact;
  /** Preference as the matcher's axis: the bounds few listings meet first (0 = first). */
  readonly axisRank: number;
}

/** The DealFacts fields a bound can read (numbers; deal.ts). */
export type DealFact =
  | "netResaleCents"
  | "netResalePercent"
  | "exitCents"
  | "fadePercent"
  | "playsideBlue"
  | "backsideBlue"
  | "floatRank"
  | "stickerValueCents"
  | "stickerPercent";

/**
 * The fields of a sandbox listing template a filter may set so a listing meets it (the
 * playground's "matches my rule", src/playground/ruleListing.ts): a subset of ListingTemplate.
 */
export interface ListingSample {
  market_hash_name: string;
  price: number;
  type: "buy_now" | "auction";
  def_index?: number;
  paint_index?: number;
  paint_seed?: number;
  float_value?: number;
  reference_price?: number;
  reference_quantity?: number;
  is_statcounter?: boolean;
  is_souvenir?: boolean;
  stickers?: Array<number | { stickerId: number; slot: number }>;
  keychains?: number[];
  fade?: { percentage: number; rank: number };
  blue_gem?: Record<string, number>;
  low_rank?: number;
  reserve_price?: number;
}

/**
 * One filter: everything the bot knows about it, in one place. `group` orders the words
 * (/watch list shows the listing's own properties, then the deal filters) and the stored keys;
 * the registry's array order is the slash options' order.
 */
export interface RuleFilter<
  S extends StoredShape = StoredShape,
  O extends readonly FilterOptionSpec[] = readonly FilterOptionSpec[],
> {
  /** The registry's name for it (tests and docs). */
  readonly name: string;
  /** "listing": what the listing is (name, float, price...); "deal": how good a deal it is. */
  readonly group: "listing" | "deal";
  /** Its stored keys (RuleFilters' JSON, ruleFilters.ts), each with its schema. */
  readonly stored: S;
  /**
   * Stored keys that alone select a part of the market (a rule needs at least one such key).
   * Keys here and in `replaces` are plain strings (a key type would make S invariant and the
   * registry's list untypable); test/alerts/rules/filterRegistry.test.ts checks each is a stored key.
   */
  readonly narrowing: readonly string[];
  /** Its slash options (/watch add, edit and filters). */
  readonly options: O;
  /** Per option, the stored keys /watch edit replaces when it is given or cleared; default: the key of its name. */
  readonly replaces?: Readonly<Record<string, readonly string[]>>;
  /** Checks across its stored keys that the stored schema makes (e.g. a minimum not above the maximum). */
  readonly refine?: readonly {
    check(f: ValuesOf<S>): boolean;
    readonly message: string;
    readonly path: readonly string[];
  }[];
  /** From the options a user typed: its values, each bounded, every problem an invalidOption naming the option. */
  parse(o: RawFilterOptions, context: FilterContext): ValuesOf<S>;
  /** Appends its words for /watch list and alerts ("≤ $120.00"), when set. */
  describe(f: ValuesOf<S>, parts: string[]): void;
  /**
   * THE meaning: whether a listing meets the filter (true when the rule does not set it). Deal
   * filters have none: their `deal` bounds say it, and the registry applies them.
   */
  matches?(f: ValuesOf<S>, l: ListingFacts): boolean;
  /** Deal filters: their bounds (see DealBoundSpec). */
  readonly deal?: readonly DealBoundSpec[];
  /**
   * Where the matcher packs it: writes its values into the CompiledFilters fields they stand for
   * (facts.ts), which matcher/slots.ts packs into a rule's entry, lists and bucket key. Called for
   * each of its stored keys a rule has, so it writes the same whichever key calls. Deal filters
   * have none: their bounds are packed by position. A filter with neither is not indexed (the
   * rule's other filters are, and hits are confirmed against `matches`).
   */
  pack?(f: ValuesOf<S>, c: CompiledDraft): void;
  /** For /watch edit of an armed rule: whether `after` accepts no listing `before` refused, for this filter. */
  narrows(before: ValuesOf<S>, after: ValuesOf<S>): boolean;
  /** Sets what a sandbox listing needs to meet the filter (the playground's "matches my rule"). */
  sample?(f: ValuesOf<S>, t: ListingSample): void;
  /**
   * Per stored key, a check of the stored JSON value exactly as the schema would decide it, for
   * the million-rule load (storedFilters.ts); a key without one sends the rule to the schema.
   */
  readonly fastCheck?: { readonly [K in keyof S]?: (v: unknown) => boolean };
}

/** Declares a filter (types only: it returns its argument, with its stored shape kept for RuleFilters' type). */
export const defineFilter = <S extends StoredShape, const O extends readonly FilterOptionSpec[]>(
  filter: RuleFilter<S, O>,
): RuleFilter<S, O> => filter;

/** Whether an option was given (Discord sends nothing; tests may pass null or ""). */
export const given = (v: RawOption | null | undefined): v is RawOption =>
  v !== undefined && v !== null && v !== "";

type Bounds<K extends string> = { readonly [P in K]?: number | undefined };

/** narrows for a minimum: kept, and not lowered. */
export const keepsMinimum =
  <K extends string>(key: K) =>
  (before: Bounds<K>, after: Bounds<K>): boolean => {
    const b = before[key];
    const a = after[key];
    return b === undefined || (a !== undefined && a >= b);
  };

/** narrows for a maximum: kept, and not raised. */
export const keepsMaximum =
  <K extends string>(key: K) =>
  (before: Bounds<K>, after: Bounds<K>): boolean => {
    const b = before[key];
    const a = after[key];
    return b === undefined || (a !== undefined && a <= b);
  };

/** narrows for an equality: kept unchanged. */
export const keepsValue =
  <K extends string>(key: K) =>
  (before: { readonly [P in K]?: unknown }, after: { readonly [P in K]?: unknown }): boolean =>
    before[key] === undefined || before[key] === after[key];

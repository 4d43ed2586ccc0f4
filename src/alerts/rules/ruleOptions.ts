// Watch-rule filters from the options a user typed: each parsed and bounded, naming the option at fault.
import { z } from "zod";
import { dealFiltersFromOptions, type DealOptions } from "./dealFilters.ts";
import { invalidOption, UserFacingError } from "../../errors.ts";
import {
  parseFloatValue,
  parseIntOption,
  parsePercent,
  parsePrice,
  parseRange,
  parseSeeds,
  parseSmallIdList,
  parseStickerSelectors,
  parseText,
  MAX_SMALL_ID,
  type RawOption,
} from "../../input/parse.ts";
import {
  MAX_ITEM_NAME,
  MAX_KEYCHAINS,
  MAX_REF_QTY,
  NARROWING_FILTERS,
  RuleCategory,
  RuleFilters,
} from "./ruleFilters.ts";

/** Raw slash-command option values, named like the filters; null/undefined = not given. */
export type RuleOptions = { [K in keyof RuleFilters]?: RawOption | null | undefined } & DealOptions;

/** What ruleFromOptions cannot know alone: the seeds of the tier named in the options. */
export interface RuleContext {
  tierSeeds?: readonly number[] | undefined;
}

const given = (v: RawOption | null | undefined): v is RawOption => v !== undefined && v !== null && v !== "";

/**
 * Builds validated filters from the options a user typed. Every problem is an invalidOption
 * naming the option, so the user sees which field to fix.
 */
export function ruleFromOptions(options: RuleOptions, context: RuleContext = {}): RuleFilters {
  return checkedRule(filtersFromOptions(options, context));
}

/**
 * The filters the given options set, each parsed and bounded, without asking that they make a
 * whole rule (an edit sets a few and keeps the rest; checkedRule judges the result).
 */
export function filtersFromOptions(options: RuleOptions, context: RuleContext = {}): RuleFilters {
  const o = options;
  const f: RuleFilters = dealFiltersFromOptions(o);
  if (given(o.item)) f.item = parseText("item", o.item, MAX_ITEM_NAME);
  if (given(o.def_index)) f.def_index = parseIntOption("def_index", o.def_index, 0, MAX_SMALL_ID);
  if (given(o.paint_index)) f.paint_index = parseIntOption("paint_index", o.paint_index, 0, MAX_SMALL_ID);
  if (given(o.paint_seeds)) f.paint_seeds = parseSeeds("paint_seeds", o.paint_seeds);
  if (given(o.tier)) {
    if (f.paint_seeds !== undefined) throw invalidOption("tier", "use either paint_seeds or tier, not both");
    // The caller resolves the tier (it needs the database); without its seeds this is a bug.
    if (context.tierSeeds === undefined) throw new Error("ruleFromOptions: tier given without its seeds");
    f.tier = String(o.tier).trim();
    f.paint_seeds = [...context.tierSeeds];
  }
  const minFloat = given(o.min_float) ? parseFloatValue("min_float", o.min_float) : undefined;
  const maxFloat = given(o.max_float) ? parseFloatValue("max_float", o.max_float) : undefined;
  parseRange("min_float", minFloat, "max_float", maxFloat);
  if (minFloat !== undefined) f.min_float = minFloat;
  if (maxFloat !== undefined) f.max_float = maxFloat;
  if (given(o.max_price)) f.max_price = parsePrice("max_price", o.max_price);
  if (given(o.min_discount)) f.min_discount = parsePercent("min_discount", o.min_discount);
  if (given(o.min_ref_qty)) f.min_ref_qty = parseIntOption("min_ref_qty", o.min_ref_qty, 0, MAX_REF_QTY);
  if (given(o.type)) {
    const type = z.enum(["buy_now", "auction"]).safeParse(String(o.type).trim().toLowerCase());
    if (!type.success) throw invalidOption("type", "must be buy_now or auction");
    f.type = type.data;
  }
  if (given(o.category)) {
    const category = RuleCategory.safeParse(String(o.category).trim().toLowerCase());
    if (!category.success) throw invalidOption("category", "must be any, normal, statcounter or souvenir");
    // "any" is the same as not filtering; storing it would only make equal rules look different.
    if (category.data !== "any") f.category = category.data;
  }
  if (given(o.stickers)) f.stickers = parseStickerSelectors("stickers", o.stickers);
  if (given(o.keychains)) f.keychains = parseSmallIdList("keychains", o.keychains, MAX_KEYCHAINS, "keychain");
  return f;
}

/** A whole rule's filters: at least one narrowing filter, and the stored schema's shape. */
export function checkedRule(f: RuleFilters): RuleFilters {
  if (!NARROWING_FILTERS.some((k) => f[k] !== undefined)) {
    // Not one option's fault, so no option is named.
    throw new UserFacingError(
      "invalid_input",
      "Add at least one filter that narrows the rule (item, max_price, a float bound or min_discount; " +
        "then `/watch filters` sets seeds, tiers, stickers, keychains or deal filters such as min_profit or fade): " +
        "type, category, min_ref_qty and min_sales_per_day alone would match the whole market.",
      { reason: "no_narrowing_filter" },
    );
  }
  // The parsers above already enforce every bound; parsing again keeps the stored shape and the
  // schema from drifting apart (a failure here is a bug, not a user error).
  return RuleFilters.parse(f);
}

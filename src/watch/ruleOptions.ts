// Watch-rule filters from the options a user typed: each filter of the registry parses its own options, bounded, naming the option at fault.
import { UserFacingError } from "../errors.ts";
import type { RawOption } from "../input/parse.ts";
import type { FilterContext } from "./filters/filter.ts";
import { parseFilterOptions, type FilterOptionName } from "./filters/registry.ts";
import { NARROWING_FILTERS, RuleFilters } from "./ruleFilters.ts";

/**
 * Raw slash-command option values, named like the options or the stored filters (a test may set
 * min_fade rather than fade); null/undefined = not given.
 */
export type RuleOptions = { [K in keyof RuleFilters | FilterOptionName]?: RawOption | null | undefined };

/** What ruleFromOptions cannot know alone: the seeds of the tier named in the options. */
export type RuleContext = FilterContext;

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
  return parseFilterOptions(options, context);
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

// "Watch similar": a watch rule proposed from one listing (its item, a float range around its float,
// its price as ceiling, its seed for patterned skins), and saving it under a name that is free.
import { z } from "zod";
import { invalidOption, UserFacingError } from "../errors.ts";
import type { MarketApi } from "../market/client.ts";
import type { Listing } from "../market/schemas.ts";
import { formatCents } from "../money.ts";
import { requireId } from "../input/validate.ts";
import { MAX_ITEM_NAME, RuleFilters } from "./ruleFilters.ts";
import { addRule, MAX_RULE_NAME, requireRuleName, type RuleDeps, type RuleView } from "./rules.ts";
import { checkedRule } from "./ruleOptions.ts";
import { parseFloatValue, parsePrice, parseRange, parseSeeds } from "../input/parse.ts";

/** Half the width of the proposed float range. */
export const FLOAT_BAND = 0.01;

export const SimilarRuleSchema = z.object({ name: z.string().min(1).max(200), filters: RuleFilters });

export interface SimilarRule {
  /** A readable name ("Ember Tide (Pristine) ≤ $98.40"), at most MAX_RULE_NAME characters. */
  name: string;
  filters: RuleFilters;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Patterned skins are the ones whose seed decides their look: the listing reports a fade or blue share. */
function patterned(listing: Listing): boolean {
  const item = listing.item;
  return item.fade?.percentage !== undefined || Object.keys(item.blue_gem ?? {}).length > 0;
}

function shortName(item: string, max: number): string {
  const after = item.includes("|") ? item.slice(item.indexOf("|") + 1).trim() : item;
  const chars = [...(after === "" ? item : after)];
  return chars.length <= max ? chars.join("") : `${chars.slice(0, max - 1).join("")}…`;
}

/** The rule a "Watch similar" press proposes for `listing`. */
export function similarRuleOf(listing: Listing): SimilarRule {
  const item = listing.item;
  const f: RuleFilters = { max_price: listing.price };
  if (item.market_hash_name.trim() !== "" && item.market_hash_name.length <= MAX_ITEM_NAME)
    f.item = item.market_hash_name.trim();
  if (item.float_value !== undefined) {
    f.min_float = round4(Math.max(0, item.float_value - FLOAT_BAND));
    f.max_float = round4(Math.min(1, item.float_value + FLOAT_BAND));
  }
  if (item.paint_seed !== undefined && patterned(listing)) f.paint_seeds = [item.paint_seed];
  if (f.item === undefined && item.def_index !== undefined) f.def_index = item.def_index;
  if (f.item === undefined && item.paint_index !== undefined) f.paint_index = item.paint_index;
  const price = ` ≤ ${formatCents(listing.price)}`;
  const name = `${shortName(item.market_hash_name, MAX_RULE_NAME - [...price].length - 4)}${price}`;
  return { name: name.replace(/[\p{Cc}\p{Cf}]/gu, " ").trim(), filters: RuleFilters.parse(f) };
}

/** Reads the listing and proposes the rule; nothing is saved. */
export async function proposeSimilarRule(
  deps: { market: MarketApi },
  input: { listingId: string },
): Promise<SimilarRule & { listing: Listing }> {
  const listing = await deps.market.getListing(requireId("listing", input.listingId));
  return { ...similarRuleOf(listing), listing };
}

/**
 * Saves a proposed rule by DM: under its name, or "name (2)", "(3)"... when the user already has
 * a rule of that name (a second press on the same listing makes a second rule, never an error).
 */
export async function saveSimilarRule(
  deps: RuleDeps,
  input: { discordId: string; proposal: SimilarRule },
): Promise<RuleView> {
  for (let n = 1; n <= 5; n++) {
    const suffix = n === 1 ? "" : ` (${n})`;
    const base = [...input.proposal.name]
      .slice(0, MAX_RULE_NAME - suffix.length)
      .join("")
      .trim();
    try {
      return await addRule(deps, {
        discordId: input.discordId,
        name: `${base}${suffix}`,
        filters: input.proposal.filters,
        destination: { kind: "dm" },
      });
    } catch (err) {
      if (!(err instanceof UserFacingError) || err.code !== "conflict") throw err;
    }
  }
  throw new UserFacingError(
    "conflict",
    "You already have several rules with this name; pick another name in the form, or remove one with /watch remove.",
  );
}

/** What the "Adjust" form may change of a proposal: the raw text of its four fields. */
export interface SimilarRuleForm {
  name: string;
  max_price: string;
  float_range: string;
  seeds: string;
}

/**
 * The proposal with the form's values: an empty field removes that filter (the name keeps the
 * proposal's); each problem names its field. The result is a whole rule.
 */
export function adjustSimilarRule(proposal: SimilarRule, form: SimilarRuleForm): SimilarRule {
  const f: RuleFilters = { ...proposal.filters };
  delete f.max_price;
  delete f.min_float;
  delete f.max_float;
  delete f.paint_seeds;
  const price = form.max_price.trim();
  if (price !== "") f.max_price = parsePrice("max_price", price);
  const range = form.float_range.trim();
  if (range !== "") {
    const [lo = "", hi = "", ...rest] = range.split("-").map((x) => x.trim());
    if (rest.length > 0 || (lo === "" && hi === ""))
      throw invalidOption("float_range", 'enter a range such as "0.01-0.07", or leave it empty');
    const min = lo === "" ? undefined : parseFloatValue("float_range", lo);
    const max = hi === "" ? undefined : parseFloatValue("float_range", hi);
    parseRange("float_range", min, "its upper end", max);
    if (min !== undefined) f.min_float = min;
    if (max !== undefined) f.max_float = max;
  }
  const seeds = form.seeds.trim();
  if (seeds !== "") f.paint_seeds = parseSeeds("seeds", seeds);
  const name = form.name.trim() === "" ? proposal.name : requireRuleName(form.name);
  return { name, filters: checkedRule(f) };
}

// The reference answers the index is checked against: every rule through matchesFacts, one by one.
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import type { Listing } from "../../market/schemas.ts";
import {
  compileFilters,
  matchesFacts,
  prepareListing,
  type CompiledFilters,
  type RuleFilters,
} from "../ruleFilters.ts";
import type { MatcherRule } from "./contract.ts";
import type { RuleRef } from "./matchIds.ts";

/** Filters objects are treated as immutable, so their compiled form can be remembered. */
const compiledByFilters = new WeakMap<RuleFilters, CompiledFilters>();

function compiledOf(filters: RuleFilters): CompiledFilters {
  let c = compiledByFilters.get(filters);
  if (c === undefined) {
    c = compileFilters(filters);
    compiledByFilters.set(filters, c);
  }
  return c;
}

/** The reference answer: every rule checked against the listing. Used by tests and the bench. */
export function linearScanMatch(
  rules: readonly MatcherRule[],
  listing: Listing,
  fees: FeeModel = DEFAULT_FEES,
): RuleRef[] {
  const facts = prepareListing(listing, fees);
  const out: RuleRef[] = [];
  for (const rule of rules) {
    if (matchesFacts(compiledOf(rule.filters), facts))
      out.push({ id: String(rule.id), userId: String(rule.userId) });
  }
  return out;
}

/** A rule with its filters compiled once, for a linear scan that does no per-listing allocation. */
export interface CompiledRule extends RuleRef {
  readonly c: CompiledFilters;
}

export function compileRules(rules: readonly MatcherRule[]): CompiledRule[] {
  return rules.map((r) => ({ id: String(r.id), userId: String(r.userId), c: compileFilters(r.filters) }));
}

/** The strongest linear baseline: precompiled rules, one predicate call each. */
export function linearScanCompiled(rules: readonly CompiledRule[], listing: Listing): RuleRef[] {
  const facts = prepareListing(listing);
  const out: RuleRef[] = [];
  for (const rule of rules) if (matchesFacts(rule.c, facts)) out.push(rule);
  return out;
}

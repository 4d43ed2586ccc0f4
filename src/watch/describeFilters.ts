// The one-line human summary of a watch rule's filters, shown on /watch list and on every alert: each filter's words from the registry.
import { describeRule } from "./filters/registry.ts";
import type { RuleFilters } from "./ruleFilters.ts";

/** A short human line, e.g. "Falcon Rifle | Ember Tide (Pristine) · float 0–0.07 · ≤ $120.00 · ≥ 15% below ref". */
export function describeFilters(filters: RuleFilters): string {
  return describeRule(filters);
}

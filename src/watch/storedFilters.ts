// A fast check of stored rule JSON in its common shape, for loading a million rules; anything else goes to the zod schema.
import { isPlainObject } from "./filters/checks.ts";
import { FAST_KEY, REFINES } from "./filters/registry.ts";
import type { RuleFilters } from "./ruleFilters.ts";

// The RuleFilters schema (ruleFilters.ts) stays the definition of valid stored filters. Parsing
// it costs a few microseconds a rule and a copy of every object and array: at a million rules
// that is most of a load. This check accepts only what it can decide exactly as the schema would
// (each filter of the registry gives a fastCheck for the keys it can), and hands back the value
// itself (the schema's output would equal it); whatever it does not know (deal filters, a tier,
// a name with spaces to trim, any doubt) returns undefined, and the caller parses with the
// schema. test/alerts/rules/storedFilters.test.ts holds it to the schema.

/** The stored filters when they are surely valid in the common shape; undefined: ask the schema. */
export function storedFiltersFast(value: unknown): RuleFilters | undefined {
  if (!isPlainObject(value)) return undefined;
  let narrowing = false;
  let refined = false;
  for (const key in value) {
    const fast = FAST_KEY[key];
    if (fast === undefined || !fast.check(value[key])) return undefined;
    if (fast.narrowing) narrowing = true;
    if (fast.refined) refined = true;
  }
  if (!narrowing) return undefined;
  // The schema's checks across keys (a float range the right way round, ...), when a key that
  // has one is there: most rules have none.
  if (refined) for (const r of REFINES) if (!r.check(value)) return undefined;
  return value as RuleFilters;
}

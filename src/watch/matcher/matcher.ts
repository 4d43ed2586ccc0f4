// The watch-rule matcher: an in-memory index that finds the rules a new listing satisfies without scanning every rule.
// Storage (matcher/slots.ts), the bounds lists are sorted and scanned by (matcher/axes.ts), packed buckets
// (matcher/buckets.ts), placement and lookup (matcher/index.ts), and the linear scans it is measured and
// tested against (matcher/linear.ts).
export { createMatcherIndex } from "./index.ts";
export type { MatcherIndex, MatcherRule } from "./contract.ts";
export { MatchIds, type RuleRef } from "./matchIds.ts";
export { compileRules, linearScanCompiled, linearScanMatch, type CompiledRule } from "./linear.ts";

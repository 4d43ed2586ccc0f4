// The watch-rule reads of the alert engine (the rule index's loads and change probes, the rules
// behind a listing's matches with their owners, names for autocomplete): the queries live in
// src/db/repos/rules.ts, re-exported here for the engine's modules.
export {
  enabledRuleIds,
  enabledRulesWithOwners,
  ruleItemNames,
  ruleNamesLike,
  ruleSnapshot,
  rulesUpdatedSince,
} from "../../db/repos/rules.ts";

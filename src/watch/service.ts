// The watch rules as one service for the handlers (/watch and its buttons, the playground): the
// rule verbs (src/watch/rules.ts, ruleEdit.ts, tiers.ts, similarRule.ts) bound to the database,
// the fee model and the rule-change hub, so every save, edit, pause or removal reaches this
// process's matcher at once. Built once by src/services.ts.
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { FeeModel } from "../market/fees.ts";
import { editRule, type RuleEditResult } from "./ruleEdit.ts";
import {
  addRule,
  listRules,
  removeRule,
  ruleNames,
  setRuleEnabled,
  testRule,
  type RuleChange,
  type RuleDeps,
  type RuleTestResult,
  type RuleView,
} from "./rules.ts";
import { saveSimilarRule } from "./similarRule.ts";
import {
  listTiers,
  removeTier,
  saveTier,
  tierNames,
  tierSeeds,
  type SavedTier,
  type TierView,
} from "./tiers.ts";

/** The verb's input, without its dependencies: what a handler passes. */
type InputOf<F> = F extends (deps: never, input: infer I, ...rest: never[]) => unknown ? I : never;

export interface RuleService {
  add(input: InputOf<typeof addRule>): Promise<RuleView>;
  list(input: InputOf<typeof listRules>): Promise<RuleView[]>;
  /** The user's rule names matching what was typed (autocomplete). */
  names(input: InputOf<typeof ruleNames>): Promise<string[]>;
  remove(input: InputOf<typeof removeRule>): Promise<RuleView>;
  /** Pause (false) or resume (true). */
  setEnabled(input: InputOf<typeof setRuleEnabled>): Promise<RuleView>;
  /** Dry run on the newest listings, read on the user's behalf; writes and sends nothing. */
  test(input: InputOf<typeof testRule>): Promise<RuleTestResult>;
  edit(input: InputOf<typeof editRule>): Promise<RuleEditResult>;
  /** "Watch similar": the proposal saved under a free name. */
  saveSimilar(input: InputOf<typeof saveSimilarRule>): Promise<RuleView>;
  /** Item names for the `item` option: the newest listings', names rules use, the catalog. */
  readonly tiers: {
    save(input: InputOf<typeof saveTier>): Promise<SavedTier>;
    list(input: InputOf<typeof listTiers>): Promise<TierView[]>;
    remove(input: InputOf<typeof removeTier>): Promise<TierView>;
    names(input: InputOf<typeof tierNames>): Promise<string[]>;
    /** The seeds of the user's tier, for a rule that follows it. */
    seeds(input: InputOf<typeof tierSeeds>): Promise<{ name: string; seeds: number[] }>;
  };
}

export interface RuleServiceOptions {
  readonly db: Db;
  readonly logger: Logger;
  readonly maxRulesPerUser: number;
  /** The seller fee profit filters count in a dry run. */
  readonly fees: FeeModel;
  /** Where every change is published (the rule-change hub). */
  readonly onChange: (change: RuleChange) => void;
  /** The marketplace a dry run reads with, on the user's behalf. */
  readonly marketFor: (discordId: string) => Promise<MarketApi>;
  /** The operator's marketplace, for the item-name suggestions. */
}

export function createRuleService(opts: RuleServiceOptions): RuleService {
  const deps: RuleDeps = {
    prisma: opts.db,
    logger: opts.logger,
    maxRulesPerUser: opts.maxRulesPerUser,
    fees: opts.fees,
    onChange: opts.onChange,
  };
  return {
    add: (input) => addRule(deps, input),
    list: (input) => listRules(deps, input),
    names: (input) => ruleNames(deps, input),
    remove: (input) => removeRule(deps, input),
    setEnabled: (input) => setRuleEnabled(deps, input),
    async test(input) {
      return testRule({ ...deps, market: await opts.marketFor(input.discordId) }, input);
    },
    edit: (input) => editRule(deps, input),
    saveSimilar: (input) => saveSimilarRule(deps, input),
    tiers: {
      save: (input) => saveTier(deps, input),
      list: (input) => listTiers(deps, input),
      remove: (input) => removeTier(deps, input),
      names: (input) => tierNames(deps, input),
      seeds: (input) => tierSeeds(deps, input),
    },
  };
}

// Keeps the in-memory matcher index equal to the enabled rules in Postgres: full load at start, cheap change polls after.
import type { Logger } from "../../log.ts";
import { DEFAULT_FEES, type FeeModel } from "../../market/fees.ts";
import { createMatcherIndex, type MatcherIndex } from "./matcher.ts";
import {
  loadAllEnabledRules,
  enabledRuleIds,
  ruleSnapshot,
  rulesUpdatedSince,
} from "../../db/repos/matching.ts";
import { parseStoredFilters, type RuleChange } from "../rules.ts";
import type { RuleFilters } from "../ruleFilters.ts";
import { storedFiltersFast } from "../storedFilters.ts";
import type { Db } from "../../db/types.ts";

export interface RuleIndex {
  readonly index: MatcherIndex;
  /** Replaces the index with every enabled rule. */
  loadAll(): Promise<number>;
  /** Applies a change made in this process at once (the next poll would see it too). */
  apply(change: RuleChange): void;
  /**
   * Picks up changes other processes made: one aggregate query when nothing changed; when
   * something did, the rows updated since the mark plus the list of enabled ids (for deletes).
   */
  syncChanges(): Promise<boolean>;
  readonly size: number;
  /** The rule's snipe mode when it is armed (src/snipe): its matches buy, or record, at once. */
  armedMode(ruleId: string): ArmMode | undefined;
  /** The armed rule as the armed index holds it: its mode and the filters it matches with. */
  armedRule(ruleId: string): ArmedRule | undefined;
  /**
   * The armed rules alone, in an index of their own: snipe mode matches every listing against
   * them before anything else, and they are few, so that costs microseconds where matching the
   * whole index (a million rules) twice per listing would not.
   */
  readonly armedIndex: MatcherIndex;
  readonly armedCount: number;
  /** How long the last full load took, database to index, in ms (undefined before the first). */
  readonly lastLoadMs: number | undefined;
}

export type ArmMode = "shadow" | "live";

export interface ArmedRule {
  mode: ArmMode;
  /** The rule's filters as stored, which the armed index matches its listings against. */
  filters: RuleFilters;
}

/**
 * Commits can land out of updated_at order (a transaction that stamped its row earlier may
 * commit later), so each poll re-reads a window before the mark; applying a row twice is harmless.
 */
const SLACK_MS = 30_000;

export function createRuleIndex(deps: { prisma: Db; logger: Logger; fees?: FeeModel }): RuleIndex {
  const log = deps.logger.child({ module: "alerts.rules" });
  const fees = deps.fees ?? DEFAULT_FEES;
  let index = createMatcherIndex({ fees });
  // Armed rules are few (each needs its owner to confirm); a side map keeps the index unchanged.
  let armed = new Map<string, ArmedRule>();
  let armedIndex = createMatcherIndex({ fees });
  let mark: Date | undefined;
  let knownCount = -1;
  let lastLoadMs: number | undefined;

  function upsert(rule: {
    id: number;
    userId: number;
    filters: unknown;
    enabled: boolean;
    armMode?: ArmMode | null | undefined;
  }): void {
    const id = String(rule.id);
    const filters = rule.enabled
      ? (storedFiltersFast(rule.filters) ?? parseStoredFilters(rule, log))
      : undefined;
    if (filters === undefined) {
      forget(id);
      return;
    }
    const indexed = { id, userId: String(rule.userId), filters };
    index.add(indexed);
    // Undefined: a change that does not speak of arming (a pause from this process) keeps it.
    if (rule.armMode === null) {
      armed.delete(id);
      armedIndex.remove(id);
      return;
    }
    const mode = rule.armMode ?? armed.get(id)?.mode;
    if (mode === undefined) return;
    // An armed rule's new filters reach its own index too.
    armed.set(id, { mode, filters });
    armedIndex.add(indexed);
  }

  /** Out of the armed ones only (the rule keeps alerting): few rules are armed, so a scan is cheap. */
  function disarm(userId: number, ruleId: number | undefined): void {
    const ids = ruleId === undefined ? [...armed.keys()] : [String(ruleId)];
    for (const id of ids) {
      if (String(armedIndex.ownerOf(id)) !== String(userId)) continue;
      armed.delete(id);
      armedIndex.remove(id);
    }
  }

  /** Takes a rule out of the index and out of the armed ones. */
  function forget(id: string): void {
    index.remove(id);
    armed.delete(id);
    armedIndex.remove(id);
  }

  return {
    get index() {
      return index;
    },
    get size() {
      return index.size;
    },
    get armedCount() {
      return armed.size;
    },
    get armedIndex() {
      return armedIndex;
    },
    get lastLoadMs() {
      return lastLoadMs;
    },
    armedMode(ruleId) {
      return armed.get(ruleId)?.mode;
    },
    armedRule(ruleId) {
      return armed.get(ruleId);
    },
    async loadAll() {
      const started = performance.now();
      // The snapshot comes first: a change landing during the load is then seen by the next sync.
      const before = await ruleSnapshot(deps.prisma);
      // Room for every rule at once (the count includes paused ones): no copies while growing.
      const fresh = createMatcherIndex({ capacity: before.count, fees });
      const freshArmed = new Map<string, ArmedRule>();
      const freshArmedIndex = createMatcherIndex({ fees });
      // A batch of rows at a time: each row's parsed filters are garbage once its rule is indexed.
      for await (const batch of loadAllEnabledRules(deps.prisma)) {
        for (const row of batch) {
          // The common shape is checked without zod (the load's largest cost at a million rules).
          const filters = storedFiltersFast(row.filters) ?? parseStoredFilters(row, log);
          if (filters === undefined) continue;
          // Ids and owners as the numbers they are: the index keys both by number, so a load
          // makes no string per rule.
          const rule = { id: row.id, userId: row.userId, filters };
          fresh.add(rule);
          if (!row.armMode) continue;
          freshArmed.set(String(row.id), { mode: row.armMode, filters });
          freshArmedIndex.add(rule);
        }
      }
      // Sorted and packed before it serves: the first listing does not pay for a million rules.
      fresh.settle();
      index = fresh;
      armed = freshArmed;
      armedIndex = freshArmedIndex;
      mark = before.max;
      knownCount = before.count;
      lastLoadMs = Math.round(performance.now() - started);
      log.info({ rules: fresh.size, ms: lastLoadMs }, "watch rules loaded");
      return fresh.size;
    },
    apply(change) {
      if (change.type === "remove") {
        forget(String(change.ruleId));
      } else if (change.type === "disarm") {
        disarm(change.userId, change.ruleId);
      } else {
        upsert(change.rule);
      }
    },
    async syncChanges() {
      const now = await ruleSnapshot(deps.prisma);
      const changed = now.count !== knownCount || (now.max?.getTime() ?? 0) > (mark?.getTime() ?? 0);
      if (!changed) return false;
      const since = new Date((mark?.getTime() ?? 0) - SLACK_MS);
      const [rows, enabled] = await Promise.all([
        rulesUpdatedSince(deps.prisma, since),
        enabledRuleIds(deps.prisma),
      ]);
      for (const row of rows) upsert(row);
      const alive = new Set(enabled);
      const gone: string[] = [];
      for (const id of index.ids()) if (!alive.has(Number(id))) gone.push(id);
      for (const id of gone) forget(id);
      mark = now.max;
      knownCount = now.count;
      log.debug({ updated: rows.length, rules: index.size }, "watch rules synced");
      return true;
    },
  };
}

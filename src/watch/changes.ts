// The rule-change hub: the rules and arming services publish every change they write, and the
// alert engine of the same process applies it to its matcher index at once (other replicas learn
// of it through their change poll, within one feed cycle). Built once by the composition root.
import type { Logger } from "../log.ts";
import type { RuleChange } from "./rules.ts";

export type RuleChangeListener = (change: RuleChange) => void;

export interface RuleChangeHub {
  /** Tells every subscriber, synchronously; a subscriber that throws is logged, never the caller's error. */
  publish(change: RuleChange): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: RuleChangeListener): () => void;
}

export function createRuleChangeHub(logger: Logger): RuleChangeHub {
  const log = logger.child({ module: "alerts.ruleChanges" });
  const listeners = new Set<RuleChangeListener>();
  return {
    publish(change) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (err) {
          // The write is done and the next change poll picks it up: the user's command succeeded.
          log.warn({ err, change: change.type }, "a rule change was not applied at once; the next sync will");
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

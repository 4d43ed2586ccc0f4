// The rule-change hub: what the rules services publish reaches every subscriber at once, and a
// subscriber that fails never fails the write that published.
import { describe, expect, it } from "vitest";
import { createRuleChangeHub } from "../../../src/watch/changes.ts";
import type { RuleChange } from "../../../src/watch/rules.ts";
import { createLogger } from "../../../src/log.ts";

const silent = createLogger({ level: "silent" });
const removed = (ruleId: number): RuleChange => ({ type: "remove", ruleId });

describe("rule-change hub", () => {
  it("GIVEN two subscribers WHEN a change is published THEN both get it at once, in order, AND one unsubscribed gets no more", () => {
    const hub = createRuleChangeHub(silent);
    const first: RuleChange[] = [];
    const second: RuleChange[] = [];
    const stopFirst = hub.subscribe((c) => first.push(c));
    hub.subscribe((c) => second.push(c));

    hub.publish(removed(1));
    hub.publish({ type: "disarm", userId: 7 });
    expect(first).toEqual([removed(1), { type: "disarm", userId: 7 }]);
    expect(second).toEqual(first);

    stopFirst();
    hub.publish(removed(2));
    expect(first).toHaveLength(2);
    expect(second.at(-1)).toEqual(removed(2));
  });

  it("GIVEN a subscriber that throws WHEN a change is published THEN the publisher is not failed AND the others still get it", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const hub = createRuleChangeHub(logger);
    const got: RuleChange[] = [];
    hub.subscribe(() => {
      throw new Error("index gone");
    });
    hub.subscribe((c) => got.push(c));

    expect(() => hub.publish(removed(3))).not.toThrow();
    expect(got).toEqual([removed(3)]);
    expect(lines.join("")).toContain("the next sync will");
  });

  it("GIVEN no subscriber (no engine in this process) WHEN a change is published THEN nothing happens", () => {
    expect(() => createRuleChangeHub(silent).publish(removed(4))).not.toThrow();
  });
});

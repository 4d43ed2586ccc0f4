// The rule index against Postgres: a full load in batches, then syncs that pick up rules other processes added, changed, paused and deleted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuleIndex } from "../../../src/watch/matcher/ruleIndex.ts";
import {
  createRule,
  removeRule,
  setRuleEnabled,
  updateRule,
  type NewRule,
} from "../../../src/db/repos/rules.ts";
import { armRule, disarmRules } from "../../../src/db/repos/autoBuys.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { listingWith } from "../fixtures.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const ITEM = "Falcon Rifle | Ember Tide (Pristine)";

/** Stores a rule of the user's; its id. */
async function addRule(userId: number, name: string, filters: NewRule["filters"]): Promise<number> {
  const r = await createRule(db.prisma, { userId, name, filters }, { maxRulesPerUser: 50 });
  if (!r.ok) throw new Error("expected a rule");
  return r.rule.id;
}

describe("rule index", () => {
  it("GIVEN stored rules WHEN loaded and then changed by another process THEN each sync leaves exactly the enabled rules indexed", async () => {
    const user = await ensureUser(db.prisma, "810000000000000001");
    const add = (name: string, filters: NewRule["filters"]) => addRule(user.id, name, filters);
    const cheap = await add("cheap", { item: ITEM, max_price: 9000 });
    const dear = await add("dear", { item: ITEM, max_price: 100 });
    const paused = await add("paused", { def_index: 7 });
    await setRuleEnabled(db.prisma, user.id, paused, false);
    const broken = await add("broken", { no_such_filter: 1 });
    const gone = await add("gone", { paint_index: 282 });

    const rules = createRuleIndex({ prisma: db.prisma, logger: createLogger({ level: "silent" }) });
    expect(await rules.loadAll()).toBe(3);
    const indexed = () => [...rules.index.ids()].map(Number).sort((a, b) => a - b);
    const matched = () =>
      rules.index
        .match(listingWith())
        .map((r) => Number(r.id))
        .sort((a, b) => a - b);
    expect(indexed()).toEqual([cheap, dear, gone]);
    expect(matched()).toEqual([cheap, gone]);
    expect(rules.index.match(listingWith())[0]?.userId).toBe(String(user.id));
    expect(broken).toBeGreaterThan(0);

    // Nothing changed: the sync is one aggregate query and reports no change.
    expect(await rules.syncChanges()).toBe(false);

    await removeRule(db.prisma, user.id, gone);
    await setRuleEnabled(db.prisma, user.id, paused, true);
    await updateRule(db.prisma, user.id, dear, { filters: { item: ITEM, max_price: 10_000 } });
    await setRuleEnabled(db.prisma, user.id, cheap, false);
    const added = await add("added", { paint_seeds: [661] });
    expect(await rules.syncChanges()).toBe(true);
    expect(indexed()).toEqual([dear, paused, added].sort((a, b) => a - b));
    expect(matched()).toEqual([dear, paused, added].sort((a, b) => a - b));
    expect(rules.size).toBe(3);
  });

  it("GIVEN armed and unarmed rules WHEN loaded, re-armed, edited, disarmed and deleted THEN the armed index holds exactly the armed ones, with their current filters", async () => {
    const user = await ensureUser(db.prisma, "810000000000000002");
    const add = (name: string, filters: NewRule["filters"]) => addRule(user.id, name, filters);
    const arm = (ruleId: number) =>
      armRule(db.prisma, { userId: user.id, ruleId, mode: "shadow", maxBuys: 1, at: new Date() });
    const sniped = await add("sniped", { item: ITEM, max_price: 9000 });
    const plain = await add("plain", { item: ITEM, max_price: 9000 });
    const later = await add("later", { def_index: 7 });
    expect(await arm(sniped)).toBe(true);

    const rules = createRuleIndex({ prisma: db.prisma, logger: createLogger({ level: "silent" }) });
    await rules.loadAll();
    const armedMatches = () =>
      rules.armedIndex
        .match(listingWith())
        .map((r) => Number(r.id))
        .sort((a, b) => a - b);
    // The whole index matches all three; the armed index only the armed rule.
    expect(rules.index.match(listingWith()).map((r) => Number(r.id))).toEqual(
      expect.arrayContaining([sniped, plain, later]),
    );
    expect(armedMatches()).toEqual([sniped]);
    expect(rules.armedMode(String(sniped))).toBe("shadow");

    // Armed elsewhere, then edited to a filter the listing fails: the sync carries both.
    expect(await arm(later)).toBe(true);
    await updateRule(db.prisma, user.id, sniped, { filters: { item: ITEM, max_price: 100 } });
    expect(await rules.syncChanges()).toBe(true);
    expect(armedMatches()).toEqual([later]);
    expect(rules.armedIndex.size).toBe(2);

    await disarmRules(db.prisma, { userId: user.id, ruleId: later });
    await removeRule(db.prisma, user.id, sniped);
    expect(await rules.syncChanges()).toBe(true);
    expect(armedMatches()).toEqual([]);
    expect(rules.armedIndex.size).toBe(0);
    expect(rules.armedCount).toBe(0);
    expect(rules.index.match(listingWith()).map((r) => Number(r.id))).toEqual(
      expect.arrayContaining([plain, later]),
    );
  });

  it("GIVEN armed rules of two users WHEN this process disarms one rule, then all of a user's THEN exactly those leave the armed index AND they keep alerting", async () => {
    const alice = await ensureUser(db.prisma, "810000000000000003");
    const bob = await ensureUser(db.prisma, "810000000000000004");
    const armedRule = async (userId: number, name: string) => {
      const id = await addRule(userId, name, { item: ITEM, max_price: 9000 });
      await armRule(db.prisma, { userId, ruleId: id, mode: "shadow", maxBuys: 1, at: new Date() });
      return id;
    };
    const a1 = await armedRule(alice.id, "a1");
    const a2 = await armedRule(alice.id, "a2");
    const b1 = await armedRule(bob.id, "b1");
    const rules = createRuleIndex({ prisma: db.prisma, logger: createLogger({ level: "silent" }) });
    await rules.loadAll();
    const armed = () => [a1, a2, b1].filter((id) => rules.armedMode(String(id)) !== undefined);
    expect(armed()).toEqual([a1, a2, b1]);

    // Another user's rule id names nothing of alice's: only her own rules are disarmed.
    rules.apply({ type: "disarm", userId: alice.id, ruleId: b1 });
    expect(armed()).toEqual([a1, a2, b1]);
    rules.apply({ type: "disarm", userId: alice.id, ruleId: a1 });
    expect(armed()).toEqual([a2, b1]);
    rules.apply({ type: "disarm", userId: alice.id });
    expect(armed()).toEqual([b1]);
    expect(rules.armedIndex.size).toBe(1);
    // Disarmed rules still alert: the whole index is untouched.
    expect(rules.index.match(listingWith()).map((r) => Number(r.id))).toEqual(
      expect.arrayContaining([a1, a2, b1]),
    );
  });
});

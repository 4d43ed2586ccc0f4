// The alerts pass of a feed cycle against Postgres: rules armed after the cycle's snipe pass still act first, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueListingAlerts, type ListingAlertDeps } from "../../../src/watch/listingAlerts.ts";
import { createRuleIndex } from "../../../src/watch/matcher/ruleIndex.ts";
import { createRule } from "../../../src/db/repos/rules.ts";
import { armRule } from "../../../src/db/repos/autoBuys.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { createLogger } from "../../../src/log.ts";
import type { AutoBuyer } from "../../../src/snipe/autoBuyer.ts";
import { hitKey, type ArmedHit } from "../../../src/watch/armedHits.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { listingWith } from "../fixtures.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const logger = createLogger({ level: "silent" });

/** An auto-buyer that records what it was asked to act on and takes every hit over. */
function recordingBuyer(): { buyer: AutoBuyer; acted: ArmedHit[][] } {
  const acted: ArmedHit[][] = [];
  const buyer = {
    act: async (hits: readonly ArmedHit[]) => {
      acted.push([...hits]);
      return new Set(hits.map((h) => hitKey(h.ruleId, h.listing.id)));
    },
    idle: async () => {},
    outcomesQueued: async () => {},
  } as unknown as AutoBuyer;
  return { buyer, acted };
}

/** A rule on `item` (up to $90) saved for `userId` straight to Postgres, as another process would. */
async function savedRule(userId: number, name: string, item: string) {
  const created = await createRule(
    db.prisma,
    { userId, name, filters: { item, max_price: 9_000 } },
    { maxRulesPerUser: 50 },
  );
  if (!created.ok) throw new Error("expected a rule");
  return created.rule;
}

describe("listing alerts pass", () => {
  it("GIVEN a rule armed after the cycle's snipe pass ran WHEN the alerts pass matches the listing THEN that pass hands it to the auto-buyer once, with the filters it matched, and queues no ordinary alert for it, AND a hit the snipe pass already took is not handed over again", async () => {
    const user = await ensureUser(db.prisma, "810000000000000077");
    const item = "Falcon Rifle | Armed Between Passes (Pristine)";
    const rule = await savedRule(user.id, "between passes", item);
    const ruleId = rule.id;
    // Another trader's ordinary rule on the same item: the pass does alert, just not for the armed one.
    const other = await ensureUser(db.prisma, "810000000000000078");
    const plainRule = await savedRule(other.id, "plain watcher", item);
    const rules = createRuleIndex({ prisma: db.prisma, logger });
    await rules.loadAll();
    // The snipe pass ran before this: the rule was not armed then. Another process arms it, and
    // the sync between the passes (the engine's ensureRules) brings it into the armed index.
    expect(
      await armRule(db.prisma, { userId: user.id, ruleId, mode: "shadow", maxBuys: 1, at: new Date() }),
    ).toBe(true);
    await rules.syncChanges();
    const { buyer, acted } = recordingBuyer();
    const deps: ListingAlertDeps = {
      prisma: db.prisma,
      logger,
      index: rules.index,
      snipe: { armedIndex: rules.armedIndex, armedRule: (id) => rules.armedRule(id), autoBuyer: buyer },
    };
    const listing = listingWith({ id: "77001", price: 5_000, item: { market_hash_name: item } });

    const first = await queueListingAlerts(deps, [listing], { readAt: Date.now(), taken: new Set() });
    expect(acted.map((hits) => hits.map((h) => [h.ruleId, h.listing.id, h.userId, h.mode]))).toEqual([
      [[ruleId, "77001", user.id, "shadow"]],
    ]);
    // With the filters the armed index matched it with: a live claim reserves against them.
    expect(acted[0]?.[0]?.filters).toEqual({ item, max_price: 9_000 });
    expect(first).toMatchObject({ matched: 2, queued: 1 });
    const alerted = async () =>
      (await db.prisma.alertLog.findMany({ where: { subjectId: "77001" } })).map((a) => a.ruleId);
    expect(await alerted()).toEqual([plainRule.id]);

    // Had the snipe pass taken it, the alerts pass hands nothing over and alerts nothing.
    const second = await queueListingAlerts(deps, [listing], {
      readAt: Date.now(),
      taken: new Set([hitKey(ruleId, listing.id)]),
    });
    expect(acted).toHaveLength(1);
    // The plain rule's alert is already written (deduplicated), the armed one's is never.
    expect(second).toMatchObject({ matched: 2, queued: 0 });
    expect(await alerted()).toEqual([plainRule.id]);
  });

  it("GIVEN a rule saved elsewhere that the index does not hold yet WHEN the alerts pass looks for changes after writing its alerts THEN the listing is matched again and alerted for that rule", async () => {
    const user = await ensureUser(db.prisma, "810000000000000079");
    const item = "Falcon Rifle | Saved Mid-Cycle (Pristine)";
    const rules = createRuleIndex({ prisma: db.prisma, logger });
    await rules.loadAll();
    // Saved by another process after the index last looked: only the pass's sync can see it.
    const rule = await savedRule(user.id, "saved mid-cycle", item);
    let syncs = 0;
    const deps: ListingAlertDeps = {
      prisma: db.prisma,
      logger,
      get index() {
        return rules.index;
      },
      syncRules: async () => {
        syncs += 1;
        return rules.syncChanges();
      },
    };
    const listing = listingWith({ id: "77002", price: 5_000, item: { market_hash_name: item } });

    const result = await queueListingAlerts(deps, [listing], { readAt: Date.now() });
    expect(syncs).toBe(1);
    expect(result).toMatchObject({ matched: 1, queued: 1 });
    const alerted = await db.prisma.alertLog.findMany({ where: { subjectId: "77002" } });
    expect(alerted.map((a) => a.ruleId)).toEqual([rule.id]);
  });

  it("GIVEN a rule the index holds WHEN a cycle's listing matches it THEN its alert is written before the look for rules saved elsewhere begins", async () => {
    const user = await ensureUser(db.prisma, "810000000000000080");
    const item = "Falcon Rifle | Written First (Pristine)";
    const rule = await savedRule(user.id, "written first", item);
    const rules = createRuleIndex({ prisma: db.prisma, logger });
    await rules.loadAll();
    const alertedWhenLooking: number[][] = [];
    let queuedCalls = 0;
    const deps: ListingAlertDeps = {
      prisma: db.prisma,
      logger,
      index: rules.index,
      onQueued: () => {
        queuedCalls += 1;
      },
      syncRules: async () => {
        const rows = await db.prisma.alertLog.findMany({ where: { subjectId: "77003" } });
        alertedWhenLooking.push(rows.map((r) => r.ruleId ?? 0));
        return false;
      },
    };
    const listing = listingWith({ id: "77003", price: 5_000, item: { market_hash_name: item } });

    const result = await queueListingAlerts(deps, [listing], { readAt: Date.now() });
    expect(result).toMatchObject({ matched: 1, queued: 1 });
    expect(alertedWhenLooking).toEqual([[rule.id]]);
    // Delivery was told before the look, once.
    expect(queuedCalls).toBe(1);
  });

  it("GIVEN a rule armed in another process that the index still holds as an ordinary rule WHEN a listing matches it THEN no ordinary alert goes out for it AND once the look for changes brings the arming, the auto-buyer acts on it", async () => {
    const user = await ensureUser(db.prisma, "810000000000000081");
    const item = "Falcon Rifle | Armed Elsewhere (Pristine)";
    const rule = await savedRule(user.id, "armed elsewhere", item);
    const ruleId = rule.id;
    const rules = createRuleIndex({ prisma: db.prisma, logger });
    await rules.loadAll();
    // Armed by another process: stored, but not in this index until its next sync.
    expect(
      await armRule(db.prisma, { userId: user.id, ruleId, mode: "shadow", maxBuys: 1, at: new Date() }),
    ).toBe(true);
    expect(rules.armedMode(String(ruleId))).toBeUndefined();
    const { buyer, acted } = recordingBuyer();
    const deps: ListingAlertDeps = {
      prisma: db.prisma,
      logger,
      get index() {
        return rules.index;
      },
      snipe: {
        get armedIndex() {
          return rules.armedIndex;
        },
        armedRule: (id) => rules.armedRule(id),
        autoBuyer: buyer,
      },
      syncRules: () => rules.syncChanges(),
    };
    const listing = listingWith({ id: "77004", price: 5_000, item: { market_hash_name: item } });

    const result = await queueListingAlerts(deps, [listing], { readAt: Date.now(), taken: new Set() });
    expect(acted.map((hits) => hits.map((h) => [h.ruleId, h.listing.id, h.mode]))).toEqual([
      [[ruleId, "77004", "shadow"]],
    ]);
    expect(result).toMatchObject({ queued: 0, armed: 1 });
    expect(await db.prisma.alertLog.count({ where: { subjectId: "77004" } })).toBe(0);
  });
});

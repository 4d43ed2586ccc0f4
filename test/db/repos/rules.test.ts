import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRule,
  getRule,
  getRuleByName,
  listRules,
  removeRule,
  setRuleEnabled,
  updateRule,
} from "../../../src/db/repos/rules.ts";
import { loadAllEnabledRules, type EnabledRule } from "../../../src/db/repos/matching.ts";
import { armRule } from "../../../src/db/repos/autoBuys.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ poolMax: 12 });
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
const newUser = () => ensureUser(db.prisma, `${800000000000000000n + BigInt(++seq)}`);

describe("watch rules repository", () => {
  it("GIVEN a user WHEN rules are created, renamed, disabled and removed THEN each change is scoped to the owner", async () => {
    const owner = await newUser();
    const other = await newUser();
    const created = await createRule(
      db.prisma,
      {
        userId: owner.id,
        name: "cheap knives",
        filters: { maxPriceCents: 5000 },
        itemKey: "knife",
        defIndex: 500,
        paintIndex: 12,
      },
      { maxRulesPerUser: 10 },
    );
    if (!created.ok) throw new Error("expected a rule");
    expect(created.rule).toMatchObject({
      name: "cheap knives",
      filters: { maxPriceCents: 5000 },
      enabled: true,
      matchCount: 0,
      destination: "dm",
    });

    expect(
      await createRule(
        db.prisma,
        { userId: owner.id, name: "cheap knives", filters: {} },
        { maxRulesPerUser: 10 },
      ),
    ).toEqual({
      ok: false,
      reason: "name_taken",
    });
    expect(await removeRule(db.prisma, other.id, created.rule.id)).toBe(false);
    expect(await setRuleEnabled(db.prisma, other.id, created.rule.id, false)).toBe(false);
    expect(await getRule(db.prisma, other.id, created.rule.id)).toBeNull();

    expect(await setRuleEnabled(db.prisma, owner.id, created.rule.id, false)).toBe(true);
    const renamed = await updateRule(db.prisma, owner.id, created.rule.id, {
      name: "knives",
      filters: { maxPriceCents: 4000 },
    });
    expect(renamed).toMatchObject({ name: "knives", enabled: false, filters: { maxPriceCents: 4000 } });
    expect((await getRuleByName(db.prisma, owner.id, "knives"))?.id).toBe(created.rule.id);

    expect(await removeRule(db.prisma, owner.id, created.rule.id)).toBe(true);
    expect(await listRules(db.prisma, owner.id)).toEqual([]);
  });

  it("GIVEN a rule cap of 5 WHEN 12 rules are created at once THEN exactly 5 exist and the rest report the limit", async () => {
    const user = await newUser();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createRule(db.prisma, { userId: user.id, name: `rule ${i}`, filters: {} }, { maxRulesPerUser: 5 }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok && r.reason === "limit_reached")).toHaveLength(7);
    expect(await listRules(db.prisma, user.id)).toHaveLength(5);
  });

  it("GIVEN a rule for a user that does not exist THEN creation says so", async () => {
    expect(
      await createRule(db.prisma, { userId: 999_999, name: "x", filters: {} }, { maxRulesPerUser: 5 }),
    ).toEqual({
      ok: false,
      reason: "no_user",
    });
  });

  it("GIVEN enabled and disabled rules WHEN loaded for the matcher THEN enabled ones arrive in id-ordered batches with only their owner, filters and arming", async () => {
    const users = [await newUser(), await newUser(), await newUser()];
    const disabled = new Set<number>();
    const created = new Map<number, EnabledRule>();
    for (let i = 0; i < 25; i++) {
      const user = users[i % 3];
      if (!user) throw new Error("unreachable");
      // Commas, quotes and non-ASCII inside the JSON: a batch arrives as one aggregated row.
      const filters = i % 4 === 1 ? { i, item: 'Knife | "Doppler", Phase 2 ★ (Factory New)' } : { i };
      const r = await createRule(
        db.prisma,
        { userId: user.id, name: `batch ${i}`, filters },
        { maxRulesPerUser: 50 },
      );
      if (!r.ok) throw new Error("expected a rule");
      // Some armed, each mode once in a while, so arming lines up with its rule across a batch.
      const armMode = i % 6 === 2 ? "shadow" : i % 6 === 3 ? "live" : null;
      if (armMode !== null)
        expect(
          await armRule(db.prisma, {
            userId: user.id,
            ruleId: r.rule.id,
            mode: armMode,
            maxBuys: 1,
            at: new Date(),
            ...(armMode === "live"
              ? { bound: { ceilingCents: 1_000, budgetCents: 1_000, filters, linkGeneration: 0 } }
              : {}),
          }),
        ).toBe(true);
      created.set(r.rule.id, { id: r.rule.id, userId: user.id, filters, armMode });
      if (i % 5 === 0) {
        await setRuleEnabled(db.prisma, user.id, r.rule.id, false);
        disabled.add(r.rule.id);
      }
    }
    const batches: EnabledRule[][] = [];
    for await (const batch of loadAllEnabledRules(db.prisma, { batchSize: 7 })) batches.push(batch);
    expect(batches.every((b) => b.length <= 7)).toBe(true);
    const all = batches.flat();
    const ids = all.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.every((r) => !disabled.has(r.id))).toBe(true);
    const mine = all.filter((r) => users.some((u) => u.id === r.userId));
    expect(mine).toHaveLength(20);
    for (const r of mine) expect(r).toEqual(created.get(r.id));
    expect(mine.filter((r) => r.armMode !== null).length).toBeGreaterThan(0);
  });

  it("GIVEN rules in several batches WHEN the caller gets a batch THEN the next batch's query has already left for Postgres", async () => {
    const user = await newUser();
    for (let i = 0; i < 12; i++)
      await createRule(
        db.prisma,
        { userId: user.id, name: `pipelined ${i}`, filters: { item: `Item ${i}` } },
        { maxRulesPerUser: 50 },
      );
    // Every query the driver is handed (the adapter's last step before the socket).
    const send = pg.Client.prototype.query;
    let batchQueries = 0;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      const text = typeof first === "string" ? first : (first?.text ?? "");
      if (text.includes("string_agg")) batchQueries++;
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof send;
    const sentWhenReceived: number[] = [];
    const sizes: number[] = [];
    try {
      for await (const batch of loadAllEnabledRules(db.prisma, { batchSize: 5 })) {
        // Read synchronously, as the index's load then works for a while without yielding.
        sentWhenReceived.push(batchQueries);
        sizes.push(batch.length);
      }
    } finally {
      pg.Client.prototype.query = send;
    }
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    // Batch i (from 0) arrives after its own i + 1 queries; a full one has sent the next too.
    expect(sentWhenReceived).toEqual(sizes.map((size, i) => i + 1 + (size === 5 ? 1 : 0)));
  });
});

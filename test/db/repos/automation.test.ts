// What a live-armed rule has committed is defined once (the database function
// armed_rule_committed_cents): the overview shows the very sum the reservation checks the budget with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { automationState } from "../../../src/db/repos/automation.ts";
import { armRule } from "../../../src/db/repos/autoBuys.ts";
import { reserveSpend } from "../../../src/db/repos/purchases.ts";
import { createRule } from "../../../src/db/repos/rules.ts";
import { linkUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { standInLink } from "../../support/links.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const HOUR = 60 * 60_000;

async function liveRule(userId: number, name: string, at: Date, budgetCents: number, linkGeneration: number) {
  const created = await createRule(db.prisma, { userId, name, filters: {} }, { maxRulesPerUser: 10 });
  if (!created.ok) throw new Error(`rule not created: ${created.reason}`);
  const bound = { ceilingCents: budgetCents, budgetCents, filters: {}, linkGeneration };
  const armed = await armRule(db.prisma, {
    userId,
    ruleId: created.rule.id,
    mode: "live",
    maxBuys: 10,
    at,
    bound,
  });
  expect(armed).toBe(true);
  return created.rule.id;
}

describe("an armed rule's committed money", () => {
  it("GIVEN auto-buys in every state, before and after arming WHEN the overview reads and a buy reserves THEN both count the same sum", async () => {
    const { user } = await linkUser(
      db.prisma,
      standInLink("920000000000000001", { platformId: "76561198000000001" }),
    );
    // No caps of the user's own: only the rule's budget can refuse.
    await db.prisma.user.update({
      where: { id: user.id },
      data: { perPurchaseCapCents: null, dailyCapCents: null },
    });
    const now = Date.now();
    const armedAt = new Date(now - HOUR);
    const rule = await liveRule(user.id, "budgeted", armedAt, 10_000, user.linkGeneration);
    const unarmedSince = await liveRule(user.id, "armed before bounds", armedAt, 10_000, user.linkGeneration);
    // A rule armed before arming times were kept counts everything of its own.
    await db.prisma.watchRule.update({ where: { id: unarmedSince }, data: { armedAt: null } });

    const buys: Array<[key: string, cents: number, status: string, at: number, kind?: "buy"]> = [
      [`auto:${rule}:a`, 1_000, "pending", now - 10_000],
      [`auto:${rule}:b`, 200, "open", now - 10_000],
      [`auto:${rule}:c`, 300, "unknown", now - 10_000],
      [`auto:${rule}:d`, 400, "succeeded", now - 10_000],
      // Not committed: given up or released, bought before this arming, another rule's, by hand.
      [`auto:${rule}:e`, 5_000, "failed", now - 10_000],
      [`auto:${rule}:f`, 5_000, "released", now - 10_000],
      [`auto:${rule}:g`, 700, "succeeded", now - 2 * HOUR],
      [`auto:${rule}0:h`, 900, "pending", now - 10_000],
      [`auto:${rule}:i`, 600, "pending", now - 10_000, "buy"],
      [`auto:${unarmedSince}:j`, 50, "succeeded", now - 2 * HOUR],
    ];
    for (const [key, cents, status, at, kind] of buys) {
      await db.prisma.purchase.create({
        data: {
          userId: user.id,
          idempotencyKey: key,
          kind: kind ?? "auto_buy",
          totalCents: BigInt(cents),
          status: status as "pending",
          createdAt: new Date(at),
        },
      });
    }
    const committedOf = async (id: number) =>
      (await automationState(db.prisma, user.id)).rules.find((r) => r.ruleId === id)?.committedCents;
    expect(await committedOf(rule)).toBe(1_900);
    expect(await committedOf(unarmedSince)).toBe(50);

    const reserve = (key: string, totalCents: number) =>
      reserveSpend(db.prisma, {
        userId: user.id,
        idempotencyKey: key,
        kind: "auto_buy",
        totalCents,
        authority: { kind: "rule", ruleId: rule },
      });
    expect(await reserve(`auto:${rule}:over`, 10_000 - 1_900 + 1)).toEqual({
      ok: false,
      reason: "confirmed_budget",
      capCents: 10_000,
      spentCents: 1_900,
    });
    expect((await reserve(`auto:${rule}:exact`, 10_000 - 1_900)).ok).toBe(true);
    expect(await committedOf(rule)).toBe(10_000);
  });
});

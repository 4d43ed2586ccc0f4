// Alerts claimed for a delivery worker by the insert that writes them (ADR 038): the rows are
// left exactly as the worker's own claim would leave them, and nobody else can take them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertAlertsWithOutbox, listingDedupeKey, type NewAlert } from "../../../src/db/repos/alerts.ts";
import { claimDue } from "../../../src/db/repos/outbox.ts";
import { createRule } from "../../../src/db/repos/rules.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
async function userWithRule() {
  const discordId = `${710000000000000000n + BigInt(++seq)}`;
  const user = await ensureUser(db.prisma, discordId);
  await db.prisma.user.update({
    where: { id: user.id },
    data: { dmChannelId: "990000000000000001", timezone: "Europe/Paris" },
  });
  const rule = await createRule(
    db.prisma,
    { userId: user.id, name: "r", filters: {} },
    { maxRulesPerUser: 5 },
  );
  if (!rule.ok) throw new Error("expected a rule");
  return { user, discordId, rule: rule.rule };
}

const alertFor = (userId: number, ruleId: number, listingId: string, extra: Partial<NewAlert> = {}) => ({
  userId,
  ruleId,
  kind: "listing" as const,
  subjectId: listingId,
  version: "1000",
  dedupeKey: listingDedupeKey(ruleId, listingId, "1000"),
  destination: "dm" as const,
  payload: { content: `listing ${listingId}` },
  ...extra,
});

describe("alerts claimed by their insert", () => {
  it("GIVEN due, held-back and quiet-hours alerts WHEN written with a claim of two for worker A THEN the first two due rows are A's, as its claim would leave them, and another worker's claim takes only what is left", async () => {
    const { user, discordId, rule } = await userWithRule();
    const written = await insertAlertsWithOutbox(
      db.prisma,
      [
        alertFor(user.id, rule.id, "9001", { holdMs: 60_000 }),
        alertFor(user.id, rule.id, "9002"),
        alertFor(user.id, rule.id, "9003", { status: "held" }),
        alertFor(user.id, rule.id, "9004"),
        alertFor(user.id, rule.id, "9005"),
      ],
      { claim: { workerId: "worker-a", leaseMs: 60_000, limit: 2 } },
    );

    expect(written).toHaveLength(5);
    // In the order written (RETURNING has no order of its own).
    const claimed = written
      .flatMap((w) => (w.claimed === undefined ? [] : [w]))
      .sort((a, b) => a.outboxId - b.outboxId);
    expect(claimed.map((w) => w.dedupeKey)).toEqual([
      listingDedupeKey(rule.id, "9002", "1000"),
      listingDedupeKey(rule.id, "9004", "1000"),
    ]);
    // What the worker needs to send, read by the insert itself.
    expect(claimed[0]?.claimed).toMatchObject({
      id: claimed[0]?.outboxId,
      alertId: claimed[0]?.alertId,
      dedupeKey: listingDedupeKey(rule.id, "9002", "1000"),
      userId: user.id,
      discordUserId: discordId,
      dmChannelId: "990000000000000001",
      destination: "dm",
      payload: { content: "listing 9002" },
      attempts: 1,
      recipient: { timezone: "Europe/Paris", dmClosedAt: null },
    });
    const rows = await db.prisma.outbox.findMany({
      where: { userId: user.id },
      orderBy: { id: "asc" },
      select: { status: true, lockedBy: true, attempts: true, lockedUntil: true },
    });
    expect(rows.map((r) => [r.status, r.lockedBy, r.attempts])).toEqual([
      ["pending", null, 0],
      ["sending", "worker-a", 1],
      ["held", null, 0],
      ["sending", "worker-a", 1],
      ["pending", null, 0],
    ]);
    expect(rows[1]?.lockedUntil?.getTime()).toBeGreaterThan(Date.now() + 30_000);

    const b = await claimDue(db.prisma, { workerId: "worker-b", limit: 50, leaseMs: 60_000 });
    expect(b.filter((m) => m.userId === user.id).map((m) => m.dedupeKey)).toEqual([
      listingDedupeKey(rule.id, "9005", "1000"),
    ]);
  });

  it("GIVEN rows claimed by their insert for a worker that died WHEN their lease has run out THEN another worker's claim takes them, as it takes any expired claim", async () => {
    const { user, rule } = await userWithRule();
    await insertAlertsWithOutbox(db.prisma, [alertFor(user.id, rule.id, "9101")], {
      claim: { workerId: "worker-gone", leaseMs: 0, limit: 50 },
    });

    const taken = await claimDue(db.prisma, { workerId: "worker-c", limit: 50, leaseMs: 60_000 });

    const mine = taken.filter((m) => m.userId === user.id);
    expect(mine.map((m) => [m.dedupeKey, m.attempts])).toEqual([
      [listingDedupeKey(rule.id, "9101", "1000"), 2],
    ]);
  });

  it("GIVEN an alert whose key was written before WHEN it is written again with a claim THEN nothing is written or claimed", async () => {
    const { user, rule } = await userWithRule();
    const alert = alertFor(user.id, rule.id, "9201");
    await insertAlertsWithOutbox(db.prisma, [alert]);

    const again = await insertAlertsWithOutbox(db.prisma, [alert], {
      claim: { workerId: "worker-a", leaseMs: 60_000, limit: 50 },
    });

    expect(again).toEqual([]);
    expect(await db.prisma.outbox.count({ where: { userId: user.id, status: "sending" } })).toBe(0);
  });
});

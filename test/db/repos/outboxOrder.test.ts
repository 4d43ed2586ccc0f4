import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertAlertsWithOutbox, type AlertKind, type NewAlert } from "../../../src/db/repos/alerts.ts";
import { claimDue, markFailed, markSent, releaseHeldBack } from "../../../src/db/repos/outbox.ts";
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
const newUser = () => ensureUser(db.prisma, `${610000000000000000n + BigInt(++seq)}`);
const alert = (userId: number, kind: AlertKind, key: string, extra: Partial<NewAlert> = {}): NewAlert => ({
  userId,
  kind,
  subjectId: key,
  version: "1",
  dedupeKey: `order:${key}`,
  destination: "dm",
  payload: { key },
  ...extra,
});
const keyOf = (payload: unknown) => (payload as { key: string }).key;
const claimAll = async (workerId: string, limit: number): Promise<string[]> => {
  const keys: string[] = [];
  for (;;) {
    const batch = await claimDue(db.prisma, { workerId, limit, leaseMs: 60_000 });
    if (batch.length === 0) return keys;
    for (const row of batch) {
      keys.push(keyOf(row.payload));
      await markSent(db.prisma, row.id, workerId);
    }
  }
};

describe("outbox claim order", () => {
  it("GIVEN a listing fan-out written oldest rule first, then a snipe outcome, a trade alert and a weekly report WHEN claimed in small batches THEN the snipe outcome, the trade, the listings in written order, the report", async () => {
    await claimAll("drain", 500);
    const user = await newUser();
    // 120 listing alerts in a written order unlike key order: ids must follow what was written.
    const fanOut = Array.from(
      { length: 120 },
      (_, i) => `listing-${String((i * 37) % 120).padStart(3, "0")}`,
    );
    await insertAlertsWithOutbox(
      db.prisma,
      fanOut.map((k) => alert(user.id, "listing", k)),
    );
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "weekly_report", "report")]);
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "trade", "trade")]);
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "auto_buy", "auto-buy")]);

    const order = await claimAll("w", 7);

    expect(order).toEqual(["auto-buy", "trade", ...fanOut, "report"]);
  });

  it("GIVEN a snipe outcome waiting for a retry and due listing alerts WHEN claimed THEN the retry stays out until its time, then goes first", async () => {
    await claimAll("drain", 500);
    const user = await newUser();
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "auto_buy", "retry-me")]);
    const [first] = await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 });
    expect(first && keyOf(first.payload)).toBe("retry-me");
    const policy = { maxAttempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 };
    expect(await markFailed(db.prisma, first?.id ?? 0, "w", { error: "503" }, policy)).toBe("retry");
    await insertAlertsWithOutbox(db.prisma, [
      alert(user.id, "listing", "l1"),
      alert(user.id, "listing", "l2"),
    ]);

    const now = await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 });
    expect(now.map((r) => keyOf(r.payload))).toEqual(["l1", "l2"]);
    for (const r of now) await markSent(db.prisma, r.id, "w");

    // Its time comes.
    await db.prisma.$executeRaw`UPDATE outbox SET next_attempt_at = now() - interval '1 second'
                                 WHERE id = ${first?.id ?? 0}`;
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "listing", "l3")]);
    const later = await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 });
    expect(later.map((r) => [keyOf(r.payload), r.attempts])).toEqual([
      ["retry-me", 2],
      ["l3", 1],
    ]);
  });

  it("GIVEN alerts written with a hold WHEN claimed THEN none is due; WHEN released by key THEN they are, and a row waiting for a retry keeps its wait", async () => {
    await claimAll("drain", 500);
    const user = await newUser();
    await insertAlertsWithOutbox(db.prisma, [alert(user.id, "listing", "retrying")]);
    const [retrying] = await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 });
    await markFailed(db.prisma, retrying?.id ?? 0, "w", { error: "503" });
    await insertAlertsWithOutbox(db.prisma, [
      alert(user.id, "listing", "held-1", { holdMs: 60_000 }),
      alert(user.id, "listing", "held-2", { holdMs: 60_000 }),
    ]);

    expect(await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 })).toEqual([]);

    const released = await releaseHeldBack(db.prisma, ["order:held-1", "order:held-2", "order:retrying"]);

    expect(released).toBe(2);
    const claimed = await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 });
    expect(claimed.map((r) => keyOf(r.payload))).toEqual(["held-1", "held-2"]);
  });

  it("GIVEN many rows queued WHEN the claim's pending branch is planned THEN it reads the claim index in order, with no sort of every due row", async () => {
    const plan = await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<Array<{ "QUERY PLAN": string }>>`
        EXPLAIN SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= now()
                 ORDER BY priority, next_attempt_at, id LIMIT 50 FOR UPDATE SKIP LOCKED`;
    });
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");

    expect(text).toContain("outbox_status_priority_next_attempt_at_id_idx");
    expect(text).not.toMatch(/\bSort\b/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../../src/db/index.ts";
import {
  completePurchase,
  failPurchase,
  getPurchaseByKey,
  listRecentPurchases,
  reserveSpend,
  settlePurchase,
  spentInWindow,
} from "../../../src/db/repos/purchases.ts";
import { ensureUser, updateSettings } from "../../../src/db/repos/users.ts";
import type { PrismaClient } from "../../../src/generated/prisma/client.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
let other: { prisma: PrismaClient; close(): Promise<void> };
beforeAll(async () => {
  db = await freshDatabase({ poolMax: 10 });
  const { prisma, pool } = createPrismaClient(db.url, createLogger({ level: "silent" }), 10);
  other = { prisma, close: async () => (await prisma.$disconnect(), await pool.end()) };
});
afterAll(async () => {
  await other.close();
  await db.close();
});

let seq = 0;
/** A user with exactly these caps (a cap not named is none, not the new-user default). */
async function userWithCaps(caps: { perPurchaseCapCents?: number | null; dailyCapCents?: number | null }) {
  const user = await ensureUser(db.prisma, `${500000000000000000n + BigInt(++seq)}`);
  await updateSettings(db.prisma, user.id, { perPurchaseCapCents: null, dailyCapCents: null, ...caps });
  return user;
}
const key = () => `confirm-${++seq}-${Math.random().toString(36).slice(2)}`;

describe("purchases repository", () => {
  it("GIVEN a per-purchase cap WHEN a purchase is over it THEN it is refused and nothing is recorded", async () => {
    const user = await userWithCaps({ perPurchaseCapCents: 10_000 });
    const r = await reserveSpend(db.prisma, {
      userId: user.id,
      idempotencyKey: key(),
      listingIds: ["1"],
      totalCents: 10_001,
    });
    expect(r).toEqual({ ok: false, reason: "per_purchase_cap", capCents: 10_000 });
    const ok = await reserveSpend(db.prisma, {
      userId: user.id,
      idempotencyKey: key(),
      listingIds: ["1"],
      totalCents: 10_000,
    });
    expect(ok.ok).toBe(true);
    expect(await listRecentPurchases(db.prisma, user.id)).toHaveLength(1);
  });

  it("GIVEN a daily cap of $10 WHEN eight $3 purchases are reserved at once from two processes THEN exactly three pass and the cap holds", async () => {
    const user = await userWithCaps({ dailyCapCents: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        reserveSpend(i % 2 === 0 ? db.prisma : other.prisma, {
          userId: user.id,
          idempotencyKey: key(),
          listingIds: [`${100 + i}`],
          totalCents: 300,
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    const refused = results.filter((r) => !r.ok);
    expect(refused.every((r) => !r.ok && r.reason === "daily_cap")).toBe(true);
    expect(await spentInWindow(db.prisma, user.id)).toBe(900);
  });

  it("GIVEN settled purchases THEN failed ones free the cap, unknown ones keep counting, and a settled one cannot be settled again", async () => {
    const user = await userWithCaps({ dailyCapCents: 1_000 });
    const reserve = (cents: number) =>
      reserveSpend(db.prisma, {
        userId: user.id,
        idempotencyKey: key(),
        listingIds: ["9"],
        totalCents: cents,
      });
    const a = await reserve(600);
    const b = await reserve(400);
    if (!a.ok || !b.ok) throw new Error("expected reservations");
    expect((await reserve(1)).ok).toBe(false);

    expect(await failPurchase(db.prisma, a.purchase.id, "sold already")).toBe(true);
    expect(await failPurchase(db.prisma, a.purchase.id, "again")).toBe(false);
    expect(await settlePurchase(db.prisma, b.purchase.id, { status: "unknown", error: "timeout" })).toBe(
      true,
    );
    expect(await spentInWindow(db.prisma, user.id)).toBe(400);
    const c = await reserve(600);
    expect(c.ok).toBe(true);
    expect((await reserve(1)).ok).toBe(false);

    // The unknown outcome resolves later.
    expect(await completePurchase(db.prisma, b.purchase.id)).toBe(true);
    expect((await getPurchaseByKey(db.prisma, b.purchase.idempotencyKey))?.status).toBe("succeeded");
  });

  it("GIVEN a double-clicked Confirm WHEN five reservations share one idempotency key THEN one purchase exists and the others see it as a duplicate", async () => {
    const user = await userWithCaps({});
    const k = key();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        reserveSpend(i % 2 === 0 ? db.prisma : other.prisma, {
          userId: user.id,
          idempotencyKey: k,
          listingIds: ["55", "56"],
          totalCents: 2_500,
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const dups = results.filter((r) => !r.ok && r.reason === "duplicate");
    expect(dups).toHaveLength(4);
    expect(await db.prisma.purchase.count({ where: { idempotencyKey: k } })).toBe(1);
    expect((await getPurchaseByKey(db.prisma, k))?.listingIds).toEqual(["55", "56"]);
  });

  it("GIVEN amounts beyond 2^31 cents THEN sums and caps stay exact", async () => {
    const user = await userWithCaps({ dailyCapCents: 9_000_000_000 });
    const r1 = await reserveSpend(db.prisma, {
      userId: user.id,
      idempotencyKey: key(),
      listingIds: ["1"],
      totalCents: 3_000_000_000,
    });
    const r2 = await reserveSpend(db.prisma, {
      userId: user.id,
      idempotencyKey: key(),
      listingIds: ["2"],
      totalCents: 3_000_000_000,
    });
    const r3 = await reserveSpend(db.prisma, {
      userId: user.id,
      idempotencyKey: key(),
      listingIds: ["3"],
      totalCents: 3_000_000_001,
    });
    expect([r1.ok, r2.ok]).toEqual([true, true]);
    expect(r3).toEqual({
      ok: false,
      reason: "daily_cap",
      capCents: 9_000_000_000,
      spentCents: 6_000_000_000,
    });
  });

  it("GIVEN no such user THEN the reservation says so", async () => {
    expect(
      await reserveSpend(db.prisma, {
        userId: 987_654,
        idempotencyKey: key(),
        listingIds: [],
        totalCents: 1,
      }),
    ).toEqual({
      ok: false,
      reason: "no_user",
    });
  });
});

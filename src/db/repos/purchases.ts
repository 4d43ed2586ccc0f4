// Purchases and spend caps: a reservation checks the caps and records a pending purchase
// atomically, so concurrent buys cannot overspend and a double-clicked Confirm buys once.
import { z } from "zod";
import type { Purchase } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, isUniqueViolation, withTransaction } from "../types.ts";

export type PurchaseStatus = "pending" | "succeeded" | "failed" | "unknown";

/** The cap window: the last 24 hours, so a cap cannot be spent twice around midnight. */
export const DAILY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface PurchaseRecord {
  id: number;
  userId: number;
  idempotencyKey: string;
  listingIds: string[];
  totalCents: number;
  status: PurchaseStatus;
  error: string | null;
  createdAt: Date;
  settledAt: Date | null;
}

export type ReserveResult =
  | { ok: true; purchase: PurchaseRecord }
  /** The same idempotency key was reserved before: do not buy again; report that purchase. */
  | { ok: false; reason: "duplicate"; purchase: PurchaseRecord }
  | { ok: false; reason: "per_purchase_cap"; capCents: number }
  | { ok: false; reason: "daily_cap"; capCents: number; spentCents: number }
  | { ok: false; reason: "no_user" };

function toRecord(p: Purchase): PurchaseRecord {
  return {
    id: p.id,
    userId: p.userId,
    idempotencyKey: p.idempotencyKey,
    listingIds: p.listingIds,
    totalCents: centsFromDb(p.totalCents),
    status: p.status,
    error: p.error,
    createdAt: p.createdAt,
    settledAt: p.settledAt,
  };
}

const CapsRow = z.object({
  per_purchase_cap_cents: z.bigint().nullable(),
  daily_cap_cents: z.bigint().nullable(),
});
const SpentRow = z.object({ spent: z.bigint() });

/**
 * Checks the per-purchase and daily caps and inserts a pending purchase, holding the user's
 * row lock so concurrent reservations are decided one after the other. Pending and unknown
 * purchases count as spent until settled: an unknown outcome may have gone through.
 */
export async function reserveSpend(
  db: Db,
  input: { userId: number; idempotencyKey: string; listingIds: string[]; totalCents: number },
): Promise<ReserveResult> {
  const total = centsToDb(input.totalCents);
  try {
    return await withTransaction(db, async (tx) => {
      const caps = await tx.$queryRaw<unknown[]>`
        SELECT per_purchase_cap_cents, daily_cap_cents FROM users WHERE id = ${input.userId} FOR UPDATE`;
      if (caps.length === 0) return { ok: false, reason: "no_user" } as const;
      const { per_purchase_cap_cents: perCap, daily_cap_cents: dailyCap } = CapsRow.parse(caps[0]);

      const previous = await tx.purchase.findUnique({ where: { idempotencyKey: input.idempotencyKey } });
      if (previous) return { ok: false, reason: "duplicate", purchase: toRecord(previous) } as const;

      if (perCap !== null && total > perCap) {
        return { ok: false, reason: "per_purchase_cap", capCents: centsFromDb(perCap) } as const;
      }
      if (dailyCap !== null) {
        const [spentRow] = await tx.$queryRaw<unknown[]>`
          SELECT coalesce(sum(total_cents), 0)::bigint AS spent FROM purchases
           WHERE user_id = ${input.userId}
             AND status IN ('pending', 'succeeded', 'unknown')
             AND created_at > now() - ${DAILY_WINDOW_MS}::bigint * interval '1 millisecond'`;
        const { spent } = SpentRow.parse(spentRow);
        if (spent + total > dailyCap) {
          return {
            ok: false,
            reason: "daily_cap",
            capCents: centsFromDb(dailyCap),
            spentCents: centsFromDb(spent),
          } as const;
        }
      }
      const purchase = await tx.purchase.create({
        data: {
          userId: input.userId,
          idempotencyKey: input.idempotencyKey,
          listingIds: input.listingIds,
          totalCents: total,
        },
      });
      return { ok: true, purchase: toRecord(purchase) } as const;
    });
  } catch (err) {
    // Another user's row cannot hold this key's lock; the constraint is the last word.
    if (!isUniqueViolation(err)) throw err;
    const previous = await db.purchase.findUnique({ where: { idempotencyKey: input.idempotencyKey } });
    if (!previous) throw err;
    return { ok: false, reason: "duplicate", purchase: toRecord(previous) };
  }
}

/**
 * Settles a purchase. `unknown` (timeout, no answer) keeps counting against the cap; it can be
 * settled later. Returns false when the purchase was already settled as succeeded or failed.
 */
export async function settlePurchase(
  db: Db,
  id: number,
  outcome: { status: "succeeded" | "failed" | "unknown"; error?: string | null },
): Promise<boolean> {
  const { count } = await db.purchase.updateMany({
    where: { id, status: { in: ["pending", "unknown"] } },
    data: { status: outcome.status, error: outcome.error ?? null, settledAt: new Date() },
  });
  return count === 1;
}

export const completePurchase = (db: Db, id: number) => settlePurchase(db, id, { status: "succeeded" });
export const failPurchase = (db: Db, id: number, error: string) =>
  settlePurchase(db, id, { status: "failed", error });

/** Cents counted against the daily cap right now. */
export async function spentInWindow(db: Db, userId: number): Promise<number> {
  const [row] = await db.$queryRaw<unknown[]>`
    SELECT coalesce(sum(total_cents), 0)::bigint AS spent FROM purchases
     WHERE user_id = ${userId}
       AND status IN ('pending', 'succeeded', 'unknown')
       AND created_at > now() - ${DAILY_WINDOW_MS}::bigint * interval '1 millisecond'`;
  return centsFromDb(SpentRow.parse(row).spent);
}

export async function getPurchaseByKey(db: Db, idempotencyKey: string): Promise<PurchaseRecord | null> {
  const row = await db.purchase.findUnique({ where: { idempotencyKey } });
  return row ? toRecord(row) : null;
}

export async function listRecentPurchases(db: Db, userId: number, limit = 20): Promise<PurchaseRecord[]> {
  const rows = await db.purchase.findMany({ where: { userId }, orderBy: { id: "desc" }, take: limit });
  return rows.map(toRecord);
}

// Trade auto-accept: the user's switch and conditions, and the claim that lets one sale be
// accepted automatically once (unique per user and trade), whatever replica or restart sees it.
import type { Db } from "../types.ts";
import { nullableCentsFromDb, nullableCentsToDb } from "../types.ts";

export interface AutoAcceptSettings {
  enabled: boolean;
  /** Only sales at or above this price; null: any price. */
  minPriceCents: number | null;
  /** Only items whose name contains this (case-insensitive); null: any item. */
  itemContains: string | null;
}

export const AUTO_ACCEPT_OFF: AutoAcceptSettings = {
  enabled: false,
  minPriceCents: null,
  itemContains: null,
};

export async function getAutoAccept(db: Db, userId: number): Promise<AutoAcceptSettings> {
  const row = await db.autoAcceptSetting.findUnique({ where: { userId } });
  if (row === null) return AUTO_ACCEPT_OFF;
  return {
    enabled: row.enabled,
    minPriceCents: nullableCentsFromDb(row.minPriceCents),
    itemContains: row.itemContains,
  };
}

export async function saveAutoAccept(
  db: Db,
  userId: number,
  s: AutoAcceptSettings,
  /** The account it is turned on for (the user's link generation). */
  linkGeneration = 0,
): Promise<AutoAcceptSettings> {
  const data = {
    linkGeneration,
    enabled: s.enabled,
    minPriceCents: nullableCentsToDb(s.minPriceCents),
    itemContains: s.itemContains,
  };
  await db.autoAcceptSetting.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  return s;
}

export type AutoAcceptOutcome = "accepted" | "failed" | "unknown" | "skipped";

/**
 * Claims one sale for an automatic accept: the claim id for the one caller whose insert made the
 * row (one statement, so two pollers or a restart never accept, or tell, twice). The same
 * statement re-checks what the user turned on: auto-accept still on, on the account it was turned
 * on for, and the sale within its conditions as they stand now; otherwise nothing is claimed.
 * A user deleted meanwhile (/account delete) claims nothing: the key share lock waits for a
 * delete in progress.
 */
export async function claimAutoAccept(
  db: Db,
  userId: number,
  tradeId: string,
  sale: { priceCents: number | undefined; itemName: string | undefined },
): Promise<number | undefined> {
  const price = sale.priceCents === undefined ? null : BigInt(sale.priceCents);
  const name = sale.itemName ?? null;
  const rows = await db.$queryRaw<{ id: number }[]>`
    INSERT INTO auto_accepts (user_id, trade_id)
    SELECT u.id, ${tradeId}::text FROM users u
     WHERE u.id = ${userId}::int AND u.status = 'active' AND u.encrypted_key IS NOT NULL
       AND EXISTS (
         SELECT 1 FROM auto_accept_settings s
          WHERE s.user_id = u.id AND s.enabled AND s.link_generation = u.link_generation
            AND (s.min_price_cents IS NULL OR coalesce(${price}::bigint >= s.min_price_cents, false))
            AND (s.item_contains IS NULL
                 OR coalesce(strpos(lower(${name}::text), lower(s.item_contains)) > 0, false)))
       FOR KEY SHARE OF u
    ON CONFLICT (user_id, trade_id) DO NOTHING
    RETURNING id`;
  return rows[0]?.id;
}

export async function settleAutoAccept(
  db: Db,
  id: number,
  outcome: AutoAcceptOutcome,
  detail: string | undefined,
  at: Date,
): Promise<void> {
  // updateMany: the claim is gone when its owner deleted their account meanwhile; no error then.
  await db.autoAccept.updateMany({ where: { id }, data: { outcome, detail: detail ?? null, settledAt: at } });
}

/** A claim still pending this long was left by a crash between the claim and its outcome. */
const ABANDONED_AFTER_MS = 5 * 60_000;

/**
 * The user's automatic accepts whose outcome is not known (trade id -> claim id): told as not
 * confirmed, or claimed by a pass that crashed before it knew (pending for minutes).
 */
export async function unknownAutoAccepts(db: Db, userId: number, at: Date): Promise<Map<string, number>> {
  const rows = await db.autoAccept.findMany({
    where: {
      userId,
      OR: [
        { outcome: "unknown" },
        { outcome: "pending", createdAt: { lt: new Date(at.getTime() - ABANDONED_AFTER_MS) } },
      ],
    },
    select: { id: true, tradeId: true },
  });
  return new Map(rows.map((r) => [r.tradeId, r.id]));
}

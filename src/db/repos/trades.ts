// Trades a user is part of: last state seen and last state alerted, plus reminder bookkeeping.
import type { TrackedTrade } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

export type TradeRole = "buyer" | "seller";

export interface TrackedTradeRecord {
  id: number;
  userId: number;
  tradeId: string;
  role: TradeRole;
  lastKnownState: string;
  lastNotifiedState: string | null;
  expiresAt: Date | null;
  remindersSent: number;
  lastReminderAt: Date | null;
  closedAt: Date | null;
}

function toRecord(t: TrackedTrade): TrackedTradeRecord {
  return {
    id: t.id,
    userId: t.userId,
    tradeId: t.tradeId,
    role: t.role,
    lastKnownState: t.lastKnownState,
    lastNotifiedState: t.lastNotifiedState,
    expiresAt: t.expiresAt,
    remindersSent: t.remindersSent,
    lastReminderAt: t.lastReminderAt,
    closedAt: t.closedAt,
  };
}

/** Records the trade's current state (creating the row on first sight). */
export async function upsertTrackedTrade(
  db: Db,
  input: { userId: number; tradeId: string; role: TradeRole; state: string; expiresAt?: Date | null },
): Promise<TrackedTradeRecord> {
  const row = await db.trackedTrade.upsert({
    where: { userId_tradeId: { userId: input.userId, tradeId: input.tradeId } },
    create: {
      userId: input.userId,
      tradeId: input.tradeId,
      role: input.role,
      lastKnownState: input.state,
      expiresAt: input.expiresAt ?? null,
    },
    update: {
      lastKnownState: input.state,
      ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
    },
  });
  return toRecord(row);
}

export async function getTrackedTrade(
  db: Db,
  userId: number,
  tradeId: string,
): Promise<TrackedTradeRecord | null> {
  const row = await db.trackedTrade.findUnique({ where: { userId_tradeId: { userId, tradeId } } });
  return row ? toRecord(row) : null;
}

/** Open (not closed) trades, a page at a time in id order. */
export async function listOpenTrades(
  db: Db,
  opts: { userId?: number; afterId?: number; limit?: number } = {},
): Promise<TrackedTradeRecord[]> {
  const rows = await db.trackedTrade.findMany({
    where: {
      closedAt: null,
      id: { gt: opts.afterId ?? 0 },
      ...(opts.userId !== undefined ? { userId: opts.userId } : {}),
    },
    orderBy: { id: "asc" },
    take: opts.limit ?? 500,
  });
  return rows.map(toRecord);
}

/** Marks `state` as alerted; true only if it was not already (one alert per state change). */
export async function markTradeNotified(db: Db, id: number, state: string): Promise<boolean> {
  const { count } = await db.trackedTrade.updateMany({
    where: { id, OR: [{ lastNotifiedState: null }, { lastNotifiedState: { not: state } }] },
    data: { lastNotifiedState: state },
  });
  return count === 1;
}

/**
 * Counts a reminder if none was sent since `notAfter` (so two pollers do not both remind).
 * True when this call claimed the reminder.
 */
export async function claimTradeReminder(db: Db, id: number, notAfter: Date): Promise<boolean> {
  const { count } = await db.trackedTrade.updateMany({
    where: { id, closedAt: null, OR: [{ lastReminderAt: null }, { lastReminderAt: { lt: notAfter } }] },
    data: { remindersSent: { increment: 1 }, lastReminderAt: new Date() },
  });
  return count === 1;
}

/** A finished trade stays (so the list poller does not re-open it) but is no longer polled. */
export async function closeTrade(db: Db, id: number, finalState: string): Promise<boolean> {
  const { count } = await db.trackedTrade.updateMany({
    where: { id, closedAt: null },
    data: { closedAt: new Date(), lastKnownState: finalState },
  });
  return count === 1;
}

/**
 * Of these users, those whose money a reversal could still take back: a trade the bot saw that
 * is still open or ended after `since` (the reversal window), or a purchase settled after it.
 * One query per trade cycle; everyone else's rollback ledger is not read (nothing to reverse).
 */
export async function usersWhoseTradesMayBeReversed(
  db: Db,
  userIds: readonly number[],
  since: Date,
): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.$queryRaw<{ user_id: number }[]>`
    SELECT DISTINCT user_id FROM tracked_trades
     WHERE user_id = ANY(${[...userIds]}::int[]) AND (closed_at IS NULL OR closed_at > ${since})
    UNION
    SELECT DISTINCT user_id FROM purchases
     WHERE user_id = ANY(${[...userIds]}::int[]) AND kind IN ('buy', 'auto_buy', 'bid', 'offer', 'buy_order')
       AND status = 'succeeded' AND coalesce(settled_at, created_at) > ${since}`;
  return new Set(rows.map((r) => r.user_id));
}

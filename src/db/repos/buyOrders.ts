// Buy orders a user placed, with the filled count last seen, so each fill alerts once.
import type { TrackedBuyOrder } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

export interface TrackedBuyOrderRecord {
  id: number;
  userId: number;
  orderId: string;
  lastBoughtCount: number;
}

function toRecord(o: TrackedBuyOrder): TrackedBuyOrderRecord {
  return { id: o.id, userId: o.userId, orderId: o.orderId, lastBoughtCount: o.lastBoughtCount };
}

/** Starts tracking (or keeps the existing count when already tracked). */
export async function trackBuyOrder(
  db: Db,
  input: { userId: number; orderId: string; boughtCount?: number },
): Promise<TrackedBuyOrderRecord> {
  const row = await db.trackedBuyOrder.upsert({
    where: { userId_orderId: { userId: input.userId, orderId: input.orderId } },
    create: { userId: input.userId, orderId: input.orderId, lastBoughtCount: input.boughtCount ?? 0 },
    update: {},
  });
  return toRecord(row);
}

export async function listTrackedBuyOrders(
  db: Db,
  opts: { userId?: number; afterId?: number; limit?: number } = {},
): Promise<TrackedBuyOrderRecord[]> {
  const rows = await db.trackedBuyOrder.findMany({
    where: { id: { gt: opts.afterId ?? 0 }, ...(opts.userId !== undefined ? { userId: opts.userId } : {}) },
    orderBy: { id: "asc" },
    take: opts.limit ?? 500,
  });
  return rows.map(toRecord);
}

/**
 * Compare-and-set of the bought count: true only when it was still `expected`, so concurrent
 * pollers alert a fill once.
 */
export async function advanceBoughtCount(
  db: Db,
  id: number,
  expected: number,
  next: number,
): Promise<boolean> {
  const { count } = await db.trackedBuyOrder.updateMany({
    where: { id, lastBoughtCount: expected },
    data: { lastBoughtCount: next },
  });
  return count === 1;
}

export async function untrackBuyOrder(db: Db, userId: number, orderId: string): Promise<boolean> {
  const { count } = await db.trackedBuyOrder.deleteMany({ where: { userId, orderId } });
  return count === 1;
}

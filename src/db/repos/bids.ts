// Auctions a user bid on, with what the bid poller saw last, so a change alerts exactly once.
import type { TrackedBid } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, nullableCentsFromDb, nullableCentsToDb } from "../types.ts";

export type BidStatus = "active" | "outbid" | "won" | "lost" | "cancelled";

export interface TrackedBidRecord {
  id: number;
  userId: number;
  listingId: string;
  maxPriceCents: number;
  lastSeenTopBidCents: number | null;
  lastSeenTopBidderIsUser: boolean | null;
  status: BidStatus;
  expiresAt: Date | null;
  updatedAt: Date;
}

function toRecord(b: TrackedBid): TrackedBidRecord {
  return {
    id: b.id,
    userId: b.userId,
    listingId: b.listingId,
    maxPriceCents: centsFromDb(b.maxPriceCents),
    lastSeenTopBidCents: nullableCentsFromDb(b.lastSeenTopBidCents),
    lastSeenTopBidderIsUser: b.lastSeenTopBidderIsUser,
    status: b.status,
    expiresAt: b.expiresAt,
    updatedAt: b.updatedAt,
  };
}

/** Starts or refreshes tracking after the user bids; a raised bid makes it active again. */
export async function trackBid(
  db: Db,
  input: { userId: number; listingId: string; maxPriceCents: number; expiresAt?: Date | null },
): Promise<TrackedBidRecord> {
  const fields = {
    maxPriceCents: centsToDb(input.maxPriceCents),
    expiresAt: input.expiresAt ?? null,
    status: "active" as const,
  };
  const row = await db.trackedBid.upsert({
    where: { userId_listingId: { userId: input.userId, listingId: input.listingId } },
    create: { userId: input.userId, listingId: input.listingId, ...fields },
    update: fields,
  });
  return toRecord(row);
}

export async function getTrackedBid(
  db: Db,
  userId: number,
  listingId: string,
): Promise<TrackedBidRecord | null> {
  const row = await db.trackedBid.findUnique({ where: { userId_listingId: { userId, listingId } } });
  return row ? toRecord(row) : null;
}

export async function listBidsForUser(db: Db, userId: number): Promise<TrackedBidRecord[]> {
  const rows = await db.trackedBid.findMany({ where: { userId }, orderBy: { id: "asc" } });
  return rows.map(toRecord);
}

/** Bids the poller should look at (active or outbid: an outbid user may still raise), by id page. */
export async function listOpenBids(
  db: Db,
  opts: { afterId?: number; limit?: number } = {},
): Promise<TrackedBidRecord[]> {
  const rows = await db.trackedBid.findMany({
    where: { status: { in: ["active", "outbid"] }, id: { gt: opts.afterId ?? 0 } },
    orderBy: { id: "asc" },
    take: opts.limit ?? 500,
  });
  return rows.map(toRecord);
}

/** Stores what the poller saw. */
export async function recordBidObservation(
  db: Db,
  id: number,
  seen: { topBidCents: number | null; topBidderIsUser: boolean | null },
): Promise<void> {
  await db.trackedBid.update({
    where: { id },
    data: {
      lastSeenTopBidCents: nullableCentsToDb(seen.topBidCents),
      lastSeenTopBidderIsUser: seen.topBidderIsUser,
    },
  });
}

/**
 * Moves a bid from one of `from` to `to`. True only for the caller that made the change, so the
 * alert for it is queued once even when two pollers race.
 */
export async function transitionBid(
  db: Db,
  id: number,
  from: readonly BidStatus[],
  to: BidStatus,
): Promise<boolean> {
  const { count } = await db.trackedBid.updateMany({
    where: { id, status: { in: [...from] } },
    data: { status: to },
  });
  return count === 1;
}

export async function untrackBid(db: Db, userId: number, listingId: string): Promise<boolean> {
  const { count } = await db.trackedBid.deleteMany({ where: { userId, listingId } });
  return count === 1;
}

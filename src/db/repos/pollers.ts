// What the per-user pollers (bids, trades, reminders, reconciler) read and write each cycle, and
// who needs reading often: the queries behind src/accountPollers/{bidPoller,tradePoller,pollPlan,reconciler}.
import type { Db } from "../types.ts";

/** Linked, active users with what the per-user pollers need. */
export function linkedUsersForPolling(db: Db) {
  return db.user.findMany({
    where: { status: "active", encryptedKey: { not: null } },
    select: {
      id: true,
      discordId: true,
      platformId: true,
      linkedAt: true,
      encryptedKey: true,
      alertTrade: true,
      alertBuyOrder: true,
    },
    orderBy: { id: "asc" },
  });
}

/** The users behind `ids` with what opening their key needs (the reconciler's commitments). */
export function keyedUsersByIds(db: Db, ids: readonly number[]) {
  return db.user.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, discordId: true, platformId: true, linkedAt: true, encryptedKey: true },
  });
}

// ---------------------------------------------------------------------------------------------
// Bids

/** Tracked bids still worth polling (active or outbid), with their active owners. */
export function openBidsWithOwners(db: Db) {
  return db.trackedBid.findMany({
    where: { status: { in: ["active", "outbid"] }, user: { status: "active" } },
    select: {
      id: true,
      userId: true,
      listingId: true,
      maxPriceCents: true,
      status: true,
      expiresAt: true,
      user: {
        select: {
          id: true,
          discordId: true,
          platformId: true,
          linkedAt: true,
          encryptedKey: true,
          alertOutbid: true,
        },
      },
    },
    orderBy: { id: "asc" },
  });
}

/**
 * Stores what the bid poller saw. Guarded by the ceiling it read: a raise made meanwhile (new
 * ceiling, status active) is not overwritten by this cycle's view of the old one.
 */
export async function recordBidState(
  db: Db,
  bid: { id: number; maxPriceCents: bigint },
  seen: {
    status: "active" | "outbid" | "won" | "lost" | "cancelled";
    topBidCents: number | undefined;
    topIsUser: boolean | null;
    expiresAt: Date | undefined;
  },
): Promise<void> {
  await db.trackedBid.updateMany({
    where: { id: bid.id, maxPriceCents: bid.maxPriceCents },
    data: {
      status: seen.status,
      lastSeenTopBidCents: seen.topBidCents === undefined ? null : BigInt(seen.topBidCents),
      lastSeenTopBidderIsUser: seen.topIsUser,
      ...(seen.expiresAt === undefined ? {} : { expiresAt: seen.expiresAt }),
    },
  });
}

export async function cancelBidsOnListing(db: Db, listingId: string): Promise<void> {
  await db.trackedBid.updateMany({
    where: { listingId, status: { in: ["active", "outbid"] } },
    data: { status: "cancelled" },
  });
}

// ---------------------------------------------------------------------------------------------
// Trades

/**
 * Records a trade's state as observed. `remindersSent` is the number of reminder steps whose
 * window the deadline is already in: the alert going out now shows the deadline, so those
 * reminders would only repeat it.
 */
export async function saveTradeObservation(
  db: Db,
  input: {
    userId: number;
    tradeId: string;
    role: "buyer" | "seller";
    state: string;
    notified: boolean;
    deadline: Date | null;
    remindersSent: number;
    closedAt: Date | null;
  },
): Promise<void> {
  await db.trackedTrade.upsert({
    where: { userId_tradeId: { userId: input.userId, tradeId: input.tradeId } },
    create: {
      userId: input.userId,
      tradeId: input.tradeId,
      role: input.role,
      lastKnownState: input.state,
      lastNotifiedState: input.notified ? input.state : null,
      expiresAt: input.deadline,
      remindersSent: input.remindersSent,
      closedAt: input.closedAt,
    },
    update: {
      lastKnownState: input.state,
      ...(input.notified ? { lastNotifiedState: input.state } : {}),
      expiresAt: input.deadline,
      remindersSent: input.remindersSent,
      lastReminderAt: null,
      closedAt: input.closedAt,
    },
  });
}

export async function closeTrackedTrade(db: Db, id: number, at: Date): Promise<void> {
  await db.trackedTrade.updateMany({ where: { id, closedAt: null }, data: { closedAt: at } });
}

/** Sellers' open trades whose deadline falls inside the reminder horizon. */
export function tradesNearingDeadline(db: Db, at: Date, horizon: Date) {
  return db.trackedTrade.findMany({
    where: {
      closedAt: null,
      role: "seller",
      lastKnownState: { in: ["queued", "pending"] },
      expiresAt: { gt: at, lte: horizon },
      user: { status: "active", alertTrade: true },
    },
    select: {
      id: true,
      userId: true,
      tradeId: true,
      lastKnownState: true,
      expiresAt: true,
      remindersSent: true,
    },
  });
}

/** Counts reminder step `step` as sent; only forward, so two pollers cannot send one step twice. */
export async function recordReminder(db: Db, id: number, step: number, at: Date): Promise<void> {
  await db.trackedTrade.updateMany({
    where: { id, remindersSent: { lt: step } },
    data: { remindersSent: step, lastReminderAt: at },
  });
}

// ---------------------------------------------------------------------------------------------
// Who needs reading often (src/accountPollers/pollPlan.ts pollNeeds)

/** Every open tracked trade's owner and deadline. */
export function openTradeDeadlines(db: Db) {
  return db.trackedTrade.findMany({ where: { closedAt: null }, select: { userId: true, expiresAt: true } });
}

/** Users with a trade verified (and closed) at or after `since`: it can still be reversed. */
export function usersWithTradesVerifiedSince(db: Db, since: Date) {
  return db.trackedTrade.findMany({
    where: { lastKnownState: "verified", closedAt: { gte: since } },
    select: { userId: true },
    distinct: ["userId"],
  });
}

/** Users with an active bid on an auction ending by `by`, or whose end is unknown. */
export function usersWithBidsEndingBy(db: Db, by: Date) {
  return db.trackedBid.findMany({
    where: { status: "active", OR: [{ expiresAt: null }, { expiresAt: { lte: by } }] },
    select: { userId: true },
    distinct: ["userId"],
  });
}

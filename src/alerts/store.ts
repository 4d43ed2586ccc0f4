// Alert persistence on top of src/db/repos, plus the few queries the repositories do not have.
import type { AlertKind, Destination, Prisma } from "../generated/prisma/client.ts";
import { insertAlertsWithOutbox } from "../db/repos/alerts.ts";
import { withTransaction, type Db } from "../db/types.ts";
import { enqueueMessage, releaseHeld as releaseAllHeld, takeHeld } from "../db/repos/outbox.ts";
import { mergeSameListing } from "./grouping.ts";
import { OutboxPayload, toOutboxPayload, type AlertContent } from "./payload.ts";

export interface NewAlert {
  userId: number;
  ruleId?: number | undefined;
  /** Other rules the alert stands for (a listing alert groups the user's matching rules): counted as matched too. */
  alsoRuleIds?: readonly number[] | undefined;
  kind: AlertKind;
  /** What the alert is about: listing, trade or order id ("" for account-wide alerts). */
  subjectId: string;
  /** Which version of the subject (price, state, count): kept for audits. */
  version: string;
  /** Unique forever: a second insert with the same key is silently skipped. */
  dedupeKey: string;
  destination: Destination;
  channelId?: string | null | undefined;
  alert: AlertContent;
  /** Not claimable for this long: see releaseHeldBack (src/db/repos/outbox.ts). */
  holdMs?: number | undefined;
}

/**
 * Writes alert rows and their outbox rows (src/db/repos/alerts.ts: one statement, ON CONFLICT DO
 * NOTHING on the dedupe key) in one transaction with `alsoInTx`, for poller state that must move
 * with its alerts. Returns the dedupe keys actually written: a key seen before (another replica,
 * a re-read after a crash) writes nothing.
 */
export async function writeAlerts(
  prisma: Db,
  alerts: readonly NewAlert[],
  alsoInTx?: (tx: Db) => Promise<void>,
): Promise<string[]> {
  if (alerts.length === 0 && alsoInTx === undefined) return [];
  // Parse on the way in: a bad payload should fail the poller that built it, not the sender.
  const rows = alerts.map((a) => ({
    userId: a.userId,
    ruleId: a.ruleId ?? null,
    ...(a.alsoRuleIds === undefined || a.alsoRuleIds.length === 0 ? {} : { alsoRuleIds: a.alsoRuleIds }),
    kind: a.kind,
    subjectId: a.subjectId,
    version: a.version,
    dedupeKey: a.dedupeKey,
    destination: a.destination,
    channelId: a.destination === "channel" ? (a.channelId ?? null) : null,
    payload: toOutboxPayload(a.alert) as Prisma.InputJsonValue,
    ...(a.holdMs === undefined ? {} : { holdMs: a.holdMs }),
  }));
  return withTransaction(prisma, async (tx) => {
    const inserted = rows.length > 0 ? await insertAlertsWithOutbox(tx, rows) : [];
    if (alsoInTx) await alsoInTx(tx);
    return inserted.map((i) => i.dedupeKey);
  });
}

// ---------------------------------------------------------------------------------------------
// Outbox transitions the repository does not have

async function settle(
  prisma: Db,
  id: number,
  workerId: string,
  data: Prisma.OutboxUpdateManyMutationInput,
): Promise<boolean> {
  const res = await prisma.outbox.updateMany({
    where: { id, lockedBy: workerId, status: "sending" },
    data: { ...data, lockedBy: null, lockedUntil: null },
  });
  return res.count === 1;
}

/** Quiet hours: the claimed row waits, and the claim does not count as an attempt. */
export function holdClaimed(prisma: Db, id: number, workerId: string): Promise<boolean> {
  return settle(prisma, id, workerId, { status: "held", attempts: { decrement: 1 } });
}

/** Closed DMs: the claimed row goes to a channel instead, due at once. */
export function redirectClaimed(
  prisma: Db,
  id: number,
  workerId: string,
  channelId: string,
  reason: string,
): Promise<boolean> {
  return settle(prisma, id, workerId, {
    status: "pending",
    destination: "channel",
    channelId,
    nextAttemptAt: new Date(),
    lastError: reason,
  });
}

/** Most items a digest lists one by one; the rest are counted. */
export const DIGEST_MAX_ITEMS = 10;

/**
 * Ends a user's quiet hours: their held rows become ONE digest row (or, when only one was held,
 * that row simply goes out). Atomic, and the held rows are taken with SKIP LOCKED, so two
 * workers racing here produce one digest. Returns how many held rows were released.
 */
export async function releaseHeldAsDigest(prisma: Db, userId: number): Promise<number> {
  return withTransaction(prisma, async (tx) => {
    const count = await tx.outbox.count({ where: { userId, status: "held" } });
    if (count === 0) return 0;
    // A digest of one is just a worse copy of the alert (no buttons): send the alert itself.
    if (count === 1) return releaseAllHeld(tx, userId);
    const held = await takeHeld(tx, userId);
    if (held.length === 0) return 0;
    const parsedItems = held.flatMap((h) => {
      const parsed = OutboxPayload.safeParse(h.payload);
      return parsed.success && parsed.data.alert.kind !== "digest" ? [parsed.data.alert] : [];
    });
    // The digest counts listings: alerts about one listing (one per rule before grouping) are one item.
    const items = mergeSameListing(
      parsedItems,
      (a) => a,
      (_, merged) => merged,
    );
    const alert: AlertContent = {
      kind: "digest",
      items: items.slice(0, DIGEST_MAX_ITEMS),
      omitted: Math.max(0, items.length - DIGEST_MAX_ITEMS),
    };
    const first = held[0]?.id ?? 0;
    const last = held[held.length - 1]?.id ?? 0;
    const [row] = await insertAlertsWithOutbox(tx, [
      {
        userId,
        kind: "digest",
        subjectId: String(first),
        version: String(held.length),
        dedupeKey: `digest:${userId}:${first}-${last}`,
        destination: "dm",
        payload: toOutboxPayload(alert) as Prisma.InputJsonValue,
      },
    ]);
    // The key cannot exist (these rows were just taken), but never lose alerts if it somehow does.
    if (row === undefined) {
      await enqueueMessage(tx, {
        userId,
        destination: "dm",
        payload: toOutboxPayload(alert) as Prisma.InputJsonValue,
      });
    }
    return held.length;
  });
}

// ---------------------------------------------------------------------------------------------
// Pollers' reads and writes

/** Linked, active users with what the per-user pollers need. */
export function linkedUsersForPolling(prisma: Db) {
  return prisma.user.findMany({
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

/** Tracked bids still worth polling (active or outbid), with their active owners. */
export function openBidsWithOwners(prisma: Db) {
  return prisma.trackedBid.findMany({
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
  tx: Db,
  bid: { id: number; maxPriceCents: bigint },
  seen: {
    status: "active" | "outbid" | "won" | "lost" | "cancelled";
    topBidCents: number | undefined;
    topIsUser: boolean | null;
    expiresAt: Date | undefined;
  },
): Promise<void> {
  await tx.trackedBid.updateMany({
    where: { id: bid.id, maxPriceCents: bid.maxPriceCents },
    data: {
      status: seen.status,
      lastSeenTopBidCents: seen.topBidCents === undefined ? null : BigInt(seen.topBidCents),
      lastSeenTopBidderIsUser: seen.topIsUser,
      ...(seen.expiresAt === undefined ? {} : { expiresAt: seen.expiresAt }),
    },
  });
}

export async function cancelBidsOnListing(prisma: Db, listingId: string): Promise<void> {
  await prisma.trackedBid.updateMany({
    where: { listingId, status: { in: ["active", "outbid"] } },
    data: { status: "cancelled" },
  });
}

/**
 * Records a trade's state as observed. `remindersSent` is the number of reminder steps whose
 * window the deadline is already in: the alert going out now shows the deadline, so those
 * reminders would only repeat it.
 */
export async function saveTradeObservation(
  tx: Db,
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
  await tx.trackedTrade.upsert({
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

export async function closeTrackedTrade(prisma: Db, id: number, at: Date): Promise<void> {
  await prisma.trackedTrade.updateMany({ where: { id, closedAt: null }, data: { closedAt: at } });
}

/** Sellers' open trades whose deadline falls inside the reminder horizon. */
export function tradesNearingDeadline(prisma: Db, at: Date, horizon: Date) {
  return prisma.trackedTrade.findMany({
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
export async function recordReminder(tx: Db, id: number, step: number, at: Date): Promise<void> {
  await tx.trackedTrade.updateMany({
    where: { id, remindersSent: { lt: step } },
    data: { remindersSent: step, lastReminderAt: at },
  });
}

// ---------------------------------------------------------------------------------------------
// Users as delivery reads them (the rules the engine reads are in ruleStore.ts)

/** What delivery needs about the users of a batch: quiet hours and where a closed DM falls back to. */
export function deliveryUsers(prisma: Db, ids: readonly number[]) {
  return prisma.user.findMany({
    where: { id: { in: [...ids] } },
    select: {
      id: true,
      quietHoursStart: true,
      quietHoursEnd: true,
      timezone: true,
      dmClosedAt: true,
      defaultChannelId: true,
    },
  });
}

/** The channel of the rule behind an alert, if the rule has one. */
export async function ruleChannelOfAlert(prisma: Db, alertId: number): Promise<string | undefined> {
  const row = await prisma.alertLog.findUnique({
    where: { id: alertId },
    select: { rule: { select: { channelId: true } } },
  });
  return row?.rule?.channelId ?? undefined;
}

/** A user's latest alerts with their delivery state, newest first. */
export function latestAlerts(prisma: Db, discordId: string, take: number) {
  return prisma.alertLog.findMany({
    where: { user: { discordId }, kind: { not: "digest" } },
    orderBy: { id: "desc" },
    take,
    select: {
      userId: true,
      createdAt: true,
      kind: true,
      subjectId: true,
      goneAt: true,
      goneState: true,
      outbox: { select: { status: true, payload: true } },
    },
  });
}

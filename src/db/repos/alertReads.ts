// Reads of the alert log beside its writes (alerts.ts): a user's latest alerts, the dedupe keys
// already written (trade arrivals, reversals), and a week's listing alerts for the weekly report.
import type { Db } from "../types.ts";
import type { AlertKind } from "./alerts.ts";

/** A user's latest alerts with their delivery state, newest first (digests left out). */
export function latestAlerts(db: Db, discordId: string, take: number) {
  return db.alertLog.findMany({
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

/** Of `keys`, the dedupe keys already written. */
export async function existingDedupeKeys(db: Db, keys: readonly string[]): Promise<string[]> {
  const rows = await db.alertLog.findMany({
    where: { dedupeKey: { in: [...keys] } },
    select: { dedupeKey: true },
  });
  return rows.map((r) => r.dedupeKey);
}

/** The dedupe keys of the user's `kind` alerts about `subjectId` that start with `prefix`. */
export async function dedupeKeysStartingWith(
  db: Db,
  where: { userId: number; kind: AlertKind; subjectId: string; prefix: string },
): Promise<string[]> {
  const rows = await db.alertLog.findMany({
    where: {
      userId: where.userId,
      kind: where.kind,
      subjectId: where.subjectId,
      dedupeKey: { startsWith: where.prefix },
    },
    select: { dedupeKey: true },
  });
  return rows.map((r) => r.dedupeKey);
}

/**
 * Listing alerts written in [since, until] to users who still take listing alerts and are not
 * revoked, oldest first, with their outbox payload (the prices shown).
 */
export function listingAlertsBetween(db: Db, since: Date, until: Date) {
  return db.alertLog.findMany({
    where: {
      kind: "listing",
      createdAt: { gte: since, lte: until },
      user: { status: { not: "revoked" }, alertListing: true },
    },
    orderBy: { id: "asc" },
    select: {
      userId: true,
      subjectId: true,
      version: true,
      createdAt: true,
      goneAt: true,
      goneState: true,
      outbox: { select: { payload: true } },
    },
  });
}

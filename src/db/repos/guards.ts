// Buy-order and listing guards: their settings, their on/off state (only the owner's rows are
// ever changed), and the events that count towards the daily limit and go out in digests.
import type { Guard, GuardEvent } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, nullableCentsFromDb } from "../types.ts";

export type GuardKind = "buy_order" | "listing";
export type GuardStatus = "active" | "stopped" | "off";
export type GuardEventKind = "change" | "limit" | "stopped";

export interface GuardRecord {
  id: number;
  userId: number;
  kind: GuardKind;
  subjectId: string;
  itemName: string | null;
  /** Ceiling (buy order) or floor (listing). */
  limitCents: number;
  stepCents: number;
  maxChangesPerDay: number;
  status: GuardStatus;
  stopReason: string | null;
  lastPriceCents: number | null;
  /** The user's link generation when it was set: it acts only on that account. */
  linkGeneration: number;
}

export interface GuardEventRecord {
  id: number;
  guardId: number;
  userId: number;
  kind: GuardEventKind;
  fromCents: number | null;
  toCents: number | null;
  rivalCents: number | null;
  detail: string | null;
  at: Date;
}

const KINDS: readonly GuardKind[] = ["buy_order", "listing"];
const STATUSES: readonly GuardStatus[] = ["active", "stopped", "off"];
const EVENT_KINDS: readonly GuardEventKind[] = ["change", "limit", "stopped"];

function oneOf<T extends string>(values: readonly T[], raw: string, what: string): T {
  const found = values.find((v) => v === raw);
  if (found === undefined) throw new Error(`unknown guard ${what} ${raw}`);
  return found;
}

function toRecord(g: Guard): GuardRecord {
  return {
    id: g.id,
    userId: g.userId,
    kind: oneOf(KINDS, g.kind, "kind"),
    subjectId: g.subjectId,
    itemName: g.itemName,
    limitCents: centsFromDb(g.limitCents),
    stepCents: centsFromDb(g.stepCents),
    maxChangesPerDay: g.maxChangesPerDay,
    status: oneOf(STATUSES, g.status, "status"),
    stopReason: g.stopReason,
    lastPriceCents: nullableCentsFromDb(g.lastPriceCents),
    linkGeneration: g.linkGeneration,
  };
}

function toEvent(e: GuardEvent): GuardEventRecord {
  return {
    id: e.id,
    guardId: e.guardId,
    userId: e.userId,
    kind: oneOf(EVENT_KINDS, e.kind, "event"),
    fromCents: nullableCentsFromDb(e.fromCents),
    toCents: nullableCentsFromDb(e.toCents),
    rivalCents: nullableCentsFromDb(e.rivalCents),
    detail: e.detail,
    at: e.at,
  };
}

/** Sets (or resets) the user's guard on one order or listing, active from now. */
export async function saveGuard(
  db: Db,
  g: {
    userId: number;
    kind: GuardKind;
    subjectId: string;
    itemName: string | null;
    limitCents: number;
    stepCents: number;
    maxChangesPerDay: number;
    priceCents: number;
    linkGeneration: number;
  },
): Promise<GuardRecord> {
  const data = {
    linkGeneration: g.linkGeneration,
    itemName: g.itemName,
    limitCents: centsToDb(g.limitCents),
    stepCents: centsToDb(g.stepCents),
    maxChangesPerDay: g.maxChangesPerDay,
    status: "active",
    stopReason: null,
    lastPriceCents: centsToDb(g.priceCents),
  };
  const row = await db.guard.upsert({
    where: { userId_kind_subjectId: { userId: g.userId, kind: g.kind, subjectId: g.subjectId } },
    create: { userId: g.userId, kind: g.kind, subjectId: g.subjectId, ...data },
    update: data,
  });
  return toRecord(row);
}

/** Turns the user's own guard off; undefined when they have no such guard (someone else's included). */
export async function turnGuardOff(
  db: Db,
  userId: number,
  which: { id: number } | { kind: GuardKind; subjectId: string },
): Promise<GuardRecord | undefined> {
  const where =
    "id" in which ? { id: which.id, userId } : { userId, kind: which.kind, subjectId: which.subjectId };
  const found = await db.guard.findFirst({ where });
  if (found === null) return undefined;
  const row = await db.guard.update({
    where: { id: found.id },
    data: { status: "off", stopReason: "turned off" },
  });
  return toRecord(row);
}

/**
 * The guard as stored now, while it is still on, on the account it was set on; undefined once it
 * was turned off or stopped, or the account changed. Read just before each automatic write, so
 * the write is bounded by the ceiling or floor and the step stored at that moment (a `/sell
 * guard` or `/buyorder guard` run since the pass began may have changed them), not by the ones
 * the pass started with.
 */
export async function guardAsStored(db: Db, guard: GuardRecord): Promise<GuardRecord | undefined> {
  const row = await db.guard.findFirst({
    where: {
      id: guard.id,
      userId: guard.userId,
      status: "active",
      linkGeneration: guard.linkGeneration,
      user: { linkGeneration: guard.linkGeneration, status: "active", encryptedKey: { not: null } },
    },
  });
  return row === null ? undefined : toRecord(row);
}

/** Whether the guard is still on, on the account it was set on (see guardAsStored). */
export async function guardStillOn(db: Db, guard: GuardRecord): Promise<boolean> {
  return (await guardAsStored(db, guard)) !== undefined;
}

export async function activeGuards(db: Db): Promise<GuardRecord[]> {
  const rows = await db.guard.findMany({ where: { status: "active" }, orderBy: { id: "asc" } });
  return rows.map(toRecord);
}

export async function guardsOf(db: Db, userId: number, ids: readonly number[]): Promise<GuardRecord[]> {
  const rows = await db.guard.findMany({ where: { userId, id: { in: [...ids] } } });
  return rows.map(toRecord);
}

/**
 * Records what a guard did, and moves the guard with it in one transaction: a change sets its
 * last price, a stop ends it (only while still active: an "off" pressed meanwhile stays off).
 */
export async function recordGuardEvent(
  db: Db,
  guard: GuardRecord,
  e: {
    kind: GuardEventKind;
    fromCents?: number;
    toCents?: number;
    rivalCents?: number;
    detail?: string;
    at: Date;
  },
): Promise<void> {
  const event = {
    guardId: guard.id,
    userId: guard.userId,
    kind: e.kind,
    fromCents: e.fromCents === undefined ? null : centsToDb(e.fromCents),
    toCents: e.toCents === undefined ? null : centsToDb(e.toCents),
    rivalCents: e.rivalCents === undefined ? null : centsToDb(e.rivalCents),
    detail: e.detail ?? null,
    at: e.at,
  };
  const move =
    e.kind === "stopped"
      ? { status: "stopped", stopReason: e.detail ?? null }
      : e.kind === "change" && e.toCents !== undefined
        ? { lastPriceCents: centsToDb(e.toCents) }
        : undefined;
  await db.$transaction(async (tx) => {
    await tx.guardEvent.create({ data: event });
    if (move !== undefined)
      await tx.guard.updateMany({ where: { id: guard.id, status: "active" }, data: move });
  });
}

/** Events of this kind in the 24 hours before `at` (the daily limit is a rolling day). */
export function eventsInLastDay(db: Db, guardId: number, kind: GuardEventKind, at: Date): Promise<number> {
  return db.guardEvent.count({
    where: { guardId, kind, at: { gt: new Date(at.getTime() - 24 * 60 * 60_000), lte: at } },
  });
}

/** Users with events not yet told, and those events, oldest first. */
export async function undigestedEvents(db: Db): Promise<Map<number, GuardEventRecord[]>> {
  const rows = await db.guardEvent.findMany({ where: { digestedAt: null }, orderBy: { id: "asc" } });
  const byUser = new Map<number, GuardEventRecord[]>();
  for (const r of rows) {
    const list = byUser.get(r.userId) ?? [];
    list.push(toEvent(r));
    byUser.set(r.userId, list);
  }
  return byUser;
}

export async function markDigested(db: Db, ids: readonly number[], at: Date): Promise<void> {
  await db.guardEvent.updateMany({
    where: { id: { in: [...ids] }, digestedAt: null },
    data: { digestedAt: at },
  });
}

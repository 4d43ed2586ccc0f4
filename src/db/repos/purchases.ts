// Spend commitments and caps: a reservation checks the caps and records a pending commitment
// atomically (under the user's row lock), so concurrent buys, bids, buy orders and offers cannot
// commit past a cap together, and a double-clicked Confirm commits once.
import { z } from "zod";
import type { Purchase } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, isUniqueViolation, withTransaction } from "../types.ts";

export type PurchaseStatus = "pending" | "succeeded" | "failed" | "unknown" | "open" | "released";
export type SpendKind = "buy" | "bid" | "buy_order" | "offer" | "auto_buy";

/** The cap window: the last 24 hours, so a cap cannot be spent twice around midnight. */
export const DAILY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface PurchaseRecord {
  id: number;
  userId: number;
  idempotencyKey: string;
  kind: SpendKind;
  subjectId: string | null;
  listingIds: string[];
  unitPriceCents: number | null;
  totalCents: number;
  status: PurchaseStatus;
  error: string | null;
  createdAt: Date;
  settledAt: Date | null;
  /** When it became a standing commitment (status open), if it did. */
  openedAt: Date | null;
}
/** Any spend commitment (the table began with purchases alone). */
export type CommitmentRecord = PurchaseRecord;

export type ReserveResult =
  | { ok: true; purchase: PurchaseRecord }
  /** The same idempotency key was reserved before: do not commit again; report that one. */
  | { ok: false; reason: "duplicate"; purchase: PurchaseRecord }
  | { ok: false; reason: "per_purchase_cap"; capCents: number }
  | { ok: false; reason: "daily_cap"; capCents: number; spentCents: number }
  | { ok: false; reason: "no_user" }
  /** The automation that asked is off, or its account changed, since it read its work. */
  | { ok: false; reason: "automation_stopped" }
  /** An armed rule's buy of a listing the user already bought (or is buying) through another. */
  | { ok: false; reason: "already_bought" }
  /** Above the price ceiling the user confirmed for this automation. */
  | { ok: false; reason: "confirmed_ceiling"; capCents: number }
  /** Past the most the user confirmed this armed rule may spend in all. */
  | { ok: false; reason: "confirmed_budget"; capCents: number; spentCents: number };

function toRecord(p: Purchase): PurchaseRecord {
  return {
    id: p.id,
    userId: p.userId,
    idempotencyKey: p.idempotencyKey,
    kind: p.kind,
    subjectId: p.subjectId,
    listingIds: p.listingIds,
    unitPriceCents: p.unitPriceCents === null ? null : centsFromDb(p.unitPriceCents),
    totalCents: centsFromDb(p.totalCents),
    status: p.status,
    error: p.error,
    createdAt: p.createdAt,
    settledAt: p.settledAt,
    openedAt: p.openedAt,
  };
}

const ReserveRow = z.object({
  outcome: z.enum([
    "ok",
    "duplicate",
    "no_user",
    "per_purchase_cap",
    "daily_cap",
    "stopped",
    "owned",
    "ceiling",
    "budget",
  ]),
  purchase_id: z.number().int().nullable(),
  created: z.date().nullable(),
  cap_cents: z.bigint().nullable(),
  spent_cents: z.bigint().nullable(),
});

/**
 * The automation asking for the commitment, re-checked under the same lock as the caps: a
 * live-armed rule (within the ceiling and budget stored when it was confirmed, on the account it
 * was armed on) or an active buy-order guard (within its ceiling, on its account).
 */
export type Authority = { kind: "rule"; ruleId: number } | { kind: "guard"; guardId: number };

export interface ReserveInput {
  userId: number;
  idempotencyKey: string;
  /** Default "buy". */
  kind?: SpendKind;
  /** The listing or buy order it is about, when known before the request. */
  subjectId?: string | null;
  listingIds?: string[];
  /** The price of one item, bounded by the per-purchase cap. Default: totalCents. */
  unitPriceCents?: number;
  /** What the action commits in all (a bid's ceiling, price x remaining quantity...). */
  totalCents: number;
  /**
   * A standing commitment this one replaces (a raised bid, an edited order, a counter-offer): it
   * is left out of the check, because only one of the two can stand once the request is answered.
   */
  replacesId?: number;
  /** Set for an automatic action: what the user confirmed, checked in the same statement. */
  authority?: Authority;
}

/**
 * Checks the automation that asks (if any), the per-purchase and daily caps, and inserts a
 * pending commitment, in one round trip: the database function `reserve_commitment` holds the
 * user's row lock, so concurrent reservations on every path, and stops, are decided one after
 * the other. Pending, open and unknown commitments count whatever their age (an unknown outcome
 * may have gone through); spent ones for 24 hours.
 */
export async function reserveSpend(db: Db, input: ReserveInput): Promise<ReserveResult> {
  const total = centsToDb(input.totalCents);
  const unit = centsToDb(input.unitPriceCents ?? input.totalCents);
  const kind = input.kind ?? "buy";
  const auth = input.authority;
  const authId = auth === undefined ? null : auth.kind === "rule" ? auth.ruleId : auth.guardId;
  let rows: unknown[];
  try {
    rows = await db.$queryRaw<unknown[]>`
      SELECT * FROM reserve_commitment(${input.userId}::integer, ${input.idempotencyKey}::text,
        ${kind}::spend_kind, ${input.subjectId ?? null}::text, ${input.listingIds ?? []}::text[],
        ${unit}::bigint, ${total}::bigint, ${input.replacesId ?? null}::integer,
        ${auth?.kind ?? null}::text, ${authId}::integer)`;
  } catch (err) {
    // Another user's row cannot hold this key's lock; the constraint is the last word.
    if (!isUniqueViolation(err)) throw err;
    return duplicateOf(db, input.idempotencyKey, err);
  }
  return reserveResultOf(db, input, rows[0]);
}

/**
 * What reserve_commitment answered, as a result: from reserveSpend, or from a statement that
 * called it with `input` (the armed claim, src/db/repos/autoBuys.ts).
 */
export async function reserveResultOf(db: Db, input: ReserveInput, raw: unknown): Promise<ReserveResult> {
  const row = ReserveRow.parse(raw);
  const kind = input.kind ?? "buy";
  const unit = centsToDb(input.unitPriceCents ?? input.totalCents);
  const cap = row.cap_cents === null ? 0 : centsFromDb(row.cap_cents);
  const spent = row.spent_cents === null ? 0 : centsFromDb(row.spent_cents);
  switch (row.outcome) {
    case "ok":
      return {
        ok: true,
        purchase: {
          id: row.purchase_id ?? 0,
          userId: input.userId,
          idempotencyKey: input.idempotencyKey,
          kind,
          subjectId: input.subjectId ?? null,
          listingIds: input.listingIds ?? [],
          unitPriceCents: centsFromDb(unit),
          totalCents: input.totalCents,
          status: "pending",
          error: null,
          createdAt: row.created ?? new Date(),
          settledAt: null,
          openedAt: null,
        },
      };
    case "duplicate":
      return duplicateOf(db, input.idempotencyKey, new Error("reserved key vanished"));
    case "no_user":
      return { ok: false, reason: "no_user" };
    case "per_purchase_cap":
      return { ok: false, reason: "per_purchase_cap", capCents: cap };
    case "daily_cap":
      return { ok: false, reason: "daily_cap", capCents: cap, spentCents: spent };
    case "stopped":
      return { ok: false, reason: "automation_stopped" };
    case "owned":
      return { ok: false, reason: "already_bought" };
    case "ceiling":
      return { ok: false, reason: "confirmed_ceiling", capCents: cap };
    case "budget":
      return { ok: false, reason: "confirmed_budget", capCents: cap, spentCents: spent };
  }
}

async function duplicateOf(db: Db, key: string, err: unknown): Promise<ReserveResult> {
  const previous = await db.purchase.findUnique({ where: { idempotencyKey: key } });
  if (!previous) throw err;
  return { ok: false, reason: "duplicate", purchase: toRecord(previous) };
}

const SpentRow = z.object({ spent: z.bigint() });

/** Cents counted against the daily cap: everything still committed, plus what was spent in 24 h. */
async function committed(db: Db, userId: number, excludeId: number | null): Promise<bigint> {
  const [row] = await db.$queryRaw<unknown[]>`
    SELECT coalesce(sum(total_cents), 0)::bigint AS spent FROM purchases
     WHERE user_id = ${userId}
       AND id <> ${excludeId ?? -1}
       AND (status IN ('pending', 'open', 'unknown')
            OR (status = 'succeeded'
                AND coalesce(settled_at, created_at) > now() - ${DAILY_WINDOW_MS}::bigint * interval '1 millisecond'))`;
  return SpentRow.parse(row).spent;
}

/**
 * Settles a commitment. `unknown` (timeout, no answer) keeps counting against the cap until the
 * reconciler finds out; `open` keeps a standing commitment counted (a top bid, an open order or
 * offer). Returns false when it was already settled for good (succeeded, failed or released).
 */
export async function settlePurchase(
  db: Db,
  id: number,
  outcome: {
    status: "succeeded" | "failed" | "unknown" | "open" | "released";
    error?: string | null;
    /** What is committed or spent from now on (a bid won at its final price, a partly filled order). */
    totalCents?: number;
    subjectId?: string;
  },
): Promise<boolean> {
  const final = outcome.status !== "open" && outcome.status !== "unknown";
  const { count } = await db.purchase.updateMany({
    where: { id, status: { in: ["pending", "unknown", "open"] } },
    data: {
      status: outcome.status,
      error: outcome.error ?? null,
      ...(final || outcome.status === "unknown" ? { settledAt: new Date() } : {}),
      ...(outcome.status === "open" ? { openedAt: new Date() } : {}),
      ...(outcome.totalCents === undefined ? {} : { totalCents: centsToDb(outcome.totalCents) }),
      ...(outcome.subjectId === undefined ? {} : { subjectId: outcome.subjectId }),
    },
  });
  return count === 1;
}

/**
 * The user's standing commitment of this kind on this listing or order, if any: open, or (with
 * `orUnknown`) one whose outcome is still being found out, which a new request would replace.
 */
export async function findOpenCommitment(
  db: Db,
  input: { userId: number; kind: SpendKind; subjectId: string; orUnknown?: boolean },
): Promise<PurchaseRecord | null> {
  const row = await db.purchase.findFirst({
    where: {
      userId: input.userId,
      kind: input.kind,
      subjectId: input.subjectId,
      status: { in: input.orUnknown ? ["open", "unknown"] : ["open"] },
    },
    orderBy: { id: "desc" },
  });
  return row ? toRecord(row) : null;
}

/**
 * Releases every commitment still counted on this listing or order (pending, open or unknown)
 * but `exceptId`: for a write whose answer fixed all the subject holds (an order's absolute
 * update, its cancellation), made while no other write of it can be in flight.
 */
export async function releaseStandingOn(
  db: Db,
  input: { userId: number; kind: SpendKind; subjectId: string; exceptId?: number; reason: string },
): Promise<number> {
  const { count } = await db.purchase.updateMany({
    where: {
      userId: input.userId,
      kind: input.kind,
      subjectId: input.subjectId,
      status: { in: ["pending", "open", "unknown"] },
      ...(input.exceptId === undefined ? {} : { id: { not: input.exceptId } }),
    },
    data: { status: "released", error: input.reason, settledAt: new Date() },
  });
  return count;
}

/** Commitments whose outcome is still being found out (pending left by a crash, or unknown). */
export async function listUnsettled(
  db: Db,
  input: { olderThan: Date; limit?: number },
): Promise<PurchaseRecord[]> {
  const rows = await db.purchase.findMany({
    where: { status: { in: ["pending", "unknown"] }, createdAt: { lt: input.olderThan } },
    orderBy: { id: "asc" },
    take: input.limit ?? 100,
  });
  return rows.map(toRecord);
}

/** Standing commitments of one kind (for the pollers that end them). */
export async function listOpen(db: Db, kind: SpendKind, userId?: number): Promise<PurchaseRecord[]> {
  const rows = await db.purchase.findMany({
    where: { kind, status: "open", ...(userId === undefined ? {} : { userId }) },
    orderBy: { id: "asc" },
  });
  return rows.map(toRecord);
}

/**
 * Part of a standing commitment was spent (a buy order filled some items): record the spend as
 * its own row and lower what stays committed, in one transaction.
 */
export async function spendPartOf(
  db: Db,
  input: { openId: number; spentCents: number; stillCommittedCents: number; idempotencyKey: string },
): Promise<void> {
  await withTransaction(db, async (tx) => {
    const open = await tx.purchase.findUnique({ where: { id: input.openId } });
    if (!open || open.status !== "open") return;
    await tx.purchase.create({
      data: {
        userId: open.userId,
        idempotencyKey: input.idempotencyKey,
        kind: open.kind,
        subjectId: open.subjectId,
        listingIds: [],
        unitPriceCents: open.unitPriceCents,
        totalCents: centsToDb(input.spentCents),
        status: "succeeded",
        settledAt: new Date(),
      },
    });
    await tx.purchase.update({
      where: { id: open.id },
      data:
        input.stillCommittedCents > 0
          ? { totalCents: centsToDb(input.stillCommittedCents) }
          : { totalCents: 0n, status: "released", settledAt: new Date() },
    });
  }).catch((err: unknown) => {
    // The same fill recorded twice (a retried poll): the key says it is done.
    if (!isUniqueViolation(err)) throw err;
  });
}

export const completePurchase = (db: Db, id: number) => settlePurchase(db, id, { status: "succeeded" });
export const failPurchase = (db: Db, id: number, error: string) =>
  settlePurchase(db, id, { status: "failed", error });

/** Cents counted against the daily cap right now (committed, or spent in the last 24 hours). */
export async function spentInWindow(db: Db, userId: number): Promise<number> {
  return centsFromDb(await committed(db, userId, null));
}

export async function getPurchaseByKey(db: Db, idempotencyKey: string): Promise<PurchaseRecord | null> {
  const row = await db.purchase.findUnique({ where: { idempotencyKey } });
  return row ? toRecord(row) : null;
}

export async function listRecentPurchases(db: Db, userId: number, limit = 20): Promise<PurchaseRecord[]> {
  const rows = await db.purchase.findMany({ where: { userId }, orderBy: { id: "desc" }, take: limit });
  return rows.map(toRecord);
}

/** Listings among `listingIds` each user bought (buy or auto-buy that went through). */
export async function listingsBoughtBy(
  db: Db,
  userIds: readonly number[],
  listingIds: readonly string[],
): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  if (userIds.length === 0 || listingIds.length === 0) return out;
  const rows = await db.purchase.findMany({
    where: {
      userId: { in: [...userIds] },
      kind: { in: ["buy", "auto_buy"] },
      status: "succeeded",
      listingIds: { hasSome: [...listingIds] },
    },
    select: { userId: true, listingIds: true },
  });
  for (const r of rows) {
    const set = out.get(r.userId) ?? new Set<string>();
    for (const id of r.listingIds) set.add(id);
    out.set(r.userId, set);
  }
  return out;
}

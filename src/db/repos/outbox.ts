// The delivery queue: workers claim due rows under a lease (FOR UPDATE SKIP LOCKED), so several
// processes share the work, nothing is sent twice while a lease holds, and a crashed worker's
// rows come back when its lease expires.
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { commitFlushedLater, idFromDb } from "../types.ts";
import type { Destination } from "./users.ts";

export type OutboxStatus = "pending" | "sending" | "sent" | "failed" | "held";

export interface ClaimedMessage {
  id: number;
  alertId: number | null;
  /** The alert's dedupe key (rows for an alert): what the Discord nonce is made from. */
  dedupeKey: string | null;
  userId: number;
  discordUserId: string;
  /** The bot's DM channel with the user, when one is kept (users.dm_channel_id). */
  dmChannelId: string | null;
  destination: Destination;
  channelId: string | null;
  /** The rendered message as stored: the delivery worker validates it. */
  payload: unknown;
  /** Including this attempt. */
  attempts: number;
  createdAt: Date;
  /** Claim tier, lower first (src/db/repos/alerts.ts priorityOf). */
  priority: number;
  /** The recipient's delivery settings, read by the claim itself: no second query before sending. */
  recipient: Recipient;
}

/** What delivery needs of the user an outbox row is for. */
export interface Recipient {
  quietHoursStart: number | null;
  quietHoursEnd: number | null;
  timezone: string;
  dmClosedAt: Date | null;
  defaultChannelId: string | null;
}

const ClaimedRow = z.object({
  id: z.bigint(),
  alert_id: z.bigint().nullable(),
  dedupe_key: z.string().nullable(),
  user_id: z.number().int(),
  discord_user_id: z.string(),
  dm_channel_id: z.string().nullable(),
  destination: z.enum(["dm", "channel"]),
  channel_id: z.string().nullable(),
  payload: z.unknown(),
  attempts: z.number().int(),
  created_at: z.date(),
  priority: z.number().int(),
  next_attempt_at: z.date(),
  quiet_hours_start: z.number().int().nullable(),
  quiet_hours_end: z.number().int().nullable(),
  timezone: z.string(),
  dm_closed_at: z.date().nullable(),
  default_channel_id: z.string().nullable(),
});

/**
 * Claims up to `limit` due rows for `workerId` for `leaseMs`: pending rows whose time has come,
 * and rows still `sending` whose lease ran out (their worker died). In claim order: priority
 * tier, then due time, then id (ADR 018). Each branch reads the (status, priority,
 * next_attempt_at, id) index in that order and stops at `limit`; a row not yet due stays out,
 * whatever its tier.
 */
export async function claimDue(
  db: Db,
  opts: { workerId: string; limit: number; leaseMs: number },
): Promise<ClaimedMessage[]> {
  // Two branches, not one OR: an OR of two statuses cannot be read from one index in order.
  // Rows a branch locks but the final LIMIT leaves out are unlocked when the statement ends.
  // The claim's commit does not wait for its flush (ADR 037): a crash that takes it back
  // returns the rows to be sent again, with the same nonce (outboxNonce), which a lease running
  // out after a send does already.
  const rows = await db.$queryRaw<unknown[]>`
    WITH pending_due AS (
      SELECT id, priority, next_attempt_at FROM outbox
       WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY priority, next_attempt_at, id
       LIMIT ${opts.limit}
       FOR UPDATE SKIP LOCKED
    ),
    lease_expired AS (
      SELECT id, priority, next_attempt_at FROM outbox
       WHERE status = 'sending' AND locked_until < now()
       ORDER BY priority, next_attempt_at, id
       LIMIT ${opts.limit}
       FOR UPDATE SKIP LOCKED
    ),
    due AS (
      SELECT id, priority FROM (SELECT * FROM pending_due UNION ALL SELECT * FROM lease_expired) c
       ORDER BY priority, next_attempt_at, id
       LIMIT ${opts.limit}
    )
    UPDATE outbox o
       SET status = 'sending',
           locked_by = ${opts.workerId},
           locked_until = now() + ${opts.leaseMs}::int * interval '1 millisecond',
           attempts = o.attempts + 1
      FROM due, users u, ${commitFlushedLater(db)} AS flush_later
     WHERE o.id = due.id AND u.id = o.user_id
    RETURNING ${claimedColumns("o", "u", Prisma.sql`(SELECT a.dedupe_key FROM alert_log a WHERE a.id = o.alert_id)`)}`;
  return inClaimOrder(rows.map(claimedOf));
}

/** The columns a claim returns, in SQL (claimDue's RETURNING; an insert that claims, alerts.ts). */
export function claimedColumns(outbox: string, users: string, dedupeKey: Prisma.Sql): Prisma.Sql {
  const o = Prisma.raw(outbox);
  const u = Prisma.raw(users);
  return Prisma.sql`${o}.id, ${o}.alert_id, ${dedupeKey} AS dedupe_key,
              ${o}.user_id, ${u}.discord_id AS discord_user_id, ${u}.dm_channel_id,
              ${o}.destination::text AS destination,
              ${o}.channel_id, ${o}.payload, ${o}.attempts, ${o}.created_at, ${o}.priority, ${o}.next_attempt_at,
              ${u}.quiet_hours_start, ${u}.quiet_hours_end, ${u}.timezone, ${u}.dm_closed_at, ${u}.default_channel_id`;
}

/** A claimed row as the database returned it (claimedColumns), with its due time for ordering. */
export function claimedOf(r: unknown): ClaimedMessage & { dueAt: number } {
  const row = ClaimedRow.parse(r);
  return {
    id: idFromDb(row.id),
    alertId: row.alert_id === null ? null : idFromDb(row.alert_id),
    dedupeKey: row.dedupe_key,
    userId: row.user_id,
    discordUserId: row.discord_user_id,
    dmChannelId: row.dm_channel_id,
    destination: row.destination,
    channelId: row.channel_id,
    payload: row.payload,
    attempts: row.attempts,
    createdAt: row.created_at,
    priority: row.priority,
    recipient: {
      quietHoursStart: row.quiet_hours_start,
      quietHoursEnd: row.quiet_hours_end,
      timezone: row.timezone,
      dmClosedAt: row.dm_closed_at,
      defaultChannelId: row.default_channel_id,
    },
    dueAt: row.next_attempt_at.getTime(),
  };
}

/** RETURNING has no order of its own: a batch put back in claim order (ADR 018). */
export function inClaimOrder(rows: ReadonlyArray<ClaimedMessage & { dueAt: number }>): ClaimedMessage[] {
  return [...rows]
    .sort((a, b) => a.priority - b.priority || a.dueAt - b.dueAt || a.id - b.id)
    .map(({ dueAt: _dueAt, ...row }) => row);
}

/**
 * Extends this worker's lease on one row just before it is sent, so a long pass (many rows,
 * Discord's own 429 waits) never sends a row whose lease ran out and that another worker may
 * have claimed. False: the row is no longer ours; do not send it.
 */
export async function renewLease(db: Db, id: number, workerId: string, leaseMs: number): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE outbox SET locked_until = now() + ${leaseMs}::int * interval '1 millisecond'
     WHERE id = ${id} AND status = 'sending' AND locked_by = ${workerId} AND locked_until > now()`;
  return count === 1;
}

/** Records delivery. False if this worker no longer holds the row (its lease expired and moved on). */
export async function markSent(
  db: Db,
  id: number,
  workerId: string,
  result: { discordMessageId?: string | null } = {},
): Promise<boolean> {
  // Its commit does not wait for its flush (ADR 037): a crash that takes it back leaves the row
  // claimed until its lease runs out, and the send that follows is the same message to Discord
  // (the same nonce). A lane's next send no longer waits on a disk flush.
  const count = await db.$executeRaw`
    UPDATE outbox
       SET status = 'sent', sent_at = ${new Date()}, discord_message_id = ${result.discordMessageId ?? null},
           locked_by = NULL, locked_until = NULL, last_error = NULL
      FROM ${commitFlushedLater(db)} AS flush_later
     WHERE id = ${id} AND status = 'sending' AND locked_by = ${workerId}`;
  return count === 1;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 15 * 60_000 };

/** Exponential: base, 2x base, 4x base... capped. `attempts` counts the one that just failed. */
export function retryDelayMs(attempts: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
}

/**
 * Records a failed attempt: retried later with backoff, or `failed` for good when `permanent`
 * (e.g. unknown channel) or out of attempts. `lost_lease` when this worker no longer holds it.
 */
export async function markFailed(
  db: Db,
  id: number,
  workerId: string,
  failure: { error: string; permanent?: boolean; retryAfterMs?: number },
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<"retry" | "failed" | "lost_lease"> {
  const row = await db.outbox.findFirst({
    where: { id, status: "sending", lockedBy: workerId },
    select: { attempts: true },
  });
  if (!row) return "lost_lease";
  const giveUp = failure.permanent === true || row.attempts >= policy.maxAttempts;
  const delay = Math.max(failure.retryAfterMs ?? 0, retryDelayMs(row.attempts, policy));
  const error = failure.error.slice(0, 2000);
  // The database's clock, like claimDue's, so app/database clock skew cannot delay or rush retries.
  const count = giveUp
    ? await db.$executeRaw`
        UPDATE outbox SET status = 'failed', last_error = ${error}, locked_by = NULL, locked_until = NULL
         WHERE id = ${id} AND status = 'sending' AND locked_by = ${workerId}`
    : await db.$executeRaw`
        UPDATE outbox SET status = 'pending', last_error = ${error}, locked_by = NULL, locked_until = NULL,
                          next_attempt_at = now() + ${Math.round(delay)}::int * interval '1 millisecond'
         WHERE id = ${id} AND status = 'sending' AND locked_by = ${workerId}`;
  if (count === 0) return "lost_lease";
  return giveUp ? "failed" : "retry";
}

/**
 * Makes alerts written with a hold (NewAlert.holdMs) due now, by dedupe key: rows never tried
 * and still waiting only, so a retry's wait is never cut short. Returns how many were released.
 */
export async function releaseHeldBack(db: Db, dedupeKeys: readonly string[]): Promise<number> {
  if (dedupeKeys.length === 0) return 0;
  return db.$executeRaw`
    UPDATE outbox o SET next_attempt_at = now()
      FROM alert_log a
     WHERE a.dedupe_key = ANY(${[...dedupeKeys]}::text[]) AND o.alert_id = a.id
       AND o.status = 'pending' AND o.attempts = 0 AND o.next_attempt_at > now()`;
}

/** Puts this worker's unfinished claims back (graceful shutdown), without counting the attempt. */
export async function releaseClaims(db: Db, workerId: string): Promise<number> {
  return db.$executeRaw`
    UPDATE outbox SET status = 'pending', locked_by = NULL, locked_until = NULL,
                      attempts = greatest(attempts - 1, 0)
     WHERE status = 'sending' AND locked_by = ${workerId}`;
}

/** Queues a message that has no alert behind it (notices, digests built by hand). */
export async function enqueueMessage(
  db: Db,
  msg: {
    userId: number;
    destination: Destination;
    channelId?: string | null;
    payload: Prisma.InputJsonValue;
    status?: "pending" | "held";
  },
): Promise<number> {
  const row = await db.outbox.create({
    data: {
      userId: msg.userId,
      destination: msg.destination,
      channelId: msg.channelId ?? null,
      payload: msg.payload,
      status: msg.status ?? "pending",
    },
    select: { id: true },
  });
  return idFromDb(row.id);
}

/** Quiet hours begin: the user's undelivered messages wait (status `held`). */
export async function holdPending(db: Db, userId: number): Promise<number> {
  const { count } = await db.outbox.updateMany({
    where: { userId, status: "pending" },
    data: { status: "held" },
  });
  return count;
}

/** Quiet hours end: held messages go out one by one, now. */
export async function releaseHeld(db: Db, userId: number): Promise<number> {
  return db.$executeRaw`
    UPDATE outbox SET status = 'pending', next_attempt_at = now() WHERE user_id = ${userId} AND status = 'held'`;
}

export interface HeldMessage {
  id: number;
  alertId: number | null;
  kind: string | null;
  payload: unknown;
  createdAt: Date;
}

const HeldRow = z.object({
  id: z.bigint(),
  alert_id: z.bigint().nullable(),
  kind: z.string().nullable(),
  payload: z.unknown(),
  created_at: z.date(),
});

/**
 * Quiet hours end with a digest: removes the user's held messages and returns them, oldest
 * first, so the caller can queue one digest in the same transaction. Their alert log rows stay,
 * so nothing is alerted again.
 */
export async function takeHeld(db: Db, userId: number, limit = 500): Promise<HeldMessage[]> {
  const rows = await db.$queryRaw<unknown[]>`
    WITH taken AS (
      DELETE FROM outbox
       WHERE id IN (SELECT id FROM outbox WHERE user_id = ${userId} AND status = 'held'
                     ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, alert_id, payload, created_at
    )
    SELECT taken.id, taken.alert_id, a.kind::text AS kind, taken.payload, taken.created_at
      FROM taken LEFT JOIN alert_log a ON a.id = taken.alert_id
     ORDER BY taken.id`;
  return rows.map((r) => {
    const row = HeldRow.parse(r);
    return {
      id: idFromDb(row.id),
      alertId: row.alert_id === null ? null : idFromDb(row.alert_id),
      kind: row.kind,
      payload: row.payload,
      createdAt: row.created_at,
    };
  });
}

/** Users who have held messages (the quiet-hours scheduler's worklist). */
export async function usersWithHeld(db: Db): Promise<number[]> {
  const rows = await db.outbox.findMany({
    where: { status: "held" },
    distinct: ["userId"],
    select: { userId: true },
    orderBy: { userId: "asc" },
  });
  return rows.map((r) => r.userId);
}

export interface OutboxDepth {
  pending: number;
  sending: number;
  held: number;
  failed: number;
  sent: number;
  /** When the oldest due-but-unsent message was queued: delivery lag. */
  oldestPendingAt: Date | null;
}

export async function depth(db: Db): Promise<OutboxDepth> {
  const [groups, oldest] = await Promise.all([
    db.outbox.groupBy({ by: ["status"], _count: { _all: true } }),
    db.outbox.findFirst({
      where: { status: { in: ["pending", "sending"] } },
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
    }),
  ]);
  const out: OutboxDepth = { pending: 0, sending: 0, held: 0, failed: 0, sent: 0, oldestPendingAt: null };
  for (const g of groups) out[g.status] = g._count._all;
  out.oldestPendingAt = oldest?.createdAt ?? null;
  return out;
}

/** Deletes delivered and given-up rows older than `before`. */
export async function pruneOutbox(db: Db, before: Date): Promise<number> {
  const { count } = await db.outbox.deleteMany({
    where: { status: { in: ["sent", "failed"] }, createdAt: { lt: before } },
  });
  return count;
}

// The alert log and its outbox rows, written together: a dedupe key that already exists makes
// the whole insert a no-op, so several pollers can see the same event and queue it once.
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { commitFlushedLater, idFromDb } from "../types.ts";
import { claimedColumns, claimedOf, type ClaimedMessage } from "./outbox.ts";
import type { Destination } from "./users.ts";

export type AlertKind =
  | "listing"
  | "outbid"
  | "auction_won"
  | "auction_lost"
  | "trade"
  | "trade_reminder"
  | "buyorder_fill"
  | "key_revoked"
  | "digest"
  | "settlement"
  | "feed_gap"
  | "auto_buy"
  | "weekly_report"
  | "auto_accept"
  | "guard_digest"
  | "reversal";

export interface NewAlert {
  userId: number;
  ruleId?: number | null;
  /** Further rules this alert stands for (one listing alert per user groups their rules): their match counts move too. */
  alsoRuleIds?: readonly number[];
  kind: AlertKind;
  /** What the alert is about: listing id, trade id, order id... */
  subjectId: string;
  /** Which state of the subject (price, trade state...): a new version is a new alert. */
  version: string;
  /** Unique per alert that must go out once, e.g. `listing:<ruleId>:<listingId>:<v>`. */
  dedupeKey: string;
  destination: Destination;
  channelId?: string | null;
  /** The rendered message, delivered as is. */
  payload: Prisma.InputJsonValue;
  /** `held` during the user's quiet hours: kept for the digest instead of sent. */
  status?: "pending" | "held";
  /**
   * Not claimable for this long (database clock): ordinary alerts of a listing wait while armed
   * rules' outcomes are written, then are released at once (releaseHeldBack).
   */
  holdMs?: number;
}

/**
 * Outbox claim order by kind, lower first (ADR 018): what an armed rule did with the user's
 * money, then other money and trade news, then listings, then reports. Within a tier, rows go
 * out by due time and id, and a listing's fan-out is written oldest rule first.
 */
export function priorityOf(kind: AlertKind): number {
  switch (kind) {
    case "auto_buy":
      return 0;
    case "listing":
    case "digest":
    case "feed_gap":
      return 20;
    case "weekly_report":
      return 30;
    default:
      return 10;
  }
}

/** `listing:<ruleId>:<listingId>:<version>` */
export function listingDedupeKey(ruleId: number, listingId: string, version: string | number): string {
  return `listing:${ruleId}:${listingId}:${version}`;
}

const InsertedRow = z.object({
  dedupe_key: z.string(),
  alert_id: z.bigint(),
  outbox_id: z.bigint(),
  claimed: z.boolean(),
});

/**
 * The insert's own claim of its rows for one delivery worker (ADR 038): due rows, without a hold,
 * at most `limit` of them, are written already `sending` under the worker's lease, as its claim
 * would leave them, and come back with what the worker needs to send them.
 */
export interface ClaimAtInsert {
  workerId: string;
  leaseMs: number;
  limit: number;
}

export interface InsertedAlert {
  dedupeKey: string;
  alertId: number;
  outboxId: number;
  /** Set when the insert claimed the row (ClaimAtInsert): the worker sends it without claiming it again. */
  claimed?: ClaimedMessage & { dueAt: number };
}

/**
 * Inserts alerts and their outbox rows in one statement. Returns the ones that were new; a
 * dedupe key seen before (even one being inserted concurrently) is skipped without an error.
 * Rules that produced a new alert get their match count and time bumped in the same statement.
 * Alerts of users deleted meanwhile are skipped.
 */
/**
 * `flushLater`: the statement's commit does not wait for its flush (commitFlushedLater, ADR 037):
 * only for a caller whose source is read again until a later flushed commit records it.
 * `claim`: the rows are claimed for that worker as they are written (ClaimAtInsert, ADR 038).
 */
export async function insertAlertsWithOutbox(
  db: Db,
  alerts: readonly NewAlert[],
  opts: { flushLater?: boolean; claim?: ClaimAtInsert | undefined } = {},
): Promise<InsertedAlert[]> {
  const unique = [...new Map(alerts.map((a) => [a.dedupeKey, a])).values()];
  if (unique.length === 0) return [];
  const col = <T>(f: (a: NewAlert) => T) => unique.map(f);
  const claim = opts.claim;
  // Due rows only (not held for quiet hours, not held back), the first `limit` of them.
  const due = col((a) => (a.status ?? "pending") === "pending" && (a.holdMs ?? 0) <= 0);
  let left = claim?.limit ?? 0;
  const claims = due.map((d) => d && left-- > 0);
  // Every rule an alert stands for, as (dedupe key, rule id) pairs: a new alert counts for each.
  const matched = unique.flatMap((a) =>
    [...(a.ruleId == null ? [] : [a.ruleId]), ...(a.alsoRuleIds ?? [])].map(
      (id) => [a.dedupeKey, id] as const,
    ),
  );
  const rows = await db.$queryRaw<unknown[]>`
    WITH input AS (
      SELECT t.* FROM unnest(
        ${col((a) => a.userId)}::int[],
        ${col((a) => a.ruleId ?? null)}::int[],
        ${col((a) => a.kind)}::alert_kind[],
        ${col((a) => a.subjectId)}::text[],
        ${col((a) => a.version)}::text[],
        ${col((a) => a.dedupeKey)}::text[],
        ${col((a) => a.destination)}::destination[],
        ${col((a) => a.channelId ?? null)}::text[],
        ${col((a) => JSON.stringify(a.payload))}::jsonb[],
        ${col((a) => a.status ?? "pending")}::outbox_status[],
        ${col((a) => priorityOf(a.kind))}::smallint[],
        ${col((a) => Math.max(0, Math.round(a.holdMs ?? 0)))}::int[],
        ${claims}::boolean[]
      ) WITH ORDINALITY
        AS t(user_id, rule_id, kind, subject_id, version, dedupe_key, destination, channel_id, payload, status,
             priority, hold_ms, claim, ord)
      ${opts.flushLater === true ? Prisma.sql`CROSS JOIN ${commitFlushedLater(db)} AS flush_later` : Prisma.empty}
    ),
    -- Alerts of a user deleted meanwhile (/account delete) are dropped, not a foreign-key error
    -- failing everyone's alerts in the batch: the lock waits for a delete in progress, and a
    -- deleted user's row is no longer found.
    owned AS (
      SELECT input.dedupe_key FROM input JOIN users u ON u.id = input.user_id FOR KEY SHARE OF u
    ),
    inserted AS (
      INSERT INTO alert_log (user_id, rule_id, kind, subject_id, version, dedupe_key)
      SELECT user_id, rule_id, kind, subject_id, version, dedupe_key FROM input
       WHERE dedupe_key IN (SELECT dedupe_key FROM owned) ORDER BY ord
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id, dedupe_key
    ),
    -- Ids follow the input's order: within a tier, that is the order rows are claimed in.
    queued AS (
      INSERT INTO outbox (alert_id, user_id, destination, channel_id, payload, status, priority, next_attempt_at,
                          locked_by, locked_until, attempts)
      SELECT inserted.id, input.user_id, input.destination, input.channel_id, input.payload,
             CASE WHEN input.claim THEN 'sending'::outbox_status ELSE input.status END,
             input.priority, now() + input.hold_ms * interval '1 millisecond',
             CASE WHEN input.claim THEN ${claim?.workerId ?? null}::text END,
             CASE WHEN input.claim THEN now() + ${claim?.leaseMs ?? 0}::int * interval '1 millisecond' END,
             CASE WHEN input.claim THEN 1 ELSE 0 END
      FROM inserted JOIN input USING (dedupe_key)
      ORDER BY input.ord
      RETURNING *
    ),
    counted AS (
      UPDATE watch_rules w
         SET match_count = w.match_count + c.n, last_matched_at = now()
        FROM (SELECT m.rule_id, count(*)::int AS n
                FROM inserted
                JOIN unnest(${matched.map((m) => m[0])}::text[], ${matched.map((m) => m[1])}::int[])
                       AS m(dedupe_key, rule_id) USING (dedupe_key)
               GROUP BY m.rule_id) c
       WHERE w.id = c.rule_id
       RETURNING w.id
    )
    SELECT inserted.dedupe_key, inserted.id AS alert_id, queued.id AS outbox_id,
           queued.status = 'sending' AS claimed
           ${claim === undefined ? Prisma.empty : Prisma.sql`, ${claimedColumns("queued", "u", Prisma.sql`inserted.dedupe_key`)}`}
      FROM inserted JOIN queued ON queued.alert_id = inserted.id
      ${claim === undefined ? Prisma.empty : Prisma.sql`JOIN users u ON u.id = queued.user_id`}`;
  return rows.map((r): InsertedAlert => {
    const row = InsertedRow.parse(r);
    const ids = {
      dedupeKey: row.dedupe_key,
      alertId: idFromDb(row.alert_id),
      outboxId: idFromDb(row.outbox_id),
    };
    return row.claimed ? { ...ids, claimed: claimedOf(r) } : ids;
  });
}

/** One alert; `inserted` is false when its dedupe key was already taken. */
export async function insertAlertWithOutbox(
  db: Db,
  alert: NewAlert,
): Promise<{ inserted: true; alertId: number; outboxId: number } | { inserted: false }> {
  const [row] = await insertAlertsWithOutbox(db, [alert]);
  return row ? { inserted: true, alertId: row.alertId, outboxId: row.outboxId } : { inserted: false };
}

export async function alertExists(db: Db, dedupeKey: string): Promise<boolean> {
  return (await db.alertLog.count({ where: { dedupeKey } })) > 0;
}

/**
 * Deletes log rows older than `before`. Their dedupe keys go too, so keep this well beyond how
 * long a subject can come back (a relisted item alerts again after the retention window).
 */
export async function pruneAlertLog(db: Db, before: Date): Promise<number> {
  const { count } = await db.alertLog.deleteMany({ where: { createdAt: { lt: before } } });
  return count;
}

export interface ListingFateRow {
  listingId: string;
  state: string;
  at: Date;
  exactTime: boolean;
}

/**
 * Records what became of listings on every listing alert about them, in one statement. Ids must
 * be unique. The first sighting stands, except that an exact state ("sold"...) replaces the
 * feed's "gone"; then the earlier time is kept unless the new one is the sale's own time.
 * Returns how many alert rows changed.
 */
export async function recordListingFates(db: Db, fates: readonly ListingFateRow[]): Promise<number> {
  if (fates.length === 0) return 0;
  return db.$executeRaw`
    UPDATE alert_log a
       SET gone_state = f.state,
           gone_at = CASE WHEN a.gone_state IS NULL OR f.exact THEN f.at ELSE LEAST(a.gone_at, f.at) END
      FROM unnest(
        ${fates.map((f) => f.listingId)}::text[],
        ${fates.map((f) => f.state)}::text[],
        ${fates.map((f) => f.at.toISOString())}::timestamptz[],
        ${fates.map((f) => f.exactTime)}::boolean[]
      ) AS f(id, state, at, exact)
     WHERE a.kind = 'listing'
       AND a.subject_id = f.id
       AND (a.gone_state IS NULL OR (a.gone_state = 'gone' AND f.state <> 'gone'))`;
}

// ---------------------------------------------------------------------------------------------
// Reads: a user's latest alerts, the dedupe keys already written (trade arrivals, reversals), and
// a week's listing alerts for the weekly report.

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

// How long each kind of record lives, and the prune the leader runs (PRIVACY.md "How long").
import type { Config } from "../config/index.ts";
import type { Db } from "../db/types.ts";

const DAY_MS = 24 * 60 * 60_000;

/** Days each kind of record is kept; src/config validates the bounds. */
export interface RetentionPolicy {
  /** Alert log rows (and with them their dedupe keys): a relisted item alerts again after this. */
  readonly alertLogDays: number;
  /** Outbox rows delivered or given up on; pending and held ones are never pruned. */
  readonly outboxDays: number;
  /** What became of an alerted listing (sold, delisted...): cleared from its alert row. */
  readonly fatesDays: number;
  /** Guard events; the daily change limit reads the last 24 hours. */
  readonly guardEventsDays: number;
  /** Settled auto-buys (pending and unknown ones stay until they settle). */
  readonly autoBuysDays: number;
  /** Confirmations nobody pressed, counted from when they expired. */
  readonly draftsDays: number;
}

export type RetentionConfig = Pick<
  Config,
  | "RETENTION_ALERT_LOG_DAYS"
  | "RETENTION_OUTBOX_DAYS"
  | "RETENTION_FATES_DAYS"
  | "RETENTION_GUARD_EVENTS_DAYS"
  | "RETENTION_AUTO_BUYS_DAYS"
  | "RETENTION_DRAFTS_DAYS"
>;

/** The defaults src/config applies, for callers built without a config (tools, older tests). */
export const DEFAULT_RETENTION: RetentionPolicy = {
  alertLogDays: 90,
  outboxDays: 7,
  fatesDays: 30,
  guardEventsDays: 30,
  autoBuysDays: 90,
  draftsDays: 1,
};

export function retentionFromConfig(config: Partial<RetentionConfig>): RetentionPolicy {
  return {
    alertLogDays: config.RETENTION_ALERT_LOG_DAYS ?? DEFAULT_RETENTION.alertLogDays,
    outboxDays: config.RETENTION_OUTBOX_DAYS ?? DEFAULT_RETENTION.outboxDays,
    fatesDays: config.RETENTION_FATES_DAYS ?? DEFAULT_RETENTION.fatesDays,
    guardEventsDays: config.RETENTION_GUARD_EVENTS_DAYS ?? DEFAULT_RETENTION.guardEventsDays,
    autoBuysDays: config.RETENTION_AUTO_BUYS_DAYS ?? DEFAULT_RETENTION.autoBuysDays,
    draftsDays: config.RETENTION_DRAFTS_DAYS ?? DEFAULT_RETENTION.draftsDays,
  };
}

export interface PruneResult {
  alertLog: number;
  outbox: number;
  fates: number;
  guardEvents: number;
  autoBuys: number;
  drafts: number;
}

/**
 * Deletes (or, for fates, clears) every record older than its kind's retention, by the database's
 * clock (the one that stamped the rows). Each kind is one statement of its own, so a slow one never
 * holds the others' locks; rows still in use (unsent alerts, unsettled buys) are never touched.
 */
export async function pruneExpired(db: Db, policy: RetentionPolicy): Promise<PruneResult> {
  const days = (n: number) => n * DAY_MS;
  // The outbox first: its sent rows point at alert rows the next statement may delete.
  const outbox = await db.$executeRaw`
    DELETE FROM outbox
     WHERE status IN ('sent', 'failed')
       AND created_at < now() - ${days(policy.outboxDays)}::bigint * interval '1 millisecond'`;
  // An alert whose message still waits in the outbox stays until it is delivered or given up.
  const alertLog = await db.$executeRaw`
    DELETE FROM alert_log a
     WHERE a.created_at < now() - ${days(policy.alertLogDays)}::bigint * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM outbox o
                        WHERE o.alert_id = a.id AND o.status IN ('pending', 'sending', 'held'))`;
  const fates = await db.$executeRaw`
    UPDATE alert_log SET gone_at = NULL, gone_state = NULL
     WHERE gone_at < now() - ${days(policy.fatesDays)}::bigint * interval '1 millisecond'`;
  const guardEvents = await db.$executeRaw`
    DELETE FROM guard_events
     WHERE at < now() - ${days(policy.guardEventsDays)}::bigint * interval '1 millisecond'`;
  const autoBuys = await db.$executeRaw`
    DELETE FROM auto_buys
     WHERE outcome NOT IN ('pending', 'unknown')
       AND created_at < now() - ${days(policy.autoBuysDays)}::bigint * interval '1 millisecond'`;
  const drafts = await db.$executeRaw`
    DELETE FROM drafts
     WHERE expires_at < now() - ${days(policy.draftsDays)}::bigint * interval '1 millisecond'`;
  return { alertLog, outbox, fates, guardEvents, autoBuys, drafts };
}

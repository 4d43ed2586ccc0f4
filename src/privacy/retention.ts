// How long each kind of record lives, and the prune the leader runs (PRIVACY.md "How long").
import type { Config } from "../config/index.ts";
import { pruneOlderThan, type PrunedRows } from "../db/repos/privacy.ts";
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

export type PruneResult = PrunedRows;

/**
 * Deletes (or, for fates, clears) every record older than its kind's retention, by the database's
 * clock (the one that stamped the rows). Each kind is one statement of its own, so a slow one never
 * holds the others' locks; rows still in use (unsent alerts, unsettled buys) are never touched.
 */
export async function pruneExpired(db: Db, policy: RetentionPolicy): Promise<PruneResult> {
  const days = (n: number) => n * DAY_MS;
  return pruneOlderThan(db, {
    alertLogMs: days(policy.alertLogDays),
    outboxMs: days(policy.outboxDays),
    fatesMs: days(policy.fatesDays),
    guardEventsMs: days(policy.guardEventsDays),
    autoBuysMs: days(policy.autoBuysDays),
    draftsMs: days(policy.draftsDays),
  });
}

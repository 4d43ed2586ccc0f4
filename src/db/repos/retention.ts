// The retention prune's statements (src/privacy/retention.ts holds the policy): each kind of record
// older than its age, by the database's clock, one statement per kind.
import type { Db } from "../types.ts";

/** The age past which each kind of record goes, in milliseconds. */
export interface PruneAges {
  readonly alertLogMs: number;
  readonly outboxMs: number;
  readonly fatesMs: number;
  readonly guardEventsMs: number;
  readonly autoBuysMs: number;
  readonly draftsMs: number;
}

/** Rows deleted (or, for fates, cleared) per kind. */
export interface PrunedRows {
  alertLog: number;
  outbox: number;
  fates: number;
  guardEvents: number;
  autoBuys: number;
  drafts: number;
}

/**
 * Deletes (for fates, clears) what is older than its age. Each kind is one statement of its own, so
 * a slow one never holds the others' locks; rows still in use (unsent alerts, unsettled buys) stay.
 */
export async function pruneOlderThan(db: Db, ages: PruneAges): Promise<PrunedRows> {
  // The outbox first: its sent rows point at alert rows the next statement may delete.
  const outbox = await db.$executeRaw`
    DELETE FROM outbox
     WHERE status IN ('sent', 'failed')
       AND created_at < now() - ${ages.outboxMs}::bigint * interval '1 millisecond'`;
  // An alert whose message still waits in the outbox stays until it is delivered or given up.
  const alertLog = await db.$executeRaw`
    DELETE FROM alert_log a
     WHERE a.created_at < now() - ${ages.alertLogMs}::bigint * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM outbox o
                        WHERE o.alert_id = a.id AND o.status IN ('pending', 'sending', 'held'))`;
  const fates = await db.$executeRaw`
    UPDATE alert_log SET gone_at = NULL, gone_state = NULL
     WHERE gone_at < now() - ${ages.fatesMs}::bigint * interval '1 millisecond'`;
  const guardEvents = await db.$executeRaw`
    DELETE FROM guard_events
     WHERE at < now() - ${ages.guardEventsMs}::bigint * interval '1 millisecond'`;
  const autoBuys = await db.$executeRaw`
    DELETE FROM auto_buys
     WHERE outcome NOT IN ('pending', 'unknown')
       AND created_at < now() - ${ages.autoBuysMs}::bigint * interval '1 millisecond'`;
  const drafts = await db.$executeRaw`
    DELETE FROM drafts
     WHERE expires_at < now() - ${ages.draftsMs}::bigint * interval '1 millisecond'`;
  return { alertLog, outbox, fates, guardEvents, autoBuys, drafts };
}

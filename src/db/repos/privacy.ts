// What src/privacy needs of the database: everything stored about one user read whole (the
// export), counted (the delete's preview) and erased under the user's row lock (the delete itself),
// and the retention prune's statements (src/privacy/retention.ts holds the policy).
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

/** The kinds of rows a delete erases and counts (the users row aside). */
export type ErasedKind =
  | "watchRules"
  | "seedTiers"
  | "alerts"
  | "outbox"
  | "trackedBids"
  | "trackedTrades"
  | "trackedBuyOrders"
  | "purchases"
  | "drafts"
  | "autoBuys"
  | "autoAccepts"
  | "guards"
  | "guardEvents";

const QUEUED = { in: ["pending", "sending", "held"] } satisfies Prisma.OutboxWhereInput["status"];

/** Every row of the user `discordId`, each table in id order (drafts by creation); undefined: no such user. */
export async function readUserRows(db: Db, discordId: string) {
  const user = await db.user.findUnique({ where: { discordId } });
  if (user === null) return undefined;
  const userId = user.id;
  const mine = { where: { userId }, orderBy: { id: "asc" } } as const;
  const [
    watchRules,
    seedTiers,
    alerts,
    outbox,
    trackedBids,
    trackedTrades,
    trackedBuyOrders,
    purchases,
    drafts,
    autoBuys,
    autoAcceptSetting,
    autoAccepts,
    guards,
    guardEvents,
  ] = await Promise.all([
    db.watchRule.findMany(mine),
    db.seedTier.findMany(mine),
    db.alertLog.findMany(mine),
    db.outbox.findMany(mine),
    db.trackedBid.findMany(mine),
    db.trackedTrade.findMany(mine),
    db.trackedBuyOrder.findMany(mine),
    db.purchase.findMany(mine),
    db.draft.findMany({ where: { userId }, orderBy: { createdAt: "asc" } }),
    db.autoBuy.findMany(mine),
    db.autoAcceptSetting.findUnique({ where: { userId } }),
    db.autoAccept.findMany(mine),
    db.guard.findMany(mine),
    db.guardEvent.findMany(mine),
  ]);
  return {
    user,
    autoAcceptSetting,
    lists: {
      watchRules,
      seedTiers,
      alerts,
      outbox,
      trackedBids,
      trackedTrades,
      trackedBuyOrders,
      purchases,
      drafts,
      autoBuys,
      autoAccepts,
      guards,
      guardEvents,
    },
  };
}

/** The user's id and whether a key is linked; undefined when nothing is stored about them. */
export async function userKeyState(
  db: Db,
  discordId: string,
): Promise<{ userId: number; keyLinked: boolean } | undefined> {
  const user = await db.user.findUnique({ where: { discordId }, select: { id: true, encryptedKey: true } });
  return user === null ? undefined : { userId: user.id, keyLinked: user.encryptedKey !== null };
}

/** What runs for the user now: armed rules, active guards, auto-accept on, messages still queued. */
export async function runningForUser(
  db: Db,
  userId: number,
): Promise<{ armedRules: number; activeGuards: number; autoAccept: boolean; queuedAlerts: number }> {
  const [armedRules, activeGuards, autoAccept, queuedAlerts] = await Promise.all([
    db.watchRule.count({ where: { userId, armMode: { not: null } } }),
    db.guard.count({ where: { userId, status: "active" } }),
    db.autoAcceptSetting.count({ where: { userId, enabled: true } }),
    db.outbox.count({ where: { userId, status: QUEUED } }),
  ]);
  return { armedRules, activeGuards, autoAccept: autoAccept > 0, queuedAlerts };
}

/** The kinds in the order results list them. */
const KINDS: readonly ErasedKind[] = [
  "watchRules",
  "seedTiers",
  "alerts",
  "outbox",
  "trackedBids",
  "trackedTrades",
  "trackedBuyOrders",
  "purchases",
  "drafts",
  "autoBuys",
  "autoAccepts",
  "guards",
  "guardEvents",
];

function inListOrder(byKind: Partial<Record<ErasedKind, number>>): Record<ErasedKind, number> {
  return Object.fromEntries(KINDS.map((kind) => [kind, byKind[kind] ?? 0])) as Record<ErasedKind, number>;
}

/** What counting and erasing a user's rows of one kind needs of its table. */
interface UserRowsTable {
  count(args: { where: { userId: number } }): Promise<number>;
  deleteMany(args: { where: { userId: number } }): Promise<{ count: number }>;
}

/** Each kind's table, children before parents: the order the erase takes. */
const ERASE_ORDER: ReadonlyArray<readonly [ErasedKind, (db: Db) => UserRowsTable]> = [
  ["guardEvents", (db) => db.guardEvent],
  ["guards", (db) => db.guard],
  ["autoAccepts", (db) => db.autoAccept],
  ["autoBuys", (db) => db.autoBuy],
  ["drafts", (db) => db.draft],
  ["purchases", (db) => db.purchase],
  ["trackedBids", (db) => db.trackedBid],
  ["trackedTrades", (db) => db.trackedTrade],
  ["trackedBuyOrders", (db) => db.trackedBuyOrder],
  ["outbox", (db) => db.outbox],
  ["alerts", (db) => db.alertLog],
  ["seedTiers", (db) => db.seedTier],
  ["watchRules", (db) => db.watchRule],
];

/** The user's rows, counted per kind. */
export async function countUserRows(db: Db, userId: number): Promise<Record<ErasedKind, number>> {
  const counts = await Promise.all(ERASE_ORDER.map(([, table]) => table(db).count({ where: { userId } })));
  return inListOrder(Object.fromEntries(ERASE_ORDER.map(([kind], i) => [kind, counts[i]])));
}

/** Locks the users row of `discordId` until `tx` ends; its id, or undefined when there is none. */
export async function lockUserByDiscordId(tx: Db, discordId: string): Promise<number | undefined> {
  const locked = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM users WHERE discord_id = ${discordId} FOR UPDATE`;
  return locked[0]?.id;
}

/** The user's purchases sent and not answered yet: pending, made within the last 2 minutes. */
export async function purchasesInFlight(db: Db, userId: number): Promise<number> {
  const [inFlight] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM purchases
     WHERE user_id = ${userId} AND status = 'pending' AND created_at > now() - interval '2 minutes'`;
  return inFlight?.n ?? 0;
}

/** When the last lease of a message being sent to the user right now runs out; null: none is. */
export async function sendingLeaseUntil(db: Db, userId: number): Promise<Date | null> {
  const [sending] = await db.$queryRaw<{ until: Date | null }[]>`
    SELECT max(locked_until) AS until FROM outbox
     WHERE user_id = ${userId} AND status = 'sending' AND locked_until > now()`;
  return sending?.until ?? null;
}

/**
 * Erases the user's rows, children first, each counted, then the users row, whose cascade catches
 * anything a new table adds. Run it in a transaction holding the user's row lock.
 */
export async function eraseUser(tx: Db, userId: number): Promise<Record<ErasedKind, number>> {
  const erased: Partial<Record<ErasedKind, number>> = {};
  for (const [kind, table] of ERASE_ORDER) {
    erased[kind] = (await table(tx).deleteMany({ where: { userId } })).count;
    // The switch has no kind of its own: it goes with the auto-accepts it governs.
    if (kind === "autoAccepts") await tx.autoAcceptSetting.deleteMany({ where: { userId } });
  }
  await tx.user.delete({ where: { id: userId } });
  return inListOrder(erased);
}

/** Whether the database's clock has reached `at`. */
export async function databaseTimeReached(db: Db, at: Date): Promise<boolean> {
  const [row] = await db.$queryRaw<{ passed: boolean }[]>`SELECT now() >= ${at} AS passed`;
  return row?.passed === true;
}

// ---------------------------------------------------------------------------------------------
// Retention: each kind of record older than its age, by the database's clock, one statement each.

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

// /account delete and `npm run db:forget-user`: stop the user's automation, then erase every row of theirs.
import type { Prisma } from "../generated/prisma/client.ts";
import type { Db } from "../db/types.ts";
import { withTransaction } from "../db/types.ts";
import type { Logger } from "../log.ts";
import { stopBeforeErase, type StoppedAutomation } from "./stopBeforeErase.ts";

export interface DeletePreview {
  /** Rows that will be erased, per kind (only kinds with rows). */
  readonly erase: Readonly<Record<ErasedKind, number>>;
  /** What runs for the user today and will stop. */
  readonly stop: {
    readonly keyLinked: boolean;
    readonly armedRules: number;
    readonly activeGuards: number;
    readonly autoAccept: boolean;
    /** Bids, trades and buy orders the pollers follow. */
    readonly tracked: number;
    /** Alerts queued for delivery that will be dropped. */
    readonly queuedAlerts: number;
  };
}

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

export type DeleteResult =
  | { readonly deleted: false }
  | {
      readonly deleted: true;
      readonly stopped: StoppedAutomation;
      readonly erased: Readonly<Record<ErasedKind, number>>;
    };

export interface DeleteDeps {
  readonly prisma: Db;
  readonly logger: Logger;
  /**
   * Longest wait for a purchase already sent for the user, and again for a message already being
   * sent to them (default 60 s, the outbox lease).
   */
  readonly inFlightWaitMs?: number;
  /** Pause between looks at in-flight sends (default 200 ms). */
  readonly pollMs?: number;
}

const QUEUED = { in: ["pending", "sending", "held"] } satisfies Prisma.OutboxWhereInput["status"];

/** What a delete would erase and stop; undefined when nothing is stored about the user. */
export async function previewDelete(db: Db, discordUserId: string): Promise<DeletePreview | undefined> {
  const user = await db.user.findUnique({
    where: { discordId: discordUserId },
    select: { id: true, encryptedKey: true },
  });
  if (user === null) return undefined;
  const userId = user.id;
  const mine = { where: { userId } };
  const [erase, armedRules, activeGuards, autoAccept, queuedAlerts] = await Promise.all([
    countRows(db, userId),
    db.watchRule.count({ where: { userId, armMode: { not: null } } }),
    db.guard.count({ where: { userId, status: "active" } }),
    db.autoAcceptSetting.count({ where: { userId, enabled: true } }),
    db.outbox.count({ where: { ...mine.where, status: QUEUED } }),
  ]);
  return {
    erase,
    stop: {
      keyLinked: user.encryptedKey !== null,
      armedRules,
      activeGuards,
      autoAccept: autoAccept > 0,
      tracked: erase.trackedBids + erase.trackedTrades + erase.trackedBuyOrders,
      queuedAlerts,
    },
  };
}

async function countRows(db: Db, userId: number): Promise<Record<ErasedKind, number>> {
  const mine = { where: { userId } };
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
    autoAccepts,
    guards,
    guardEvents,
  ] = await Promise.all([
    db.watchRule.count(mine),
    db.seedTier.count(mine),
    db.alertLog.count(mine),
    db.outbox.count(mine),
    db.trackedBid.count(mine),
    db.trackedTrade.count(mine),
    db.trackedBuyOrder.count(mine),
    db.purchase.count(mine),
    db.draft.count(mine),
    db.autoBuy.count(mine),
    db.autoAccept.count(mine),
    db.guard.count(mine),
    db.guardEvent.count(mine),
  ]);
  return {
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
  };
}

/**
 * Stops the user's automation and erases every row that is theirs, in one transaction under their
 * row lock: a second delete (a double click, another replica) waits, then finds nothing and says
 * so. Alerts being inserted for them meanwhile are dropped (the insert skips deleted users). A
 * purchase already sent for them is waited for (automation stopped meanwhile) so that its answer
 * is the last thing that happens for them; returns once no message already claimed for sending
 * can still reach them.
 */
export async function deleteUserData(
  deps: DeleteDeps,
  input: { readonly discordUserId: string },
): Promise<DeleteResult> {
  const log = deps.logger.child({ module: "privacy" });
  const deadline = Date.now() + (deps.inFlightWaitMs ?? 60_000);
  const pollMs = deps.pollMs ?? 200;
  const stops: StoppedAutomation[] = [];
  let outcome: Erased | undefined;
  for (;;) {
    const attempt = await withTransaction(deps.prisma, async (tx) => {
      const locked = await tx.$queryRaw<{ id: number }[]>`
        SELECT id FROM users WHERE discord_id = ${input.discordUserId} FOR UPDATE`;
      const userId = locked[0]?.id;
      if (userId === undefined) return undefined;
      const stopped = await stopBeforeErase(tx, userId);
      // A purchase already sent (its commitment reserved, its answer not back) finishes first:
      // the stop is committed, nothing new starts, and the answer is recorded before the erase.
      const [inFlight] = await tx.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM purchases
         WHERE user_id = ${userId} AND status = 'pending' AND created_at > now() - interval '2 minutes'`;
      if ((inFlight?.n ?? 0) > 0 && Date.now() < deadline) return { stopped, wait: true as const };
      // A delivery worker may be sending one of their messages right now, outside any transaction.
      const [sending] = await tx.$queryRaw<{ until: Date | null }[]>`
        SELECT max(locked_until) AS until FROM outbox
         WHERE user_id = ${userId} AND status = 'sending' AND locked_until > now()`;
      const erased = await eraseRows(tx, userId);
      await tx.user.delete({ where: { id: userId } });
      return { stopped, wait: false as const, erased, inFlightUntil: sending?.until ?? null };
    });
    if (attempt === undefined) break;
    stops.push(attempt.stopped);
    if (!attempt.wait) {
      outcome = { stopped: sumStops(stops), erased: attempt.erased, inFlightUntil: attempt.inFlightUntil };
      break;
    }
    if (stops.length === 1) {
      log.info({ discordUserId: input.discordUserId }, "account delete waits for a purchase in flight");
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  if (outcome === undefined) {
    log.info({ discordUserId: input.discordUserId }, "account delete: nothing stored");
    return { deleted: false };
  }
  if (outcome.inFlightUntil !== null) await waitOutLeases(deps, outcome.inFlightUntil);
  log.info(
    { discordUserId: input.discordUserId, stopped: outcome.stopped, erased: outcome.erased },
    "account data deleted",
  );
  return { deleted: true, stopped: outcome.stopped, erased: outcome.erased };
}

interface Erased {
  readonly stopped: StoppedAutomation;
  readonly erased: Record<ErasedKind, number>;
  readonly inFlightUntil: Date | null;
}

function sumStops(stops: readonly StoppedAutomation[]): StoppedAutomation {
  return {
    armedRules: stops.reduce((n, s) => n + s.armedRules, 0),
    guards: stops.reduce((n, s) => n + s.guards, 0),
    autoAccept: stops.some((s) => s.autoAccept),
  };
}

/** Children first, each counted; the users row's cascade then catches anything a new table adds. */
async function eraseRows(tx: Prisma.TransactionClient, userId: number): Promise<Record<ErasedKind, number>> {
  const mine = { where: { userId } };
  const guardEvents = (await tx.guardEvent.deleteMany(mine)).count;
  const guards = (await tx.guard.deleteMany(mine)).count;
  const autoAccepts = (await tx.autoAccept.deleteMany(mine)).count;
  await tx.autoAcceptSetting.deleteMany(mine);
  const autoBuys = (await tx.autoBuy.deleteMany(mine)).count;
  const drafts = (await tx.draft.deleteMany(mine)).count;
  const purchases = (await tx.purchase.deleteMany(mine)).count;
  const trackedBids = (await tx.trackedBid.deleteMany(mine)).count;
  const trackedTrades = (await tx.trackedTrade.deleteMany(mine)).count;
  const trackedBuyOrders = (await tx.trackedBuyOrder.deleteMany(mine)).count;
  const outbox = (await tx.outbox.deleteMany(mine)).count;
  const alerts = (await tx.alertLog.deleteMany(mine)).count;
  const seedTiers = (await tx.seedTier.deleteMany(mine)).count;
  const watchRules = (await tx.watchRule.deleteMany(mine)).count;
  return {
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
  };
}

/**
 * A worker that claimed one of the user's messages either sends it within its lease or, late in a
 * long pass, renews the lease first, which fails now that the row is gone: once the lease has run
 * out (by the database's clock), nothing claimed before the delete can reach the user.
 */
async function waitOutLeases(deps: DeleteDeps, until: Date): Promise<void> {
  const deadline = Date.now() + (deps.inFlightWaitMs ?? 60_000);
  const pollMs = deps.pollMs ?? 200;
  while (Date.now() < deadline) {
    const [row] = await deps.prisma.$queryRaw<{ passed: boolean }[]>`SELECT now() >= ${until} AS passed`;
    if (row?.passed === true) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

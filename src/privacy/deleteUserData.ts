// /account delete and `npm run db:forget-user`: stop the user's automation, then erase every row of theirs.
import {
  countUserRows,
  databaseTimeReached,
  eraseUser,
  lockUserByDiscordId,
  purchasesInFlight,
  runningForUser,
  sendingLeaseUntil,
  userKeyState,
  type ErasedKind,
} from "../db/repos/privacy.ts";
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

export type { ErasedKind };

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

/** What a delete would erase and stop; undefined when nothing is stored about the user. */
export async function previewDelete(db: Db, discordUserId: string): Promise<DeletePreview | undefined> {
  const user = await userKeyState(db, discordUserId);
  if (user === undefined) return undefined;
  const [erase, running] = await Promise.all([
    countUserRows(db, user.userId),
    runningForUser(db, user.userId),
  ]);
  return {
    erase,
    stop: {
      keyLinked: user.keyLinked,
      armedRules: running.armedRules,
      activeGuards: running.activeGuards,
      autoAccept: running.autoAccept,
      tracked: erase.trackedBids + erase.trackedTrades + erase.trackedBuyOrders,
      queuedAlerts: running.queuedAlerts,
    },
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
      const userId = await lockUserByDiscordId(tx, input.discordUserId);
      if (userId === undefined) return undefined;
      const stopped = await stopBeforeErase(tx, userId);
      // A purchase already sent (its commitment reserved, its answer not back) finishes first:
      // the stop is committed, nothing new starts, and the answer is recorded before the erase.
      if ((await purchasesInFlight(tx, userId)) > 0 && Date.now() < deadline) {
        return { stopped, wait: true as const };
      }
      // A delivery worker may be sending one of their messages right now, outside any transaction.
      const inFlightUntil = await sendingLeaseUntil(tx, userId);
      const erased = await eraseUser(tx, userId);
      return { stopped, wait: false as const, erased, inFlightUntil };
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

/**
 * A worker that claimed one of the user's messages either sends it within its lease or, late in a
 * long pass, renews the lease first, which fails now that the row is gone: once the lease has run
 * out (by the database's clock), nothing claimed before the delete can reach the user.
 */
async function waitOutLeases(deps: DeleteDeps, until: Date): Promise<void> {
  const deadline = Date.now() + (deps.inFlightWaitMs ?? 60_000);
  const pollMs = deps.pollMs ?? 200;
  while (Date.now() < deadline) {
    if (await databaseTimeReached(deps.prisma, until)) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

// What the per-user pollers share: the linked users they may poll, their keys, and what a revoked key does.
import type { Logger } from "../log.ts";
import type { MarketApi, MarketClient } from "../market/client.ts";
import type { Priority } from "../market/scheduler.ts";
import { markRevoked, markRevokedNotified } from "../db/repos/users.ts";
import { stopAutomationRows } from "../db/repos/automation.ts";
import { describeStopped } from "../automation/describe.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts } from "../outbox/store.ts";

/** Opens a stored (encrypted) key of that user row; the composition root passes the key vault's decrypt. */
export type KeyOpener = (encryptedKey: string, userId: number) => string;

export interface PollUser {
  id: number;
  discordId: string;
  platformId: string | null;
  linkedAt: Date | null;
  encryptedKey: string | null;
}

/** What the account pollers (trades, bids, reconciler) share: they act with each user's stored key. */
export interface AccountPollerDeps {
  prisma: Db;
  market: MarketClient;
  openKey: KeyOpener;
  logger: Logger;
}

/** The user's market API, or undefined (logged) when the stored key cannot be opened. */
export function apiFor(
  deps: AccountPollerDeps,
  user: PollUser,
  priority: Priority = "background",
): MarketApi | undefined {
  if (user.encryptedKey === null) return undefined;
  try {
    return deps.market.forKey(deps.openKey(user.encryptedKey, user.id), { priority });
  } catch (err) {
    deps.logger.warn({ userId: user.id, err }, "stored API key cannot be opened; user skipped");
    return undefined;
  }
}

/**
 * The marketplace refused the user's key (401): mark the account revoked so every poll stops,
 * and tell the user once. Both happen in one transaction; the alert's dedupe key carries the
 * link time, so a replica seeing the same 401 adds nothing while a later re-link that is
 * revoked again is told again.
 */
export async function revokeAccount(deps: AccountPollerDeps, user: PollUser): Promise<boolean> {
  const n = user.linkedAt?.getTime() ?? 0;
  let changed = false;
  // Every automatic action stops first (under the user's row lock, as reservations take it), so
  // nothing automatic happens on a refused key even before the account is marked revoked.
  const stopped = describeStopped(
    await stopAutomationRows(deps.prisma, user.id, { shadow: false, reason: "your API key was refused" }),
  );
  const written = await writeAlerts(
    deps.prisma,
    [
      {
        userId: user.id,
        kind: "key_revoked",
        subjectId: "",
        version: String(n),
        dedupeKey: dedupeKey.keyRevoked(user.id, n),
        destination: "dm",
        alert: { kind: "key_revoked", ...(stopped === undefined ? {} : { stopped }) },
      },
    ],
    async (tx) => {
      changed = await markRevoked(tx, user.id);
      await markRevokedNotified(tx, user.id);
    },
  );
  deps.logger.warn(
    { userId: user.id, changed, notified: written.length > 0, automationStopped: stopped !== undefined },
    "API key refused by the marketplace: account marked revoked",
  );
  return written.length > 0;
}

/** Runs `fn` over items with at most `limit` in flight. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), queue.length) }, worker));
}

// Reversal alerts per linked user: each `rollback` ledger entry that undoes a trade or a charge
// (src/portfolio/ledgerEntry.ts isReversal) becomes one DM through the outbox, keyed by the entry's
// id, so it is written once ever, whichever replica or restart reads it. Entries dated before the
// account was linked are history, not news.
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import { isReversal, toLedgerEntry, type LedgerEntry } from "../portfolio/ledgerEntry.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { ReversalAlert } from "../outbox/payload.ts";
import { existingDedupeKeys } from "../db/repos/alerts.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts, type NewAlert } from "../outbox/store.ts";

/** The newest rollback entries read per user and cycle. */
const READ_LIMIT = 20;
/** Clocks differ a little: an entry this much older than the link still counts as news. */
const LINK_SLACK_MS = 5 * 60_000;

export interface ReversalUser {
  readonly id: number;
  readonly linkedAt: Date | null;
}

const NUMERIC_ID = /^\d+$/;
const idOrUndefined = (id: string | undefined) => (id !== undefined && NUMERIC_ID.test(id) ? id : undefined);

/** What was reversed: the trade's item (or the listing's), when the marketplace still shows it. */
async function itemOf(api: MarketApi, e: LedgerEntry): Promise<string | undefined> {
  try {
    if (e.tradeId !== undefined) return (await api.getTrade(e.tradeId)).contract?.item.market_hash_name;
    if (e.contractId !== undefined) return (await api.getListing(e.contractId)).item.market_hash_name;
  } catch (error) {
    // The alert matters more than its item name: a trade or listing gone is sent without one.
    if (!isMarketError(error, "not_found")) throw error;
  }
  return undefined;
}

export function reversalAlertOf(e: LedgerEntry, itemName: string | undefined): ReversalAlert {
  const tradeId = idOrUndefined(e.tradeId);
  const listingId = idOrUndefined(e.contractId);
  return {
    kind: "reversal",
    transactionId: e.id.slice(0, 40),
    // An amount not in integer cents is never guessed: the alert says it could not be read.
    ...(e.amountUnreadable ? {} : { amountCents: e.balanceCents + e.pendingCents }),
    ...(tradeId === undefined ? {} : { tradeId }),
    ...(listingId === undefined ? {} : { listingId }),
    ...(itemName === undefined ? {} : { itemName }),
    ...(e.reason === undefined ? {} : { reason: e.reason.slice(0, 300) }),
    ...(e.at === undefined ? {} : { at: e.at.toISOString() }),
  };
}

/** Reads the user's newest rollback entries and queues an alert for each new reversal. */
export async function pollReversals(
  deps: { readonly prisma: Db; readonly logger: Logger },
  api: MarketApi,
  user: ReversalUser,
): Promise<number> {
  const page = await api.getTransactions({ type: "rollback", order: "desc", limit: READ_LIMIT, page: 0 });
  const since = user.linkedAt === null ? undefined : user.linkedAt.getTime() - LINK_SLACK_MS;
  const candidates = page.transactions
    .map(toLedgerEntry)
    .filter(isReversal)
    .filter((e) => since === undefined || e.at === undefined || e.at.getTime() >= since);
  if (candidates.length === 0) return 0;
  // Already alerted entries cost no further reads (the dedupe key would skip them anyway).
  const keys = candidates.map((e) => dedupeKey.reversal(user.id, e.id));
  const known = new Set(await existingDedupeKeys(deps.prisma, keys));
  const alerts: NewAlert[] = [];
  for (const e of candidates.reverse()) {
    const key = dedupeKey.reversal(user.id, e.id);
    if (known.has(key)) continue;
    alerts.push({
      userId: user.id,
      kind: "reversal",
      subjectId: e.tradeId ?? e.contractId ?? "",
      version: e.id,
      dedupeKey: key,
      destination: "dm",
      alert: reversalAlertOf(e, await itemOf(api, e)),
    });
  }
  const written = await writeAlerts(deps.prisma, alerts);
  if (written.length > 0)
    deps.logger.info({ userId: user.id, reversals: written.length }, "reversal alerts queued");
  return written.length;
}

// Alert persistence on top of src/db/repos: alerts written with their outbox rows, and the digest
// that ends a user's quiet hours. The pollers' and delivery's queries live in
// src/db/repos/{pollers,delivery,alerts}.ts.
import {
  insertAlertsWithOutbox,
  type AlertKind,
  type ClaimAtInsert,
  type NewAlert as RepoAlert,
} from "../db/repos/alerts.ts";
import { countHeld } from "../db/repos/delivery.ts";
import {
  enqueueMessage,
  inClaimOrder,
  releaseHeld as releaseAllHeld,
  takeHeld,
  type ClaimedMessage,
} from "../db/repos/outbox.ts";
import type { Destination } from "../db/repos/users.ts";
import { commitFlushedLater, withTransaction, type Db, type JsonValue } from "../db/types.ts";
import { mergeSameListing } from "./grouping.ts";
import { OutboxPayload, toOutboxPayload, type AlertContent } from "./payload.ts";

export interface NewAlert {
  userId: number;
  ruleId?: number | undefined;
  /** Other rules the alert stands for (a listing alert groups the user's matching rules): counted as matched too. */
  alsoRuleIds?: readonly number[] | undefined;
  kind: AlertKind;
  /** What the alert is about: listing, trade or order id ("" for account-wide alerts). */
  subjectId: string;
  /** Which version of the subject (price, state, count): kept for audits. */
  version: string;
  /** Unique forever: a second insert with the same key is silently skipped. */
  dedupeKey: string;
  destination: Destination;
  channelId?: string | null | undefined;
  alert: AlertContent;
  /** Not claimable for this long: see releaseHeldBack (src/db/repos/outbox.ts). */
  holdMs?: number | undefined;
}

/** An alert as the repository writes it. Parsed on the way in: a bad payload should fail the poller that built it, not the sender. */
function outboxRowOf(a: NewAlert): RepoAlert {
  return {
    userId: a.userId,
    ruleId: a.ruleId ?? null,
    ...(a.alsoRuleIds === undefined || a.alsoRuleIds.length === 0 ? {} : { alsoRuleIds: a.alsoRuleIds }),
    kind: a.kind,
    subjectId: a.subjectId,
    version: a.version,
    dedupeKey: a.dedupeKey,
    destination: a.destination,
    channelId: a.destination === "channel" ? (a.channelId ?? null) : null,
    payload: toOutboxPayload(a.alert) as JsonValue,
    ...(a.holdMs === undefined ? {} : { holdMs: a.holdMs }),
  };
}

/**
 * Writes alert rows and their outbox rows (src/db/repos/alerts.ts: one statement, ON CONFLICT DO
 * NOTHING on the dedupe key) in one transaction with `alsoInTx`, for poller state that must move
 * with its alerts. Returns the dedupe keys actually written: a key seen before (another replica,
 * a re-read after a crash) writes nothing.
 */
export async function writeAlerts(
  prisma: Db,
  alerts: readonly NewAlert[],
  alsoInTx?: (tx: Db) => Promise<void>,
): Promise<string[]> {
  if (alerts.length === 0 && alsoInTx === undefined) return [];
  const rows = alerts.map(outboxRowOf);
  // The insert is one statement, atomic on its own: an interactive transaction around it alone
  // would only add BEGIN and COMMIT round trips on the way from the feed page to the outbox.
  if (alsoInTx === undefined) return (await insertAlertsWithOutbox(prisma, rows)).map((i) => i.dedupeKey);
  return withTransaction(prisma, async (tx) => {
    const inserted = rows.length > 0 ? await insertAlertsWithOutbox(tx, rows) : [];
    if (alsoInTx) await alsoInTx(tx);
    return inserted.map((i) => i.dedupeKey);
  });
}

/**
 * writeAlerts for a source that is read again until a later commit records it (the feed: its
 * mark is saved after its alerts). The insert commits without waiting for the write-ahead log to
 * reach disk, which takes a flush off the way from a feed page to Discord. Any flushed commit
 * after it flushes these rows too (the log is written in order): the mark's save, or delivery's
 * claim before a send. A database crash before either loses the rows and the mark together, and
 * the listings are read and alerted again; no alert is both sent and lost (ADR 037).
 * `claim`: due rows are claimed for that delivery worker as they are written and returned, in
 * claim order, for it to send without a claim of its own (ADR 038).
 */
export async function writeAlertsFlushedLater(
  prisma: Db,
  alerts: readonly NewAlert[],
  claim?: ClaimAtInsert,
): Promise<{ written: string[]; claimed: ClaimedMessage[] }> {
  // Asked first, so a caller inside a transaction is refused even with nothing to write.
  commitFlushedLater(prisma);
  if (alerts.length === 0) return { written: [], claimed: [] };
  const rows = alerts.map(outboxRowOf);
  const inserted = await insertAlertsWithOutbox(prisma, rows, { flushLater: true, claim });
  return {
    written: inserted.map((i) => i.dedupeKey),
    claimed: inClaimOrder(inserted.flatMap((i) => (i.claimed === undefined ? [] : [i.claimed]))),
  };
}

/** Most items a digest lists one by one; the rest are counted. */
export const DIGEST_MAX_ITEMS = 10;

/**
 * Ends a user's quiet hours: their held rows become ONE digest row (or, when only one was held,
 * that row simply goes out). Atomic, and the held rows are taken with SKIP LOCKED, so two
 * workers racing here produce one digest. Returns how many held rows were released.
 */
export async function releaseHeldAsDigest(prisma: Db, userId: number): Promise<number> {
  return withTransaction(prisma, async (tx) => {
    const count = await countHeld(tx, userId);
    if (count === 0) return 0;
    // A digest of one is just a worse copy of the alert (no buttons): send the alert itself.
    if (count === 1) return releaseAllHeld(tx, userId);
    const held = await takeHeld(tx, userId);
    if (held.length === 0) return 0;
    const parsedItems = held.flatMap((h) => {
      const parsed = OutboxPayload.safeParse(h.payload);
      return parsed.success && parsed.data.alert.kind !== "digest" ? [parsed.data.alert] : [];
    });
    // The digest counts listings: alerts about one listing (one per rule before grouping) are one item.
    const items = mergeSameListing(
      parsedItems,
      (a) => a,
      (_, merged) => merged,
    );
    const alert: AlertContent = {
      kind: "digest",
      items: items.slice(0, DIGEST_MAX_ITEMS),
      omitted: Math.max(0, items.length - DIGEST_MAX_ITEMS),
    };
    const first = held[0]?.id ?? 0;
    const last = held[held.length - 1]?.id ?? 0;
    const [row] = await insertAlertsWithOutbox(tx, [
      {
        userId,
        kind: "digest",
        subjectId: String(first),
        version: String(held.length),
        dedupeKey: `digest:${userId}:${first}-${last}`,
        destination: "dm",
        payload: toOutboxPayload(alert) as JsonValue,
      },
    ]);
    // The key cannot exist (these rows were just taken), but never lose alerts if it somehow does.
    if (row === undefined) {
      await enqueueMessage(tx, {
        userId,
        destination: "dm",
        payload: toOutboxPayload(alert) as JsonValue,
      });
    }
    return held.length;
  });
}

export { deliveryUsers, holdClaimed, redirectClaimed, ruleChannelOfAlert } from "../db/repos/delivery.ts";

// Drains the outbox to Discord through an AlertSender: leases, retries, closed DMs, quiet hours and digests.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "../log.ts";
import {
  claimDue,
  renewLease,
  markFailed,
  markSent,
  usersWithHeld,
  type ClaimedMessage,
  type Recipient,
  type RetryPolicy,
} from "../db/repos/outbox.ts";
import { installTag } from "../db/repos/state.ts";
import { outboxNonce } from "./nonce.ts";
import { clearDmClosed, markDmClosed, rememberDmChannel } from "../db/repos/users.ts";
import { OutboxPayload } from "./payload.ts";
import { quietHoursOf, quietState } from "./quietHours.ts";
import type { AlertSender, AlertTarget, SendResult } from "./sender.ts";
import type { Db } from "../db/types.ts";
import { deliveryUsers, holdClaimed, redirectClaimed, ruleChannelOfAlert } from "../db/repos/delivery.ts";
import { releaseHeldAsDigest } from "./store.ts";

/** Observes deliveries (src/metrics.ts implements it). */
export interface DeliveryMetrics {
  alertSent(event: AlertSentEvent): void;
  /** A send that did not reach Discord: to be retried, or given up for good. */
  alertFailed?(event: AlertFailedEvent): void;
}

export interface AlertFailedEvent {
  target: "dm" | "channel";
  /** "retry": tried again later; "failed": given up (undeliverable or out of attempts). */
  result: "retry" | "failed";
}

export interface AlertSentEvent {
  /** The alert kind: listing, outbid, auction_ended, trade, digest... */
  kind: string;
  /** When the outbox row was written (detection). */
  queuedAt: Date;
  /** When the listing appeared on the marketplace (listing alerts that carry it). */
  listedAt: Date | undefined;
}

export interface DeliveryOptions {
  prisma: Db;
  sender: AlertSender;
  logger: Logger;
  /** Distinguishes replicas in the outbox's locked_by column. */
  workerId?: string;
  /**
   * How long a claim is ours. Must exceed one send (including discord.js's own 429 waits) and
   * stay well inside Discord's nonce window, so a re-send after a crash is deduplicated (ADR 004).
   */
  leaseMs?: number;
  batchSize?: number;
  /** Sends in flight at once; rows of one target always go one after another, in order. */
  concurrency?: number;
  /** Backoff of Discord 5xx/429 that surfaced past discord.js's own retries. */
  retry?: RetryPolicy;
  /** Clock for quiet hours (tests move it); leases use the database clock. */
  now?: () => Date;
  metrics?: DeliveryMetrics;
}

export interface DeliveryResult {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  held: number;
  redirected: number;
  /** Held rows released into digests (or as they were, when only one was held). */
  released: number;
  /** Of `claimed`, rows claimed by their insert and handed over (ADR 038), not by this pass. */
  handed: number;
}

function noDeliveries(): DeliveryResult {
  return { claimed: 0, sent: 0, retried: 0, failed: 0, held: 0, redirected: 0, released: 0, handed: 0 };
}

export interface DeliveryStats extends DeliveryResult {
  runs: number;
  lastRunAt: Date | undefined;
}

/** Rows an alert write claimed for this worker as it inserted them (ClaimAtInsert, ADR 038). */
export interface HandedRows {
  /** In claim order. */
  rows: readonly ClaimedMessage[];
  /** When the claim was made (local clock, taken just before the insert): how old its lease is. */
  claimedAt: number;
}

export interface DeliveryWorker {
  /**
   * One pass: send `handed` (rows claimed at their insert); or, without them, release finished
   * quiet hours into digests, then claim due rows and send those.
   */
  runOnce(handed?: HandedRows): Promise<DeliveryResult>;
  stats(): DeliveryStats;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Most rows one pass sends. */
  readonly batchSize: number;
}

export function createDeliveryWorker(opts: DeliveryOptions): DeliveryWorker {
  const log = opts.logger.child({ module: "alerts.delivery" });
  const workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const leaseMs = opts.leaseMs ?? 60_000;
  /** When the current pass claimed its rows (local clock): how old their leases are. */
  let passStartedAt = Date.now();
  let tagOnce: Promise<string> | undefined;
  const tag = (): Promise<string> => {
    tagOnce ??= installTag(opts.prisma).catch((error: unknown) => {
      tagOnce = undefined;
      throw error;
    });
    return tagOnce;
  };
  const batchSize = opts.batchSize ?? 50;
  // A feed page's alerts go out together: a fifth watcher's DM must not wait for the first four
  // answers and their bookkeeping. Discord's limits are kept by the global pacer and discord.js's
  // per-route queues, not by this bound, which only keeps sockets and memory modest.
  const concurrency = Math.max(1, opts.concurrency ?? 16);
  const retry = opts.retry ?? { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 10 * 60_000 };
  const now = opts.now ?? (() => new Date());
  const totals: DeliveryStats = { runs: 0, lastRunAt: undefined, ...noDeliveries() };

  function observeSent(row: ClaimedMessage, alert: { kind: string; listedAt?: string | undefined }): void {
    try {
      const listedAt = alert.listedAt === undefined ? undefined : new Date(alert.listedAt);
      opts.metrics?.alertSent({ kind: alert.kind, queuedAt: row.createdAt, listedAt });
    } catch (err) {
      // A broken metrics sink must not turn a delivered alert into a retried one.
      log.warn({ err, outboxId: row.id }, "delivery metrics hook threw");
    }
  }

  /**
   * Whether held rows may exist: set when this worker holds one (and at start); a pass then looks.
   * Another replica's held rows are looked for every HELD_CHECK_EVERY_MS all the same, so the
   * common pass (nobody in quiet hours) spends no query on them before its sends.
   */
  let heldMaybe = true;
  let heldCheckedAt = -Infinity;

  function observeFailed(row: ClaimedMessage, event: AlertFailedEvent): void {
    try {
      opts.metrics?.alertFailed?.(event);
    } catch (err) {
      log.warn({ err, outboxId: row.id }, "delivery metrics hook threw");
    }
  }

  async function releaseFinishedQuietHours(result: DeliveryResult): Promise<void> {
    const t = Date.now();
    if (!heldMaybe && t - heldCheckedAt < HELD_CHECK_EVERY_MS) return;
    heldCheckedAt = t;
    const userIds = await usersWithHeld(opts.prisma);
    heldMaybe = userIds.length > 0;
    if (userIds.length === 0) return;
    const users = await deliveryUsers(opts.prisma, userIds);
    for (const user of users) {
      if (quietState(quietHoursOf(user), now()).quiet) continue;
      const released = await releaseHeldAsDigest(opts.prisma, user.id);
      if (released > 0) log.info({ userId: user.id, released }, "quiet hours over: held alerts released");
      result.released += released;
    }
  }

  async function deliver(
    row: ClaimedMessage,
    user: Recipient | undefined,
    result: DeliveryResult,
  ): Promise<void> {
    const ctx = { outboxId: row.id, userId: row.userId, attempt: row.attempts };
    const parsed = OutboxPayload.safeParse(row.payload);
    if (!parsed.success || user === undefined) {
      log.error(
        { ...ctx, issues: parsed.success ? undefined : parsed.error.issues.slice(0, 3) },
        "outbox row cannot be sent",
      );
      await markFailed(opts.prisma, row.id, workerId, {
        error: user === undefined ? "user gone" : "invalid payload",
        permanent: true,
      });
      result.failed += 1;
      observeFailed(row, { target: row.destination === "channel" ? "channel" : "dm", result: "failed" });
      return;
    }
    const alert = parsed.data.alert;
    let target: AlertTarget;
    if (row.destination === "channel" && row.channelId !== null) {
      target = { kind: "channel", channelId: row.channelId };
    } else {
      // Quiet hours are personal: they hold DMs, not posts to a shared channel.
      if (alert.kind !== "digest" && quietState(quietHoursOf(user), now()).quiet) {
        await holdClaimed(opts.prisma, row.id, workerId);
        heldMaybe = true;
        result.held += 1;
        log.debug(ctx, "alert held for quiet hours");
        return;
      }
      target = { kind: "dm", userId: row.discordUserId, channelId: row.dmChannelId ?? undefined };
    }

    // A pass that has run long (Discord's waits) renews each row's lease before sending it, and
    // never sends a row whose lease ran out; early in a pass the claim's own lease is ample.
    const renew = Date.now() - passStartedAt > leaseMs / 3;
    if (renew && !(await renewLease(opts.prisma, row.id, workerId, leaseMs))) {
      log.warn(ctx, "lease on an alert ran out before sending; left to its new owner");
      return;
    }
    let outcome: SendResult;
    try {
      outcome = await opts.sender.send({
        target,
        ownerId: row.discordUserId,
        alert,
        // Per row and per target: a redirected row is a different message from the DM it replaces.
        nonce: outboxNonce(await tag(), row, target.kind),
      });
    } catch (error) {
      // A sender should map every failure to a result; a throw is a bug, retried rather than lost.
      log.error({ ...ctx, err: error }, "alert sender threw");
      outcome = { kind: "retryable", retryAfterMs: 0, reason: "sender threw" };
    }

    switch (outcome.kind) {
      case "sent":
        if (await markSent(opts.prisma, row.id, workerId, { discordMessageId: outcome.messageId })) {
          result.sent += 1;
          observeSent(row, alert);
        }
        if (target.kind === "dm" && user.dmClosedAt !== null) await clearDmClosed(opts.prisma, row.userId);
        if (target.kind === "dm" && outcome.channelId !== undefined && outcome.channelId !== row.dmChannelId)
          await rememberDmChannel(opts.prisma, row.userId, outcome.channelId);
        log.info({ ...ctx, kind: alert.kind, messageId: outcome.messageId }, "alert sent");
        return;
      case "dm_closed": {
        await markDmClosed(opts.prisma, row.userId);
        const fallback = await fallbackChannel(row, alert.kind, user);
        if (fallback !== undefined) {
          await redirectClaimed(opts.prisma, row.id, workerId, fallback, "dm closed: redirected to channel");
          result.redirected += 1;
          log.info({ ...ctx, channelId: fallback }, "DMs closed: alert redirected to the rule's channel");
        } else {
          await markFailed(opts.prisma, row.id, workerId, { error: "dm closed", permanent: true });
          result.failed += 1;
          observeFailed(row, { target: target.kind, result: "failed" });
          log.info(ctx, "DMs closed: alert recorded as undeliverable");
        }
        return;
      }
      case "retryable": {
        const next = await markFailed(
          opts.prisma,
          row.id,
          workerId,
          { error: outcome.reason, retryAfterMs: outcome.retryAfterMs },
          retry,
        );
        if (next === "failed" || next === "retry") observeFailed(row, { target: target.kind, result: next });
        if (next === "failed") {
          result.failed += 1;
          log.warn({ ...ctx, reason: outcome.reason }, "alert given up after too many attempts");
        } else if (next === "retry") {
          result.retried += 1;
          log.warn({ ...ctx, reason: outcome.reason }, "alert send failed; will retry");
        }
        return;
      }
      case "permanent":
        await markFailed(opts.prisma, row.id, workerId, { error: outcome.reason, permanent: true });
        result.failed += 1;
        observeFailed(row, { target: target.kind, result: "failed" });
        log.warn({ ...ctx, reason: outcome.reason }, "alert cannot be delivered");
        return;
    }
  }

  /**
   * Where a listing alert goes when DMs are closed: the rule's channel, else the user's default
   * alert channel. Other kinds (trades, bids, the account) are private and are never posted
   * to a shared channel.
   */
  async function fallbackChannel(
    row: ClaimedMessage,
    kind: string,
    user: Recipient,
  ): Promise<string | undefined> {
    if (kind !== "listing" || row.alertId === null) return undefined;
    return (await ruleChannelOfAlert(opts.prisma, row.alertId)) ?? user.defaultChannelId ?? undefined;
  }

  return {
    workerId,
    leaseMs,
    batchSize,
    async runOnce(handed) {
      const result = noDeliveries();
      let rows: readonly ClaimedMessage[];
      if (handed !== undefined && handed.rows.length > 0) {
        // Claimed by their insert a moment ago: their leases date from then. Nothing else on
        // their way: finished quiet hours are released by the claiming pass that follows.
        passStartedAt = handed.claimedAt;
        rows = handed.rows;
        result.handed = rows.length;
      } else {
        await releaseFinishedQuietHours(result);
        passStartedAt = Date.now();
        rows = await claimDue(opts.prisma, { workerId, limit: batchSize, leaseMs });
      }
      result.claimed = rows.length;
      if (rows.length > 0) {
        // The claim read each recipient's settings with the row: no query between claim and send.
        const byId = new Map(rows.map((r) => [r.userId, r.recipient]));
        // A batch spanning tiers (snipe outcomes, then listings...) finishes one tier before the
        // next starts, so sends side by side cannot overtake a higher tier (ADR 018).
        for (const tier of tiersOf(rows)) {
          // One lane per target keeps a user's alerts in order; lanes run side by side.
          const lanes = new Map<string, ClaimedMessage[]>();
          for (const row of tier) {
            const key = row.destination === "channel" ? `c${row.channelId}` : `u${row.userId}`;
            lanes.set(key, [...(lanes.get(key) ?? []), row]);
          }
          const queue = [...lanes.values()];
          const runLane = async (): Promise<void> => {
            for (let lane = queue.shift(); lane !== undefined; lane = queue.shift()) {
              for (const row of lane) await deliver(row, byId.get(row.userId), result);
            }
          };
          await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, runLane));
        }
      }
      totals.runs += 1;
      totals.lastRunAt = new Date();
      for (const k of [
        "claimed",
        "sent",
        "retried",
        "failed",
        "held",
        "redirected",
        "released",
        "handed",
      ] as const) {
        totals[k] += result[k];
      }
      return result;
    },
    stats() {
      return { ...totals };
    },
  };
}

/** How often a worker looks for rows held by another replica (quiet hours are minutes long). */
const HELD_CHECK_EVERY_MS = 15_000;

/** Claimed rows cut into runs of one priority tier, in claim order. */
function tiersOf(rows: readonly ClaimedMessage[]): ClaimedMessage[][] {
  const tiers: ClaimedMessage[][] = [];
  for (const row of rows) {
    const last = tiers[tiers.length - 1];
    if (last?.[0]?.priority === row.priority) last.push(row);
    else tiers.push([row]);
  }
  return tiers;
}

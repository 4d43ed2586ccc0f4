// Guard digests: what the user's guards did, batched into one DM per period instead of one per
// change. A stop or a reached daily limit is news at once: it sends the digest straight away.
import { writeAlerts } from "../outbox/store.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { GuardDigestEntry } from "../outbox/payload.ts";
import {
  guardsOf,
  markDigested,
  undigestedEvents,
  type GuardEventRecord,
  type GuardRecord,
} from "../db/repos/guards.ts";
import type { GuardDeps } from "./deps.ts";

/** Lines one digest lists; older ones are counted as "…and n more". */
const MAX_ENTRIES = 20;

function entryOf(e: GuardEventRecord, g: GuardRecord): GuardDigestEntry {
  return {
    guardId: String(g.id),
    guard: g.kind,
    subjectId: g.subjectId,
    ...(g.itemName === null ? {} : { itemName: g.itemName }),
    event: e.kind,
    ...(e.fromCents === null ? {} : { fromCents: e.fromCents }),
    ...(e.toCents === null ? {} : { toCents: e.toCents }),
    ...(e.rivalCents === null ? {} : { rivalCents: e.rivalCents }),
    limitCents: g.limitCents,
    ...(e.detail === null ? {} : { detail: e.detail }),
    at: e.at.toISOString(),
  };
}

/**
 * Queues a digest for each user whose oldest untold event is at least `everyMs` old, or who has a
 * stop or a reached limit to hear about. The events are marked told in the same transaction as
 * the DM is queued (its dedupe key names the newest event), so none is told twice or lost.
 */
export async function queueGuardDigests(
  deps: GuardDeps,
  everyMs: number,
  at: Date = deps.now(),
): Promise<number> {
  let queued = 0;
  for (const [userId, events] of await undigestedEvents(deps.prisma)) {
    const first = events[0];
    const last = events[events.length - 1];
    if (first === undefined || last === undefined) continue;
    const urgent = events.some((e) => e.kind !== "change");
    if (!urgent && at.getTime() - first.at.getTime() < everyMs) continue;
    const guards = new Map(
      (await guardsOf(deps.prisma, userId, [...new Set(events.map((e) => e.guardId))])).map((g) => [g.id, g]),
    );
    const entries = events.flatMap((e) => {
      const g = guards.get(e.guardId);
      return g === undefined ? [] : [entryOf(e, g)];
    });
    const shown = entries.slice(-MAX_ENTRIES);
    const ids = events.map((e) => e.id);
    if (shown.length === 0) {
      await markDigested(deps.prisma, ids, at);
      continue;
    }
    const active = [...guards.values()].filter((g) => g.status === "active").map((g) => String(g.id));
    const written = await writeAlerts(
      deps.prisma,
      [
        {
          userId,
          kind: "guard_digest",
          subjectId: String(last.guardId),
          version: String(last.id),
          dedupeKey: dedupeKey.guardDigest(userId, last.id),
          destination: "dm",
          alert: {
            kind: "guard_digest",
            entries: shown,
            omitted: entries.length - shown.length,
            activeGuardIds: active,
          },
        },
      ],
      (tx) => markDigested(tx, ids, at),
    );
    queued += written.length;
  }
  return queued;
}

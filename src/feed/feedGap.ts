// Tells watchers about listings the feed had to give up: one notice per user and gap, through the outbox.
import type { Logger } from "../log.ts";
import { dedupeKey } from "../outbox/content.ts";
import type { FeedGap } from "./feedPoller.ts";
import { enabledRuleCountsByOwner } from "../db/repos/rules.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts, type NewAlert } from "../outbox/store.ts";

export interface FeedGapDeps {
  prisma: Db;
  logger: Logger;
}

/** Rules created this long after the gap's last known listing still count (clocks differ). */
const RULE_CLOCK_SLACK_MS = 60_000;
/** Notices written per transaction. */
const BATCH = 500;

/**
 * Nothing is known about the skipped listings (not their items, not their prices), so every rule
 * that could have been matching then could have matched one: an enabled rule that existed by the
 * end of the gap, whose owner gets listing alerts (the same owners queueListingAlerts serves).
 * One notice per owner, however many of their rules qualify. Returns the notices newly queued.
 */
export async function queueGapNotices(deps: FeedGapDeps, gap: FeedGap): Promise<number> {
  const before = instant(gap.before.createdAt);
  const after = instant(gap.after.createdAt);
  const owners = await enabledRuleCountsByOwner(
    deps.prisma,
    before === undefined ? undefined : new Date(before.getTime() + RULE_CLOCK_SLACK_MS),
  );
  const alerts: NewAlert[] = owners.map((o) => ({
    userId: o.userId,
    kind: "feed_gap",
    subjectId: "",
    version: `${gap.after.listingId}-${gap.before.listingId}`,
    dedupeKey: dedupeKey.feedGap(o.userId, gap.after.listingId, gap.before.listingId),
    destination: "dm",
    alert: {
      kind: "feed_gap",
      // The start of time (a first read of an empty market) says nothing worth showing.
      ...(after === undefined || after.getTime() <= 0 ? {} : { after: after.toISOString() }),
      ...(before === undefined ? {} : { before: before.toISOString() }),
      reason: gap.reason,
      ruleCount: o.rules,
    },
  }));
  let queued = 0;
  for (let i = 0; i < alerts.length; i += BATCH) {
    queued += (await writeAlerts(deps.prisma, alerts.slice(i, i + BATCH))).length;
  }
  deps.logger.warn(
    { module: "alerts.feed", reason: gap.reason, owners: owners.length, queued },
    "feed gap: rule owners told",
  );
  return queued;
}

function instant(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : new Date(t);
}

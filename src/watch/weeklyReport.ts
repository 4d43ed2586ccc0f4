// The weekly missed-deal DM: per user, the week's listing alerts, how many got away and what they would have netted.
import { listingsBoughtBy } from "../db/repos/purchases.ts";
import { listingAlertsBetween } from "../db/repos/alerts.ts";
import type { Logger } from "../log.ts";
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import { dedupeKey } from "../outbox/content.ts";
import { isoWeek, summariseMissedDeals, type AlertedDeal } from "../feed/listingFates.ts";
import { OutboxPayload } from "../outbox/payload.ts";
import type { Db } from "../db/types.ts";
import { writeAlerts, type NewAlert } from "../outbox/store.ts";

export interface WeeklyReportDeps {
  prisma: Db;
  logger: Logger;
  fees?: FeeModel;
}

const WEEK_MS = 7 * 86_400_000;
/** Reports written per transaction. */
const BATCH = 500;

/**
 * Queues one report per user who had listing alerts in the 7 days before `now`, keyed by user
 * and ISO week, so a second run (a restart, another replica) writes nothing. Users who switched
 * listing alerts off or whose key was revoked get none, as with the listing alerts themselves.
 * Returns the reports newly queued.
 */
export async function queueWeeklyReports(deps: WeeklyReportDeps, now: Date): Promise<number> {
  const week = isoWeek(now);
  const deals = await dealsOfTheWeek(deps.prisma, new Date(now.getTime() - WEEK_MS), now);
  const alerts: NewAlert[] = [];
  for (const [userId, list] of deals) {
    const s = summariseMissedDeals(list, deps.fees ?? DEFAULT_FEES);
    alerts.push({
      userId,
      kind: "weekly_report",
      subjectId: "",
      version: week,
      dedupeKey: dedupeKey.weeklyReport(userId, week),
      destination: "dm",
      alert: {
        kind: "weekly_report",
        week,
        alerted: s.alerted,
        missed: s.missed,
        ...(s.medianGoneAfterMs === undefined ? {} : { medianGoneAfterMs: s.medianGoneAfterMs }),
        netCents: s.netCents,
      },
    });
  }
  let queued = 0;
  for (let i = 0; i < alerts.length; i += BATCH) {
    queued += (await writeAlerts(deps.prisma, alerts.slice(i, i + BATCH))).length;
  }
  deps.logger.info({ module: "alerts.weekly", week, users: alerts.length, queued }, "weekly reports queued");
  return queued;
}

/** Each user's alerted listings in [since, until], one entry per listing (their first alert of it). */
export async function dealsOfTheWeek(
  prisma: Db,
  since: Date,
  until: Date,
): Promise<Map<number, AlertedDeal[]>> {
  const rows = await listingAlertsBetween(prisma, since, until);
  if (rows.length === 0) return new Map();
  const bought = await listingsBoughtBy(
    prisma,
    [...new Set(rows.map((r) => r.userId))],
    [...new Set(rows.map((r) => r.subjectId))],
  );
  const byUser = new Map<number, Map<string, AlertedDeal>>();
  for (const r of rows) {
    const deals = byUser.get(r.userId) ?? new Map<string, AlertedDeal>();
    byUser.set(r.userId, deals);
    const prices = pricesOf(r.outbox?.payload, r.version);
    const known = deals.get(r.subjectId);
    if (known !== undefined) {
      // Two rules can alert one listing: keep the first alert, and any price it lacked.
      known.referenceCents ??= prices.referenceCents;
      continue;
    }
    deals.set(r.subjectId, {
      listingId: r.subjectId,
      alertedAt: r.createdAt,
      ...prices,
      goneAt: r.goneAt ?? undefined,
      goneState: r.goneState ?? undefined,
      bought: bought.get(r.userId)?.has(r.subjectId) === true,
    });
  }
  return new Map([...byUser].map(([userId, deals]) => [userId, [...deals.values()]]));
}

/**
 * The alerted price and reference, from the alert's payload. A held alert's payload went into
 * its digest: the price is still the alert's version (the listing's price in cents), the
 * reference is unknown and the deal is left out of the net.
 */
function pricesOf(
  payload: unknown,
  version: string,
): { priceCents: number | undefined; referenceCents: number | undefined } {
  const parsed = payload === undefined ? undefined : OutboxPayload.safeParse(payload);
  if (parsed?.success && parsed.data.alert.kind === "listing") {
    return { priceCents: parsed.data.alert.priceCents, referenceCents: parsed.data.alert.referenceCents };
  }
  return { priceCents: /^\d+$/.test(version) ? Number(version) : undefined, referenceCents: undefined };
}

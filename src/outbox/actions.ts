// Verbs behind alert messages' buttons and /alerts: look at an alerted listing, list recent alerts.
import { listingsBoughtBy } from "../db/repos/purchases.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import { requireId } from "../input/validate.ts";
import { toListingSummary, type ListingSummary } from "../trading/views.ts";
import type { MarketApi } from "../market/client.ts";
import { mergeSameListing } from "./grouping.ts";
import { OutboxPayload, type SingleAlert } from "./payload.ts";
import type { Db } from "../db/types.ts";
import { latestAlerts } from "../db/repos/alerts.ts";

/** The listing an alert points at, as it is now (it may have sold since). */
export async function viewListing(
  deps: { market: MarketApi },
  input: { listingId: string },
): Promise<ListingSummary> {
  const listingId = requireId("listing", input.listingId);
  return toListingSummary(await deps.market.getListing(listingId));
}

export interface RecentAlert {
  at: Date;
  kind: string;
  /** Listing, trade or order id ("" for account-wide alerts). */
  subjectId: string;
  /** pending, sending, sent, failed, held; "digest" once folded into a quiet-hours digest. */
  delivery: string;
  alert: SingleAlert | undefined;
  /** Listing alerts: the listing left the market ("sold", "delisted"... or "gone": one of them). */
  fate?: { state: string; afterMs: number } | undefined;
  /** Listing alerts: the user's own purchase of the listing went through. */
  bought?: boolean | undefined;
}

export interface RecentAlerts {
  alerts: RecentAlert[];
  /** The last DM bounced because the user closed DMs to the bot. */
  dmClosed: boolean;
}

/**
 * The user's latest alerts, whether or not they reached Discord: the way to catch up when DMs
 * were closed or an alert was held for quiet hours.
 */
export async function recentAlerts(
  prisma: Db,
  input: { discordId: string; limit?: number },
): Promise<RecentAlerts> {
  const limit = Math.min(Math.max(input.limit ?? 10, 1), 25);
  const [rows, user] = await Promise.all([
    // Alerts about one listing are one entry: read enough rows to fill the list after folding.
    latestAlerts(prisma, input.discordId, limit * 3),
    getUserByDiscordId(prisma, input.discordId),
  ]);
  const listingIds = rows.filter((r) => r.kind === "listing").map((r) => r.subjectId);
  const bought =
    user === null
      ? new Set<string>()
      : ((await listingsBoughtBy(prisma, [user.id], listingIds)).get(user.id) ?? new Set());
  const alerts = rows.map((r): RecentAlert => {
    const parsed = r.outbox === null ? undefined : OutboxPayload.safeParse(r.outbox.payload);
    const listing = r.kind === "listing";
    return {
      ...(listing && r.goneAt !== null && r.goneState !== null
        ? { fate: { state: r.goneState, afterMs: goneAfterMs(r.createdAt, r.goneAt) } }
        : {}),
      ...(listing ? { bought: bought.has(r.subjectId) } : {}),
      at: r.createdAt,
      kind: r.kind,
      subjectId: r.subjectId,
      // A held alert's outbox row is replaced by the digest that carried it.
      delivery: r.outbox?.status ?? "digest",
      alert: parsed?.success && parsed.data.alert.kind !== "digest" ? parsed.data.alert : undefined,
    };
  });
  return { alerts: oneEntryPerListing(alerts).slice(0, limit), dmClosed: user?.dmClosedAt != null };
}

/**
 * One entry per listing (the newest), naming every rule that matched it: alerts written one per
 * rule before grouping, or sent to both a DM and a channel, count once. A row whose payload a
 * digest carried folds by its listing id.
 */
function oneEntryPerListing(alerts: readonly RecentAlert[]): RecentAlert[] {
  const merged = mergeSameListing(
    alerts,
    (a) => a.alert,
    (a, alert) => ({ ...a, alert }),
  );
  const seen = new Set<string>();
  return merged.filter((a) => {
    if (a.kind !== "listing") return true;
    if (seen.has(a.subjectId)) return false;
    seen.add(a.subjectId);
    return true;
  });
}

/** How long after the alert the listing left the market (never negative: it may sell before delivery). */
export function goneAfterMs(alertedAt: Date, goneAt: Date): number {
  return Math.max(0, goneAt.getTime() - alertedAt.getTime());
}

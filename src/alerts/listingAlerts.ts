// Turns new feed listings into queued alerts: index match, then a re-check against the stored rule and its owner's settings.
import type { Logger } from "../log.ts";
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import type { Listing } from "../market/schemas.ts";
import { dedupeKey, listingAlertOf } from "./content.ts";
import type { MatcherIndex } from "./matcher.ts";
import type { ArmMode } from "./ruleIndex.ts";
import { hitKey, type ArmedHit, type AutoBuyer } from "../snipe/autoBuyer.ts";
import type { SalesRate } from "./salesRate.ts";
import { matchesListing } from "./ruleFilters.ts";
import { parseStoredFilters } from "./rules.ts";
import { enabledRulesWithOwners, writeAlerts, type Db, type NewAlert } from "./store.ts";

export interface ListingAlertDeps {
  prisma: Db;
  logger: Logger;
  index: MatcherIndex;
  /** Snipe mode: armed rules act on their matches first; absent, every match only alerts. */
  snipe?: { armedMode(ruleId: string): ArmMode | undefined; autoBuyer: AutoBuyer } | undefined;
  /** The seller fee profit filters and figures count (the index must use the same). */
  fees?: FeeModel;
  /**
   * Sales per day of an item, for min_sales_per_day (too slow for the index: it needs the price
   * history). Without it, rules with that filter match nothing.
   */
  salesRate?: SalesRate;
}

export interface ListingAlertResult {
  /** Rule hits the index reported. */
  matched: number;
  /** Alerts newly queued (a re-read after a crash queues none). */
  queued: number;
  /** Matches armed rules took over (they DM what they did instead of an ordinary alert). */
  armed: number;
}

/**
 * The index can be a moment behind the database (a rule paused in another process), so every
 * hit is confirmed against the stored rule and its owner before an alert is queued: enabled,
 * still matching, account not revoked, listing alerts switched on.
 */
export async function queueListingAlerts(
  deps: ListingAlertDeps,
  listings: readonly Listing[],
  opts: { readAt?: number; taken?: ReadonlySet<string> } = {},
): Promise<ListingAlertResult> {
  const fees = deps.fees ?? DEFAULT_FEES;
  const hits: Array<{ listing: Listing; ruleId: number }> = [];
  const armed: ArmedHit[] = [];
  const before = opts.taken ?? new Set<string>();
  for (const listing of listings) {
    for (const ref of deps.index.match(listing)) {
      const ruleId = Number(ref.id);
      hits.push({ listing, ruleId });
      const mode = deps.snipe?.armedMode(ref.id);
      if (mode !== undefined && !before.has(hitKey(ruleId, listing.id)))
        armed.push({ listing, ruleId, userId: Number(ref.userId), mode });
    }
  }
  if (hits.length === 0) return { matched: 0, queued: 0, armed: 0 };
  // Rules armed since actOnArmedMatches ran (it runs before the rules are synced) act now.
  const taken = new Set(before);
  if (armed.length > 0 && deps.snipe) {
    for (const key of await deps.snipe.autoBuyer.act(armed, opts.readAt ?? Date.now())) taken.add(key);
  }

  const ruleIds = [...new Set(hits.map((h) => h.ruleId))];
  const rules = await enabledRulesWithOwners(deps.prisma, ruleIds);
  const byId = new Map(rules.map((r) => [r.id, r]));

  const confirmed = [];
  for (const { listing, ruleId } of hits) {
    if (taken.has(hitKey(ruleId, listing.id))) continue;
    const rule = byId.get(ruleId);
    // Listing alerts need no key, so unlinked users keep them; a revoked key pauses every alert
    // until the user re-links or unlinks (they were told once, see accounts.ts).
    if (rule === undefined || rule.user.status === "revoked" || !rule.user.alertListing) continue;
    const filters = parseStoredFilters(rule, deps.logger);
    if (filters === undefined || !matchesListing(filters, listing, fees)) continue;
    confirmed.push({ listing, rule, filters });
  }

  // min_sales_per_day: each item's rate read once, all items at once (cached an hour, salesRate.ts).
  const needRate = new Set(
    confirmed
      .filter((c) => c.filters.min_sales_per_day !== undefined)
      .map((c) => c.listing.item.market_hash_name),
  );
  const rates = new Map(
    await Promise.all([...needRate].map(async (name) => [name, await deps.salesRate?.perDay(name)] as const)),
  );

  const alerts: NewAlert[] = [];
  for (const { listing, rule, filters } of confirmed) {
    if (filters.min_sales_per_day !== undefined) {
      const perDay = rates.get(listing.item.market_hash_name);
      if (perDay === undefined || perDay < filters.min_sales_per_day) continue;
    }
    alerts.push({
      userId: rule.userId,
      ruleId: rule.id,
      kind: "listing",
      subjectId: listing.id,
      version: String(listing.price),
      dedupeKey: dedupeKey.listing(rule.id, listing.id),
      ...destinationOf(rule),
      alert: listingAlertOf(listing, { id: rule.id, name: rule.name, filters }, fees),
    });
  }
  const written = await writeAlerts(deps.prisma, alerts);
  if (written.length > 0) {
    deps.logger.info({ matched: hits.length, queued: written.length }, "listing alerts queued");
  }
  return { matched: hits.length, queued: written.length, armed: taken.size };
}

/**
 * Snipe mode goes first, before any other database read: armed rules' matches among `listings`,
 * by the index as it stands, are claimed and their purchases started. Returns what they took
 * over, for queueListingAlerts to leave out.
 */
export async function actOnArmedMatches(
  deps: Pick<ListingAlertDeps, "index" | "snipe">,
  listings: readonly Listing[],
  readAt: number,
): Promise<Set<string>> {
  const snipe = deps.snipe;
  if (snipe === undefined) return new Set();
  const armed: ArmedHit[] = [];
  for (const listing of listings) {
    for (const ref of deps.index.match(listing)) {
      const mode = snipe.armedMode(ref.id);
      if (mode !== undefined)
        armed.push({ listing, ruleId: Number(ref.id), userId: Number(ref.userId), mode });
    }
  }
  return armed.length === 0 ? new Set() : snipe.autoBuyer.act(armed, readAt);
}

/**
 * A rule with its own channel posts there; a rule left on DMs follows the owner's default
 * destination from /account settings (so "send my listing alerts to #deals" applies to all).
 */
function destinationOf(rule: {
  destination: NewAlert["destination"];
  channelId: string | null;
  user: { defaultDestination: NewAlert["destination"]; defaultChannelId: string | null };
}): Pick<NewAlert, "destination" | "channelId"> {
  if (rule.destination === "channel" && rule.channelId !== null) {
    return { destination: "channel", channelId: rule.channelId };
  }
  if (rule.user.defaultDestination === "channel" && rule.user.defaultChannelId !== null) {
    return { destination: "channel", channelId: rule.user.defaultChannelId };
  }
  return { destination: "dm", channelId: null };
}

// Turns new feed listings into queued alerts: index match, then a re-check against the stored rule and its owner's settings.
import type { Logger } from "../log.ts";
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import type { Listing } from "../market/schemas.ts";
import { dedupeKey } from "../outbox/content.ts";
import { listingAlertOf } from "./listingAlertContent.ts";
import { MatchIds, type MatcherIndex } from "./matcher/matcher.ts";
import type { ArmedRule } from "./matcher/ruleIndex.ts";
import { hitKey, type ArmedBuyer, type ArmedHit } from "./armedHits.ts";
import type { SalesRate } from "../feed/salesRate.ts";
import { matchesListing } from "./ruleFilters.ts";
import { parseStoredFilters } from "./rules.ts";
import { releaseHeldBack } from "../db/repos/outbox.ts";
import { enabledRulesWithOwners } from "../db/repos/matching.ts";
import type { Db } from "../db/types.ts";
import { writeAlertsFlushedLater, type NewAlert } from "../outbox/store.ts";
import { groupInOrder, withOtherRules } from "../outbox/grouping.ts";
import type { DeliveryHandOver } from "../outbox/part.ts";

export interface ListingAlertDeps {
  prisma: Db;
  logger: Logger;
  index: MatcherIndex;
  /** Snipe mode: armed rules act on their matches first; absent, every match only alerts. */
  snipe?:
    | {
        /** The armed rules alone (the rule index's armedIndex): their hits are found there. */
        armedIndex: MatcherIndex;
        /** An armed rule's mode and the filters its index matched with (undefined: not armed). */
        armedRule(ruleId: string): ArmedRule | undefined;
        autoBuyer: ArmedBuyer;
      }
    | undefined;
  /** The seller fee profit filters and figures count (the index must use the same). */
  fees?: FeeModel;
  /**
   * Sales per day of an item, for min_sales_per_day (too slow for the index: it needs the price
   * history). Without it, rules with that filter match nothing.
   */
  salesRate?: SalesRate;
  /**
   * Longest that ordinary alerts of a listing an armed rule took wait for the armed outcome DMs
   * to be queued (they are released as soon as they are). Default ARMED_HOLD_MS.
   */
  armedHoldMs?: number;
  /** Told when held alerts become due, so delivery can start at once. */
  onReleased?: () => void;
  /** Told as soon as alerts are written (before the look for rule changes), so delivery starts at once. */
  onQueued?: () => void;
  /**
   * This process's delivery worker, when it may take alerts as they are written: their rows are
   * claimed for it by the insert and handed over, so no claim of its own stands between the
   * feed page and Discord (ADR 038). Without it, or while it has other work, rows wait as pending.
   */
  handOver?: DeliveryHandOver | undefined;
  /** MARKET_SCREENSHOT_URL: alerts link the item's screenshot when set. */
  screenshotTemplate?: string | undefined;
  /**
   * Brings the index up to date with rules saved elsewhere (the engine's rule sync); true when it
   * changed anything. Called once the first alerts are written. Read `index` and
   * `snipe.armedIndex` at each use: a sync may replace them.
   */
  syncRules?: () => Promise<boolean>;
}

/** A live buy's answer can take this long; past it, ordinary alerts go out anyway. */
export const ARMED_HOLD_MS = 3_000;

export interface ListingAlertResult {
  /** Rule hits the index reported. */
  matched: number;
  /** Alerts newly queued, one per listing, user and destination (a re-read after a crash queues none). */
  queued: number;
  /** Matches armed rules took over (they DM what they did instead of an ordinary alert). */
  armed: number;
}

/**
 * The index can be a moment behind the database (a rule paused in another process), so every
 * hit is confirmed against the stored rule and its owner before an alert is queued: enabled,
 * still matching, account not revoked, listing alerts switched on.
 *
 * The look for rules saved elsewhere (`syncRules`) comes after the alerts are written, off their
 * way to Discord: it finds nothing on almost every cycle. When it does find changes, the listings
 * are matched again on the updated index and what the first pass did not handle is handled then,
 * so no rule saved before the page was read is missed (it is only a few milliseconds later).
 */
export async function queueListingAlerts(
  deps: ListingAlertDeps,
  listings: readonly Listing[],
  opts: { readAt?: number; taken?: ReadonlySet<string> } = {},
): Promise<ListingAlertResult> {
  const readAt = opts.readAt ?? Date.now();
  // Hits armed rules took over: the snipe pass's, then each alerts pass's own.
  const taken = new Set(opts.taken ?? []);
  const handled = new Set<string>();
  const first = await alertPass(deps, listings, matchAll(deps, listings, taken), {
    taken,
    handled,
    readAt,
    deferStaleArmed: true,
  });
  const changed = deps.syncRules === undefined ? false : await deps.syncRules();
  if (!changed && first.deferred === 0) return { ...first.result, armed: taken.size };
  // Only what the first pass left: its alerts are written, its confirmed misses stay misses.
  const again = matchAll(deps, listings, taken);
  const left = { ...again, hits: again.hits.filter((h) => !handled.has(hitKey(h.ruleId, h.listing.id))) };
  const second = await alertPass(deps, listings, left, { taken, handled, readAt, deferStaleArmed: false });
  return {
    matched: first.result.matched + second.result.matched,
    queued: first.result.queued + second.result.queued,
    armed: taken.size,
  };
}

/**
 * One pass over `matched`: armed hits act, the other hits are confirmed against the stored rules
 * and written as alerts. `handled` gains every hit it settled (alerted, taken or refused).
 * `deferStaleArmed`: a rule stored as armed that the index does not hold as armed yet (armed in
 * another process a moment ago) is left for the pass after the index's sync, where it acts as
 * armed instead of alerting like an ordinary rule; counted in `deferred`.
 */
async function alertPass(
  deps: ListingAlertDeps,
  listings: readonly Listing[],
  matched: Matched,
  pass: { taken: Set<string>; handled: Set<string>; readAt: number; deferStaleArmed: boolean },
): Promise<{ result: Omit<ListingAlertResult, "armed">; deferred: number }> {
  const fees = deps.fees ?? DEFAULT_FEES;
  const { hits, armed } = matched;
  if (hits.length === 0) return { result: { matched: 0, queued: 0 }, deferred: 0 };
  const stored = storedRulesOf(deps.prisma, hits);
  const { taken, handled } = pass;
  // Rules armed since actOnArmedMatches ran (it runs before the rules are synced) act now.
  if (armed.length > 0 && deps.snipe) {
    for (const key of await deps.snipe.autoBuyer.act(armed, pass.readAt)) taken.add(key);
  }

  // A listing's fan-out is written oldest rule first: rows go out in the order they are written.
  const listingOrder = new Map(listings.map((l, i) => [l.id, i]));
  hits.sort(
    (a, b) =>
      (listingOrder.get(a.listing.id) ?? 0) - (listingOrder.get(b.listing.id) ?? 0) || a.ruleId - b.ruleId,
  );
  // Armed rules' outcome DMs go first: ordinary alerts of a listing they took wait until those
  // are queued (a shadow outcome is written a moment after this, a live one after the buy).
  const armedKeys = [...taken];
  const armedListings = new Set(armedKeys.map((k) => k.slice(k.indexOf(":") + 1)));
  const holdMs = deps.armedHoldMs ?? ARMED_HOLD_MS;

  const rules = await stored;
  const byId = new Map(rules.map((r) => [r.id, r]));

  const confirmed = [];
  let deferred = 0;
  for (const { listing, ruleId } of hits) {
    const key = hitKey(ruleId, listing.id);
    if (taken.has(key)) {
      handled.add(key);
      continue;
    }
    const rule = byId.get(ruleId);
    if (
      pass.deferStaleArmed &&
      deps.snipe !== undefined &&
      rule?.armMode != null &&
      deps.snipe.armedRule(String(ruleId)) === undefined
    ) {
      deferred += 1;
      continue;
    }
    handled.add(key);
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

  const matches = [];
  for (const c of confirmed) {
    if (c.filters.min_sales_per_day !== undefined) {
      const perDay = rates.get(c.listing.item.market_hash_name);
      if (perDay === undefined || perDay < c.filters.min_sales_per_day) continue;
    }
    matches.push({ ...c, to: destinationOf(c.rule) });
  }
  // One alert per listing, user and destination, naming every rule of theirs that matched (the
  // oldest first): grouped here, in memory, so the fan-out costs no more queries than before.
  const groups = groupInOrder(
    matches,
    (m) => `${m.listing.id}|${m.rule.userId}|${m.to.destination}|${m.to.channelId ?? ""}`,
  );
  const alerts: NewAlert[] = [];
  for (const group of groups) {
    const [first, ...others] = group;
    if (first === undefined) continue;
    const { listing, rule, filters, to } = first;
    const alert = listingAlertOf(
      listing,
      { id: rule.id, name: rule.name, filters },
      fees,
      deps.screenshotTemplate,
    );
    alerts.push({
      userId: rule.userId,
      ruleId: rule.id,
      alsoRuleIds: others.map((o) => o.rule.id),
      kind: "listing",
      subjectId: listing.id,
      version: String(listing.price),
      dedupeKey: dedupeKey.listing(rule.userId, listing.id, to.channelId),
      ...to,
      alert: withOtherRules(
        alert,
        others.map((o) => ({ ruleId: String(o.rule.id), ruleName: o.rule.name })),
      ),
      ...(armedListings.has(listing.id) && holdMs > 0 ? { holdMs } : {}),
    });
  }
  // Written without waiting for the commit's flush to disk: the feed's mark is saved after this
  // with a flushed commit (which flushes these rows too), so a database crash before it loses
  // the rows and the mark together and the listings are read again (ADR 037).
  const claim = alerts.length > 0 ? deps.handOver?.claim() : undefined;
  const { written, claimed } = await writeAlertsFlushedLater(deps.prisma, alerts, claim);
  if (claim !== undefined) deps.handOver?.take(claimed, claim);
  if (written.length > claimed.length) deps.onQueued?.();
  if (written.length > 0) {
    deps.logger.info(
      { matched: hits.length, confirmed: matches.length, queued: written.length },
      "listing alerts queued",
    );
  }
  const held = alerts.filter((a) => a.holdMs !== undefined).map((a) => a.dedupeKey);
  const writtenKeys = new Set(written);
  const heldWritten = held.filter((k) => writtenKeys.has(k));
  if (heldWritten.length > 0 && deps.snipe)
    releaseAfterOutcomes(deps, deps.snipe.autoBuyer, armedKeys, heldWritten);
  return { result: { matched: hits.length - deferred, queued: written.length }, deferred };
}

interface Matched {
  hits: Array<{ listing: Listing; ruleId: number }>;
  armed: ArmedHit[];
}

/** Every listing against the index as it stands, and the armed rules' hits not yet `taken`. */
function matchAll(deps: ListingAlertDeps, listings: readonly Listing[], taken: ReadonlySet<string>): Matched {
  const hits: Matched["hits"] = [];
  const armed: ArmedHit[] = [];
  const found = new MatchIds();
  for (const listing of listings) {
    const count = deps.index.matchInto(listing, found);
    for (let i = 0; i < count; i++) hits.push({ listing, ruleId: Number(found.idAt(i)) });
    if (deps.snipe !== undefined) pushArmedHits(deps.snipe, listing, found, armed, taken);
  }
  return { hits, armed };
}

/**
 * The stored rules behind the hits, with their owners' settings (no query when there are none).
 * Read beside the armed rules' purchases and awaited after them: its failure is never left
 * unhandled meanwhile.
 */
function storedRulesOf(prisma: Db, hits: Matched["hits"]) {
  if (hits.length === 0) return Promise.resolve([]);
  const read = enabledRulesWithOwners(prisma, [...new Set(hits.map((h) => h.ruleId))]);
  read.catch(() => undefined);
  return read;
}

/**
 * In the background: once the armed outcomes are queued, the held ordinary alerts are due. If
 * this never runs (crash, error), they come due on their own when the hold ends.
 */
function releaseAfterOutcomes(
  deps: ListingAlertDeps,
  autoBuyer: ArmedBuyer,
  armedKeys: readonly string[],
  held: readonly string[],
): void {
  void autoBuyer
    .outcomesQueued(armedKeys)
    .then(() => releaseHeldBack(deps.prisma, held))
    .then((released) => {
      deps.logger.debug(
        { released, armed: armedKeys.length },
        "ordinary alerts released after armed outcomes",
      );
      if (released > 0) deps.onReleased?.();
    })
    .catch((err: unknown) => {
      deps.logger.warn(
        { err, held: held.length },
        "held alerts not released early; they come due when the hold ends",
      );
    });
}

/**
 * Snipe mode goes first, before any other database read: armed rules' matches among `listings`,
 * by the index as it stands (the rule index's armedIndex: the armed rules alone), are claimed and
 * their purchases started. Returns what they took over, for queueListingAlerts to leave out.
 */
export async function actOnArmedMatches(
  deps: Pick<ListingAlertDeps, "snipe">,
  listings: readonly Listing[],
  readAt: number,
): Promise<Set<string>> {
  const snipe = deps.snipe;
  if (snipe === undefined) return new Set();
  const armed: ArmedHit[] = [];
  const found = new MatchIds();
  for (const listing of listings) pushArmedHits(snipe, listing, found, armed, new Set());
  return armed.length === 0 ? new Set() : snipe.autoBuyer.act(armed, readAt);
}

/**
 * Appends the listing's hits among the armed rules (matched against the armed index alone, a
 * few rules), leaving out those already `taken`. `found`: scratch for the match.
 */
function pushArmedHits(
  snipe: NonNullable<ListingAlertDeps["snipe"]>,
  listing: Listing,
  found: MatchIds,
  out: ArmedHit[],
  taken: ReadonlySet<string>,
): void {
  const count = snipe.armedIndex.matchInto(listing, found);
  for (let i = 0; i < count; i++) {
    const id = found.idAt(i);
    const armed = snipe.armedRule(String(id));
    const ruleId = Number(id);
    if (armed !== undefined && !taken.has(hitKey(ruleId, listing.id)))
      out.push({
        listing,
        ruleId,
        userId: Number(snipe.armedIndex.ownerOf(id)),
        mode: armed.mode,
        filters: armed.filters,
      });
  }
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

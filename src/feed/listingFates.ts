// What became of alerted listings, from reads the bot makes anyway (the feed, single listing reads): plain data in and out.
import { goneAfterMs } from "../outbox/actions.ts";
import type { FeeModel } from "../market/fees.ts";
import type { Listing, ListingPlace } from "../market/schemas.ts";

/** The state recorded when the feed saw a listing leave but not why (sold or delisted). */
export const GONE = "gone";

/** One sighting of a listing off the market. */
export interface FateObservation {
  listingId: string;
  /** sold, delisted, refunded... from a listing read; GONE from the feed. */
  state: string;
  /** When it left: the listing's sold_at when it has one, else when the bot saw it gone. */
  at: Date;
  /** `at` is the marketplace's own time of the sale, not when the bot noticed. */
  exactTime: boolean;
}

/** A single listing read: its fate, or nothing while it is still listed (or its state is unknown). */
export function fateOfListing(listing: Listing, readAt: Date): FateObservation | undefined {
  const said = listing.state.trim().toLowerCase();
  if (said === "" || said === "listed") return undefined;
  // The state is shown to users: anything but a plain word is recorded as plain "gone".
  const state = /^[a-z_]{1,32}$/.test(said) ? said : GONE;
  const soldAt = listing.sold_at === undefined ? NaN : Date.parse(listing.sold_at);
  const exactTime = !Number.isNaN(soldAt);
  return { listingId: listing.id, state, at: exactTime ? new Date(soldAt) : readAt, exactTime };
}

/** The newest-listings page of one feed cycle. */
export interface FeedPageRead {
  /** Newest first, as the marketplace sent them. */
  listings: readonly ListingPlace[];
  /** No page follows: the read holds every listing on the market, the oldest included. */
  complete: boolean;
}

/**
 * Listings of the previous first page that are missing from the current one although they
 * cannot have been pushed off it: strictly newer (by created_at, ties excluded) than the oldest
 * listing the current page shows. New listings push old ones down, never out of that window, so
 * a listing missing from inside it has left the market. Anything the window cannot vouch for (no
 * created_at, at or below the boundary, an empty current page) is never called gone.
 */
export function goneFromFeed(previous: readonly ListingPlace[], current: FeedPageRead): string[] {
  if (current.listings.length === 0) return [];
  const present = new Set(current.listings.map((l) => l.id));
  let boundary = -Infinity;
  if (!current.complete) {
    const oldest = current.listings[current.listings.length - 1];
    boundary = instant(oldest?.created_at);
    if (Number.isNaN(boundary)) return [];
  }
  // The page must be sorted newest first; a page that is not cannot vouch for its window.
  if (!newestFirst(current.listings)) return [];
  const gone: string[] = [];
  for (const l of previous) {
    if (present.has(l.id)) continue;
    const at = instant(l.created_at);
    if (Number.isNaN(at) || at <= boundary) continue;
    gone.push(l.id);
  }
  return gone;
}

/**
 * Listings of the previous first page missing from the current one where the page, by places
 * alone, must still show them: each listing on the current page that the previous one lacked
 * (new, or come up from below) can push one old listing off the bottom, so the old page's first
 * (current length - newcomers) listings stay unless they left. Unlike goneFromFeed it needs no
 * created_at and sees listings created at the same instant (a seller's bulk listing); it trusts
 * the service to keep the relative order of listings between two reads, so it is a hint (whose
 * sale to look for first), never recorded as a fate.
 */
export function missingByPosition(
  previous: readonly ListingPlace[],
  current: readonly ListingPlace[],
): string[] {
  if (current.length === 0) return [];
  const before = new Set(previous.map((l) => l.id));
  const present = new Set(current.map((l) => l.id));
  let newcomers = 0;
  for (const l of current) if (!before.has(l.id)) newcomers += 1;
  const kept = Math.min(previous.length, current.length - newcomers);
  const missing: string[] = [];
  for (let i = 0; i < kept; i++) {
    const l = previous[i] as ListingPlace;
    if (!present.has(l.id)) missing.push(l.id);
  }
  return missing;
}

function newestFirst(listings: readonly ListingPlace[]): boolean {
  let last = Infinity;
  for (const l of listings) {
    const at = instant(l.created_at);
    if (Number.isNaN(at)) continue;
    if (at > last) return false;
    last = at;
  }
  return true;
}

function instant(text: string | undefined): number {
  return text === undefined ? NaN : Date.parse(text);
}

/**
 * Whether `next` should replace `stored` for the same listing: the first sighting stands, except
 * that an exact state from a listing read replaces the feed's "gone".
 */
export function improves(stored: FateObservation | undefined, next: FateObservation): boolean {
  if (stored === undefined) return true;
  return stored.state === GONE && next.state !== GONE;
}

/**
 * The fate to keep when `next` improves on `stored` (see improves): a feed guess's time stays
 * when the read has no exact time and saw it later, since the guess is closer to the departure.
 */
export function merge(stored: FateObservation | undefined, next: FateObservation): FateObservation {
  if (stored === undefined || next.exactTime || stored.at >= next.at) return next;
  return { ...next, at: stored.at };
}

/** One alerted listing, as the weekly report sees it. */
export interface AlertedDeal {
  listingId: string;
  /** The user's first alert for it. */
  alertedAt: Date;
  priceCents: number | undefined;
  referenceCents: number | undefined;
  goneAt: Date | undefined;
  goneState: string | undefined;
  /** The user's own purchase of it went through. */
  bought: boolean;
}

export interface MissedDealSummary {
  /** Distinct listings alerted. */
  alerted: number;
  /** Those that left the market without the user buying them. */
  missed: number;
  /** Median time from alert to departure over the missed ones. */
  medianGoneAfterMs: number | undefined;
  /** What the missed ones would have netted, bought at the alerted price and sold at the reference after fees. */
  netCents: number;
}

/** Only positive nets count; deals without a reference price are left out of the sum. */
export function summariseMissedDeals(deals: readonly AlertedDeal[], fees: FeeModel): MissedDealSummary {
  const missed = deals.filter((d) => d.goneAt !== undefined && !d.bought);
  const delays = missed.map((d) => goneAfterMs(d.alertedAt, d.goneAt as Date));
  let netCents = 0;
  for (const d of missed) {
    if (d.priceCents === undefined || d.referenceCents === undefined) continue;
    const net = fees.profit(d.priceCents, d.referenceCents);
    if (net > 0) netCents += net;
  }
  return { alerted: deals.length, missed: missed.length, medianGoneAfterMs: median(delays), netCents };
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] as number;
  return sorted.length % 2 === 1 ? upper : Math.round(((sorted[mid - 1] as number) + upper) / 2);
}

/** ISO 8601 week of a UTC instant, e.g. "2026-W48": the weekly report's once-per-week key. */
export function isoWeek(at: Date): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const day = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  d.setUTCDate(d.getUTCDate() + 4 - day); // the Thursday of this week decides the year
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

// Where the feed stands and how listings order against it: the mark, a walk back through a
// backlog, isNewer and the oldest-first order, and the small page and walk comparisons.
import type { ListingPlace } from "../market/schemas.ts";

/**
 * Where the feed stands: everything at or before it was handed on (or told as a gap). Usually a
 * listing; `listingId` NO_LISTING makes it a point in time instead (the bot's start, or the
 * beginning of time after a first read found the market empty).
 */
export interface FeedMark {
  listingId: string;
  /** created_at of that listing (ISO), when the service gave one; the instant of a time mark. */
  createdAt?: string | undefined;
}

/** The id of a mark that is a point in time rather than a listing. */
export const NO_LISTING = "0";

/**
 * A walk back through a backlog that one cycle's budget could not finish, continued by the
 * next cycles: listings from `top` down to `last` are handed on, the rest down to the mark are not
 * read yet, and `cursor` is where the next page starts.
 */
export interface FeedWalk {
  /** The newest listing of the walk: the mark once the walk meets the old one. */
  top: FeedMark;
  cursor: string;
  /** The oldest listing handed on so far (absent while none was). */
  last?: FeedMark | undefined;
  /** When the walk began (epoch ms): one older than maxCatchUpMs is given up as a gap. */
  startedAt: number;
  pages: number;
}

/** The beginning of time: the mark after a first read found the market empty. */
export const BEGINNING: FeedMark = { listingId: NO_LISTING, createdAt: new Date(0).toISOString() };

function instant(text: string | undefined): number {
  return text === undefined ? NaN : Date.parse(text);
}

/**
 * Strictly after the mark: by created_at when both have one, then by numeric id. Against a time
 * mark only created_at counts, and a listing created at that very instant is not after it.
 */
export function isNewer(listing: ListingPlace, mark: FeedMark): boolean {
  if (listing.id === mark.listingId) return false;
  const a = instant(listing.created_at);
  const b = instant(mark.createdAt);
  if (mark.listingId === NO_LISTING) return !Number.isNaN(a) && !Number.isNaN(b) && a > b;
  if (!Number.isNaN(a) && !Number.isNaN(b) && a !== b) return a > b;
  // Ids exceed 2^53, so compare them as big integers.
  return BigInt(listing.id) > BigInt(mark.listingId);
}

/** Oldest first, in the order isNewer sees them. */
export function compareListings(x: ListingPlace, y: ListingPlace): number {
  const a = instant(x.created_at);
  const b = instant(y.created_at);
  if (!Number.isNaN(a) && !Number.isNaN(b) && a !== b) return a - b;
  const i = BigInt(x.id);
  const j = BigInt(y.id);
  return i === j ? 0 : i < j ? -1 : 1;
}

export function hasNext(page: { cursor?: string | undefined }, cursor: string | undefined): boolean {
  return page.cursor !== undefined && page.cursor !== "" && page.cursor !== cursor;
}

export function sameWalk(a: FeedWalk | undefined, b: FeedWalk | undefined): boolean {
  return (
    a === b ||
    (a !== undefined && b !== undefined && a.cursor === b.cursor && a.top.listingId === b.top.listingId)
  );
}

export function markOf(listing: ListingPlace): FeedMark {
  return { listingId: listing.id, createdAt: listing.created_at };
}

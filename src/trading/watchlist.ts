// The user's watchlist of listings: read a page, add one, remove one.
import type { MarketDeps } from "./deps.ts";
import { requireId, requireInt } from "../input/validate.ts";
import { nextCursor, toListingSummary, type ListingSummary } from "./views.ts";

export interface WatchlistPage {
  listings: ListingSummary[];
  cursor: string | undefined;
}

export async function listWatchlist(
  deps: MarketDeps,
  input: { cursor?: string | undefined; limit?: number | undefined } = {},
): Promise<WatchlistPage> {
  const limit = input.limit === undefined ? 20 : requireInt("limit", input.limit, 1, 50);
  const page = await deps.market.getWatchlist({ limit, ...(input.cursor ? { cursor: input.cursor } : {}) });
  return { listings: page.data.map(toListingSummary), cursor: nextCursor(page.cursor, page.data.length) };
}

export async function watchListing(
  deps: MarketDeps,
  input: { listingId: string },
): Promise<{ listingId: string }> {
  const listingId = requireId("listing", input.listingId);
  await deps.market.addToWatchlist(listingId);
  return { listingId };
}

export async function unwatchListing(
  deps: MarketDeps,
  input: { listingId: string },
): Promise<{ listingId: string }> {
  const listingId = requireId("listing", input.listingId);
  await deps.market.removeFromWatchlist(listingId);
  return { listingId };
}

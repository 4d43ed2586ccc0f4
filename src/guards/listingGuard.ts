// The listing guard's step: keep the user's buy-now listing the cheapest comparable one (same
// item, float within FLOAT_WINDOW), one step under the cheapest rival, never below the floor.
// Lowering an asking price commits no money, so the spending guard has nothing to hold here; the
// floor and step are the ones stored when the price is sent, read under the listing's write lock.
import type { GuardRecord } from "../db/repos/guards.ts";
import { guardAsStored, recordGuardEvent } from "../db/repos/guards.ts";
import { withWriteLock } from "../db/writeLocks.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { Listing } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import { MIN_LISTING_PRICE } from "../trading/selling.ts";
import { stopGuard, withinDailyLimit, type GuardDeps } from "./deps.ts";

/** Listings whose float is this close to the guarded one's count as comparable. */
export const FLOAT_WINDOW = 0.01;

/** The cheapest other buy-now listing of the same item with a similar float. */
export function cheapestRival(own: Listing, page: readonly Listing[]): Cents | undefined {
  const f = own.item.float_value;
  let best: Cents | undefined;
  for (const l of page) {
    if (l.id === own.id || l.is_seller === true || l.type !== "buy_now") continue;
    if (l.item.market_hash_name !== own.item.market_hash_name) continue;
    if (
      f !== undefined &&
      l.item.float_value !== undefined &&
      Math.abs(l.item.float_value - f) > FLOAT_WINDOW
    )
      continue;
    if (own.seller?.platform_id !== undefined && l.seller?.platform_id === own.seller.platform_id) continue;
    if (best === undefined || l.price < best) best = l.price;
  }
  return best;
}

export async function guardListing(deps: GuardDeps, api: MarketApi, guard: GuardRecord): Promise<void> {
  let listing: Listing;
  try {
    listing = await api.getListing(guard.subjectId);
  } catch (error) {
    if (!isMarketError(error, "not_found")) throw error;
    await stopGuard(deps, guard, "the listing is gone");
    return;
  }
  if (listing.state !== undefined && listing.state !== "listed") {
    await stopGuard(deps, guard, `the listing is ${listing.state}`);
    return;
  }
  const f = listing.item.float_value;
  const page = await api.searchListings({
    market_hash_name: listing.item.market_hash_name,
    type: "buy_now",
    sort_by: "lowest_price",
    limit: 50,
    ...(f === undefined
      ? {}
      : { min_float: Math.max(0, f - FLOAT_WINDOW), max_float: Math.min(1, f + FLOAT_WINDOW) }),
  });
  const rival = cheapestRival(listing, page.data);
  if (rival === undefined || rival > listing.price) return;
  // The floor and step are decided as stored when the price is sent: the price change is made
  // holding the listing's write lock, which a `/sell guard` changing them waits for.
  const done = await withWriteLock(deps.prisma, { kind: "listing", id: listing.id }, "try", () =>
    lowerListing(deps, api, guard, listing, rival),
  );
  if (!done.ok) deps.logger.info({ guardId: guard.id }, "listing guard left for its next pass: being set");
}

async function lowerListing(
  deps: GuardDeps,
  api: MarketApi,
  read: GuardRecord,
  listing: Listing,
  rival: Cents,
): Promise<void> {
  // Read since this pass began: turned off, unlinked or relinked means nothing is changed; a new
  // floor or step is the one this change keeps to.
  const guard = await guardAsStored(deps.prisma, read);
  if (guard === undefined) return;
  // A price the user set since the pass read the listing (a /sell reprice, which waits for this
  // lock) is theirs: the change was decided from another price and is left for the next pass.
  const now = await api.getListing(listing.id);
  if (now.price !== listing.price || now.state !== "listed") {
    deps.logger.info(
      { guardId: guard.id, read: listing.price, now: now.price },
      "listing guard left for its next pass: the price changed since it was read",
    );
    return;
  }
  const floor = Math.max(guard.limitCents, MIN_LISTING_PRICE);
  let target = rival - guard.stepCents;
  if (target < floor) {
    if (floor >= rival) {
      await stopGuard(
        deps,
        guard,
        `a rival listing at ${formatCents(rival)} is at or below your floor; your listing stays at ${formatCents(listing.price)}`,
        { rivalCents: rival, fromCents: listing.price },
      );
      return;
    }
    target = floor;
  }
  if (!(await withinDailyLimit(deps, guard, rival))) return;
  try {
    await api.updateListing(listing.id, { price: target });
  } catch (error) {
    if (!isMarketError(error)) throw error;
    // A lost answer is read back on the next pass (the listing's price says); a refusal stops it.
    const detail = error.mayHaveSucceeded
      ? `the price change to ${formatCents(target)} got no clear answer (${error.kind}); the guard stopped, check /listing view`
      : `the marketplace refused the price change to ${formatCents(target)} (${error.kind.replace("_", " ")})`;
    await stopGuard(deps, guard, detail, { rivalCents: rival, fromCents: listing.price });
    return;
  }
  await recordGuardEvent(deps.prisma, guard, {
    kind: "change",
    fromCents: listing.price,
    toCents: target,
    rivalCents: rival,
    ...(target === floor ? { detail: "now at its floor: the next cheaper rival stops the guard" } : {}),
    at: deps.now(),
  });
  deps.logger.info(
    { guardId: guard.id, listingId: listing.id, from: listing.price, to: target, rival },
    "listing lowered by its guard",
  );
}

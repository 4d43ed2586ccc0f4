// Selling: list an inventory item, reprice a listing, remove listings, read one's own listings.
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError, type MarketError } from "../market/errors.ts";
import type { NewListing } from "../market/requests.ts";
import type { ListingType } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import { withWriteLock } from "../db/writeLocks.ts";
import type { MarketDeps, TradingDeps } from "./deps.ts";
import { requireCents, requireId, requireIds, requireInt } from "../input/validate.ts";
import { nextCursor, toListingSummary, type ListingSummary } from "./views.ts";

/** The service's minimum price (docs/live-service.md). */
export const MIN_LISTING_PRICE: Cents = 3;
export const AUCTION_DURATIONS = [1, 3, 5, 7, 14] as const;
export type AuctionDuration = (typeof AUCTION_DURATIONS)[number];
export const MAX_DESCRIPTION = 180;
const MAX_DELIST = 50;

export interface ListItemInput {
  assetId: string;
  type: ListingType;
  /** Buy-now asking price; required for buy_now. */
  priceCents?: Cents | undefined;
  /** Auction starting price; required for auctions. */
  reservePriceCents?: Cents | undefined;
  durationDays?: number | undefined;
  description?: string | undefined;
  /** Largest discount an offer may ask, in basis points (1500 = 15%). */
  maxOfferDiscountBps?: number | undefined;
  private?: boolean | undefined;
}

/** Validates a new listing and builds the request body; throws invalid_input naming the option. */
export function toNewListing(input: ListItemInput): NewListing {
  const assetId = requireId("asset", input.assetId);
  const body: NewListing = { asset_id: assetId, type: input.type };
  if (input.type === "buy_now") {
    if (input.priceCents === undefined) throw invalidOption("price", "a buy-now listing needs a price");
    body.price = requireCents("price", input.priceCents, MIN_LISTING_PRICE);
    if (input.reservePriceCents !== undefined)
      throw invalidOption("reserve_price", "only auctions have a starting price");
    if (input.durationDays !== undefined) throw invalidOption("duration", "only auctions have a duration");
  } else {
    if (input.priceCents !== undefined)
      throw invalidOption("price", "an auction takes a starting price (reserve_price)");
    if (input.reservePriceCents === undefined)
      throw invalidOption("reserve_price", "an auction needs a starting price");
    body.reserve_price = requireCents("reserve_price", input.reservePriceCents, MIN_LISTING_PRICE);
    // Always sent: the live service requires it for auctions; 7 days is the default users see.
    body.duration_days = requireDuration(input.durationDays ?? DEFAULT_AUCTION_DAYS);
  }
  if (input.description !== undefined) {
    const description = input.description.trim();
    if (description.length > MAX_DESCRIPTION) {
      throw invalidOption(
        "description",
        `at most ${MAX_DESCRIPTION} characters (this one has ${description.length})`,
      );
    }
    if (description !== "") body.description = description;
  }
  if (input.maxOfferDiscountBps !== undefined) {
    body.max_offer_discount = requireInt("max_offer_discount", input.maxOfferDiscountBps, 0, 10_000);
  }
  if (input.private !== undefined) body.private = input.private;
  return body;
}

/** The auction length the /sell option's description promises when none is chosen. */
export const DEFAULT_AUCTION_DAYS = 7;

function requireDuration(days: number): AuctionDuration {
  const found = AUCTION_DURATIONS.find((d) => d === days);
  if (found === undefined)
    throw invalidOption("duration", `must be one of ${AUCTION_DURATIONS.join(", ")} days`);
  return found;
}

/** A new listing as the confirmation shows it: for an auction, the duration that was sent. */
export interface ListedItem extends ListingSummary {
  durationDays: AuctionDuration | undefined;
}

export async function listItem(deps: MarketDeps, input: ListItemInput): Promise<ListedItem> {
  const body = toNewListing(input);
  const listing = await deps.market.createListing(body);
  deps.logger.info(
    {
      listingId: listing.id,
      type: listing.type,
      priceCents: listing.price,
      durationDays: body.duration_days,
    },
    "item listed",
  );
  return { ...toListingSummary(listing), durationDays: body.duration_days };
}

const AUCTION_REPRICE = "An auction cannot be repriced once bidding has opened.";

export async function reprice(
  deps: MarketDeps,
  input: { listingId: string; priceCents: Cents },
): Promise<ListingSummary> {
  const listingId = requireId("listing", input.listingId);
  const priceCents = requireCents("price", input.priceCents, MIN_LISTING_PRICE);
  const listing = await deps.market.getListing(listingId);
  if (listing.is_seller === false) {
    throw new UserFacingError("not_owner", "You can only reprice your own listings.", { listingId });
  }
  if (listing.state !== "listed") {
    throw new UserFacingError(
      "conflict",
      `Only an active listing can be repriced; this one is ${listing.state}.`,
      {
        listingId,
      },
    );
  }
  if (listing.type === "auction" && listing.auction_details?.top_bid) {
    throw new UserFacingError("conflict", AUCTION_REPRICE, { listingId });
  }
  try {
    const updated = await deps.market.updateListing(listingId, { price: priceCents });
    deps.logger.info({ listingId, from: listing.price, to: priceCents }, "listing repriced");
    return toListingSummary(updated);
  } catch (error) {
    // A bid may have landed between our read and the update: the service then refuses.
    if (listing.type === "auction" && isMarketError(error, "bad_request")) {
      throw new UserFacingError("conflict", AUCTION_REPRICE, { listingId });
    }
    throw error;
  }
}

/**
 * The user's reprice, holding the listing's write lock: a guard's price change in flight has its
 * answer first, and none read before this one overwrites it afterwards (ADR 045).
 */
export async function repriceListing(
  deps: TradingDeps,
  input: { userId: number; listingId: string; priceCents: Cents },
): Promise<ListingSummary> {
  const listingId = requireId("listing", input.listingId);
  const done = await withWriteLock(deps.prisma, { kind: "listing", id: listingId }, "wait", () =>
    reprice(deps, { listingId, priceCents: input.priceCents }),
  );
  if (!done.ok) {
    throw new UserFacingError(
      "conflict",
      "This listing's price is still being changed (by its guard); nothing was changed. Try again in a moment.",
      { listingId },
    );
  }
  return done.value;
}

export interface DelistOutcome {
  listingId: string;
  removed: boolean;
  /** Why not, in words for the user; undefined when removed. */
  problem: string | undefined;
}

/**
 * Removes listings: one DELETE for a single id, the bulk endpoint for several. The bulk answer
 * says nothing per listing, so when it fails each listing is removed on its own instead,
 * which tells the user exactly which ones did not go.
 */
export async function delist(
  deps: MarketDeps,
  input: { listingIds: readonly string[] },
): Promise<DelistOutcome[]> {
  const ids = requireIds("listings", input.listingIds, MAX_DELIST);
  const [first] = ids;
  if (ids.length === 1 && first !== undefined) return [await delistOne(deps, first)];
  try {
    await deps.market.bulkDelist(ids);
    deps.logger.info({ listingIds: ids }, "listings removed in bulk");
    return ids.map((listingId) => ({ listingId, removed: true, problem: undefined }));
  } catch (error) {
    if (!isMarketError(error) || !fallsBackToSingles(error)) throw error;
    deps.logger.warn(
      { listingIds: ids, kind: error.kind, status: error.status },
      "bulk delist failed; removing one by one",
    );
  }
  const outcomes: DelistOutcome[] = [];
  // One at a time: the service rate-limits per key, and order keeps the report readable.
  for (const id of ids) outcomes.push(await delistOne(deps, id));
  return outcomes;
}

function fallsBackToSingles(error: MarketError): boolean {
  return error.kind === "bad_request" || error.kind === "not_found" || error.mayHaveSucceeded;
}

async function delistOne(deps: MarketDeps, listingId: string): Promise<DelistOutcome> {
  try {
    await deps.market.deleteListing(listingId);
    deps.logger.info({ listingId }, "listing removed");
    return { listingId, removed: true, problem: undefined };
  } catch (error) {
    if (
      !isMarketError(error) ||
      !(error.kind === "bad_request" || error.kind === "not_found" || error.kind === "forbidden")
    ) {
      throw error;
    }
    if (error.kind === "not_found") return { listingId, removed: false, problem: "no such listing" };
    // A refusal may only mean it is already gone (e.g. an earlier bulk request went through).
    const listing = await deps.market.getListing(listingId).catch(() => undefined);
    if (listing?.state === "delisted") return { listingId, removed: true, problem: undefined };
    if (listing?.is_seller === false) return { listingId, removed: false, problem: "not your listing" };
    if (listing && listing.state !== "listed")
      return { listingId, removed: false, problem: `it is ${listing.state}` };
    return { listingId, removed: false, problem: error.serviceMessage ?? "the marketplace refused" };
  }
}

export interface MyListingsPage {
  listings: ListingSummary[];
  cursor: string | undefined;
  totalCount: number | undefined;
  totalPriceCents: Cents | undefined;
}

/**
 * The user's own active listings, from their stall. A private stall answers 403 even to its
 * owner's key on some service versions, and searching by seller is no way round it (the live
 * service ignores user_id), so the user is told how to see them instead.
 */
export async function myListings(
  deps: MarketDeps,
  input: { platformId: string; cursor?: string | undefined; limit?: number | undefined },
): Promise<MyListingsPage> {
  const platformId = requireId("user", input.platformId);
  const limit = input.limit === undefined ? 20 : requireInt("limit", input.limit, 1, 50);
  const cursor = input.cursor ? { cursor: input.cursor } : {};
  try {
    const page = await deps.market.getStall(platformId, { limit, ...cursor });
    return {
      listings: page.data.map(toListingSummary),
      cursor: nextCursor(page.cursor, page.data.length),
      totalCount: page.total_count,
      totalPriceCents: page.total_price,
    };
  } catch (error) {
    if (!isMarketError(error, "forbidden")) throw error;
    throw new UserFacingError(
      "forbidden",
      "Your stall is private, and the marketplace shows a private stall to no one through its API (searching by seller is ignored). Make your stall public in your marketplace settings to list your listings here, or see them on the marketplace's website.",
      { platformId },
    );
  }
}

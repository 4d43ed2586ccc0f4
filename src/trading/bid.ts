// Bidding on auctions: place or raise an automatic bid (a ceiling), and track it for outbid alerts.
import { randomUUID } from "node:crypto";
import { recordBidObservation, trackBid, transitionBid } from "../db/repos/bids.ts";
import { findOpenCommitment } from "../db/repos/purchases.ts";
import { getUserById } from "../db/repos/users.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import type { BidReceipt, Listing } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import { nowOf, type TradingDeps } from "./deps.ts";
import {
  commitmentFailed,
  commitmentReleased,
  commitmentStands,
  reserveOrRefuse,
} from "../spending/guard.ts";
import { requireCents, requireId } from "../input/validate.ts";
import { toDate } from "../util/dates.ts";
import { minNextBidOf } from "./views.ts";

export interface BidResult {
  listingId: string;
  maxPriceCents: Cents;
  /** The standing price after the service applied every ceiling. */
  topBidCents: Cents | undefined;
  minNextBidCents: Cents | undefined;
  /**
   * Whether the user leads: undefined when the marketplace does not tell (the standing price equals
   * the ceiling and no bidder id settles whose it is: with equal ceilings the earlier bid leads).
   */
  youAreTop: boolean | undefined;
  expiresAt: Date | undefined;
}

/**
 * Places an automatic bid up to `maxPriceCents`, or raises it: calling again with a higher
 * ceiling replaces the previous one (the service keeps one ceiling per bidder and auction).
 */
export async function placeBid(
  deps: TradingDeps,
  input: { userId: number; listingId: string; maxPriceCents: Cents },
): Promise<BidResult> {
  const listingId = requireId("listing", input.listingId);
  const maxPrice = requireCents("max_price", input.maxPriceCents, 1);
  const user = await getUserById(deps.prisma, input.userId);
  if (!user)
    throw new UserFacingError("not_linked", "Link your marketplace account first with /account link.");
  const before = await deps.market.getListing(listingId);
  assertBiddable(before, nowOf(deps));
  const minNext = minNextBidOf(before);
  if (minNext !== undefined && maxPrice < minNext) {
    throw invalidOption(
      "max_price",
      `the minimum next bid is ${formatCents(minNext)}; bid at least that much.`,
    );
  }

  // A winning ceiling is a purchase: it is held against the caps while it stands, replacing the
  // user's previous ceiling on this auction (only one can stand once the service answers).
  const previous = await findOpenCommitment(deps.prisma, {
    userId: input.userId,
    kind: "bid",
    subjectId: listingId,
    orUnknown: true,
  });
  const commitment = await reserveOrRefuse(deps.prisma, {
    userId: input.userId,
    kind: "bid",
    idempotencyKey: `bid:${input.userId}:${listingId}:${randomUUID()}`,
    subjectId: listingId,
    unitPriceCents: maxPrice,
    totalCents: maxPrice,
    replaces: previous,
  });

  let bid: BidReceipt;
  try {
    bid = await deps.market.placeBid(listingId, maxPrice);
  } catch (error) {
    await commitmentFailed(deps.prisma, commitment, error);
    if (!isMarketError(error) || !error.mayHaveSucceeded) throw error;
    // Unlike a purchase, repeating a bid is safe: the same ceiling simply replaces itself.
    throw new UserFacingError(
      "unknown_outcome",
      "The marketplace did not confirm your bid in time. Run /bid again with the same ceiling: it replaces any bid that did go through.",
      { listingId, maxPrice, kind: error.kind },
    );
  }
  // The answer is a receipt only (live: no price, no state, a new id on every re-bid); the
  // standing price and who leads come from the listing.
  const after = await deps.market.getListing(listingId).catch((error: unknown) => {
    deps.logger.warn({ err: error, listingId }, "listing re-read after bid failed");
    return undefined;
  });
  const result =
    after === undefined
      ? { ...bidResult(listingId, maxPrice, bid, before), youAreTop: undefined }
      : bidResult(listingId, maxPrice, bid, after, await bidderIdIfTied(deps, maxPrice, bid, after));
  if (previous) await commitmentReleased(deps.prisma, previous, "replaced by a new ceiling");
  // Only a lead known lost releases the ceiling; one we cannot tell about stays held.
  if (result.youAreTop === false) await commitmentReleased(deps.prisma, commitment, "outbid at once");
  else await commitmentStands(deps.prisma, commitment);
  await track(deps, input.userId, result);
  deps.logger.info(
    { userId: input.userId, listingId, maxPrice, topBid: result.topBidCents, youAreTop: result.youAreTop },
    "bid placed",
  );
  return result;
}

/**
 * Records the bid for the bid poller's outbid alerts, with what we just saw, so its first look
 * does not announce what this reply already told the user (e.g. an instant proxy outbid).
 */
async function track(deps: TradingDeps, userId: number, r: BidResult): Promise<void> {
  const tracked = await trackBid(deps.prisma, {
    userId,
    listingId: r.listingId,
    maxPriceCents: r.maxPriceCents,
    expiresAt: r.expiresAt ?? null,
  });
  await recordBidObservation(deps.prisma, tracked.id, {
    topBidCents: r.topBidCents ?? null,
    topBidderIsUser: r.topBidCents === undefined ? null : (r.youAreTop ?? null),
  });
  if (r.youAreTop === false) await transitionBid(deps.prisma, tracked.id, ["active"], "outbid");
}

/**
 * The caller's bidder id, asked only when the standing price equals the ceiling (the one case
 * the price cannot settle) and the receipt does not carry it; undefined when it cannot be had.
 */
async function bidderIdIfTied(
  deps: TradingDeps,
  maxPrice: Cents,
  receipt: BidReceipt,
  listing: Listing,
): Promise<string | undefined> {
  const top = listing.auction_details?.top_bid;
  if (receipt.obfuscated_buyer_id !== undefined) return receipt.obfuscated_buyer_id;
  if (top?.obfuscated_buyer_id === undefined || top.price !== (receipt.max_price ?? maxPrice))
    return undefined;
  try {
    return (await deps.market.getMe()).user.obfuscated_id;
  } catch (error) {
    deps.logger.warn({ err: error, listingId: listing.id }, "own bidder id unknown; lead left untold");
    return undefined;
  }
}

function assertBiddable(listing: Listing, now: Date): void {
  const listingId = listing.id;
  if (listing.type !== "auction") {
    throw new UserFacingError("invalid_input", "This is a buy-now listing, not an auction; use /buy.", {
      listingId,
    });
  }
  if (listing.state !== "listed") {
    throw new UserFacingError("already_sold", `This auction has ended (${listing.state}).`, { listingId });
  }
  const expiresAt = toDate(listing.auction_details?.expires_at);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw new UserFacingError("expired", "This auction has ended.", { listingId });
  }
  if (listing.is_seller === true) {
    throw new UserFacingError("conflict", "This is your own auction; you cannot bid on it.", { listingId });
  }
}

/**
 * Whether we lead, read from the listing's auction details as the live service requires: bid
 * ids change on every re-bid, so they say nothing. With proxy bidding the standing price never
 * passes the leader's ceiling: a top bid above ours means someone else leads, one below it that
 * we do. At exactly our ceiling the earlier of equal ceilings leads, so only the top bid's bidder
 * id (compared with ours, `bidderId`) tells; without it the answer is undefined, never guessed.
 */
export function bidResult(
  listingId: string,
  maxPrice: Cents,
  receipt: BidReceipt,
  listing: Listing,
  bidderId: string | undefined = receipt.obfuscated_buyer_id,
): BidResult {
  const top = listing.auction_details?.top_bid;
  const ceiling = receipt.max_price ?? maxPrice;
  const sameBidder =
    top?.obfuscated_buyer_id !== undefined && bidderId !== undefined
      ? top.obfuscated_buyer_id === bidderId
      : undefined;
  return {
    listingId,
    maxPriceCents: maxPrice,
    topBidCents: top?.price,
    minNextBidCents: minNextBidOf(listing),
    youAreTop: top === undefined ? undefined : leads(top.price, ceiling, sameBidder),
    expiresAt: toDate(listing.auction_details?.expires_at),
  };
}

/** The lead from the standing price and, when known, whether the top bid is ours. */
function leads(topPrice: Cents, ceiling: Cents, sameBidder: boolean | undefined): boolean | undefined {
  if (sameBidder === true) return true;
  if (topPrice > ceiling) return false;
  // A rival on top below our ceiling contradicts proxy bidding (a stale read): not told.
  if (sameBidder === false) return topPrice === ceiling ? false : undefined;
  return topPrice < ceiling ? true : undefined;
}

// Price negotiation on buy-now listings: make an offer, counter one, read the offers timeline.
import { randomUUID } from "node:crypto";
import { findOpenCommitment } from "../db/repos/purchases.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import type { Offer } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import {
  commitmentFailed,
  commitmentReleased,
  commitmentStands,
  reserveOrRefuse,
  type Commitment,
} from "../spending/guard.ts";
import type { MarketDeps, TradingDeps } from "./deps.ts";
import { requireCents, requireId, requirePage } from "../input/validate.ts";
import { toOfferView, type OfferView } from "./views.ts";

/** The service's minimum price for anything (docs/live-service.md). */
const MIN_PRICE: Cents = 3;
const PAGE_SIZE = 10;

/**
 * Makes an offer. An open offer commits its price (the seller may accept it at any moment), so
 * it is held against the caps until it ends; a new offer on the same listing replaces the last.
 */
export async function makeOffer(
  deps: TradingDeps,
  input: { userId: number; listingId: string; priceCents: Cents; replacePrevious?: boolean | undefined },
): Promise<OfferView> {
  const listingId = requireId("listing", input.listingId);
  const priceCents = requireCents("price", input.priceCents, MIN_PRICE);
  const listing = await deps.market.getListing(listingId);
  if (listing.state !== "listed") {
    throw new UserFacingError("already_sold", `This listing is no longer for sale (${listing.state}).`, {
      listingId,
    });
  }
  if (listing.type === "auction") {
    throw new UserFacingError("invalid_input", "Offers are for buy-now listings; on an auction, use /bid.", {
      listingId,
    });
  }
  if (listing.is_seller === true) {
    throw new UserFacingError("conflict", "This is your own listing; you cannot make an offer on it.", {
      listingId,
    });
  }
  if (priceCents >= listing.price) {
    throw invalidOption(
      "price",
      `${formatCents(priceCents)} is not below the asking price of ${formatCents(listing.price)}: use /buy instead.`,
    );
  }
  // A floor at the full price means no discount at all, i.e. offers off: the service says so.
  const floor = listing.min_offer_price;
  if (floor !== undefined && floor < listing.price && priceCents < floor) {
    throw invalidOption("price", `this seller takes offers from ${formatCents(floor)}.`);
  }
  const replacePrevious = input.replacePrevious ?? true;
  const previous = replacePrevious
    ? await findOpenCommitment(deps.prisma, { userId: input.userId, kind: "offer", subjectId: listingId })
    : null;
  const commitment = await reserveOrRefuse(deps.prisma, {
    userId: input.userId,
    kind: "offer",
    idempotencyKey: `offer:${input.userId}:${listingId}:${randomUUID()}`,
    subjectId: listingId,
    unitPriceCents: priceCents,
    totalCents: priceCents,
    replaces: previous,
  });
  try {
    const offer = await deps.market.createOffer({
      contract_id: listingId,
      price: priceCents,
      // A user making a new offer on the same listing means it to replace their last one.
      cancel_previous_offer: replacePrevious,
    });
    await offerStands(deps, commitment, previous, offer);
    deps.logger.info({ listingId, offerId: offer.id, priceCents }, "offer made");
    return toOfferView(offer);
  } catch (error) {
    await commitmentFailed(deps.prisma, commitment, error);
    if (isMarketError(error, "offers_disabled")) {
      // The service also answers code 4 when the listing stopped being available: look again.
      const now = await deps.market.getListing(listingId).catch(() => undefined);
      if (now && now.state !== "listed") {
        throw new UserFacingError("already_sold", `This listing is no longer for sale (${now.state}).`, {
          listingId,
        });
      }
      throw new UserFacingError(
        "offers_disabled",
        "This seller has offers disabled; you can only /buy at the asking price.",
        {
          listingId,
        },
      );
    }
    throw error;
  }
}

/**
 * A counter-offer replaces the offer it answers (spec 3). A buyer's counter commits its price
 * like an offer; a seller's commits nothing. Which side the user is on is read from their
 * offers timeline; when it cannot be told, the counter is held against the caps (the safe side).
 */
export async function counterOffer(
  deps: TradingDeps,
  input: { userId: number; offerId: string; priceCents: Cents },
): Promise<OfferView> {
  const offerId = requireId("offer", input.offerId);
  const priceCents = requireCents("price", input.priceCents, MIN_PRICE);
  const answered = await findOffer(deps, offerId);
  const asSeller = answered?.contract?.is_seller === true;
  const listingId = answered?.contract_id;
  let commitment: Commitment | undefined;
  let previous: Commitment | null = null;
  if (!asSeller) {
    previous =
      listingId === undefined
        ? null
        : await findOpenCommitment(deps.prisma, {
            userId: input.userId,
            kind: "offer",
            subjectId: listingId,
          });
    commitment = await reserveOrRefuse(deps.prisma, {
      userId: input.userId,
      kind: "offer",
      idempotencyKey: `offer:${input.userId}:${offerId}:${randomUUID()}`,
      ...(listingId === undefined ? {} : { subjectId: listingId }),
      unitPriceCents: priceCents,
      totalCents: priceCents,
      replaces: previous,
    });
  }
  let offer: Offer;
  try {
    offer = await deps.market.counterOffer(offerId, priceCents);
  } catch (error) {
    if (commitment) await commitmentFailed(deps.prisma, commitment, error);
    throw error;
  }
  if (commitment) await offerStands(deps, commitment, previous, offer);
  deps.logger.info({ offerId, newOfferId: offer.id, priceCents, asSeller }, "offer countered");
  return toOfferView(offer);
}

/** The offer being answered, from the first pages of the user's timeline (undefined: not found). */
async function findOffer(deps: MarketDeps, offerId: string): Promise<Offer | undefined> {
  try {
    for await (const offer of deps.market.iterateOffersTimeline({ limit: 40 }, { maxPages: 3 })) {
      if (offer.id === offerId) return offer;
    }
  } catch (error) {
    deps.logger.warn({ err: error, offerId }, "offers timeline unreadable; counter held against the caps");
  }
  return undefined;
}

async function offerStands(
  deps: TradingDeps,
  commitment: Commitment,
  previous: Commitment | null,
  offer: Offer,
): Promise<void> {
  await commitmentStands(deps.prisma, commitment, { subjectId: offer.contract_id });
  if (previous) await commitmentReleased(deps.prisma, previous, "replaced by a new offer");
}

export interface OffersPage {
  offers: OfferView[];
  page: number;
  /** The timeline carries no total: a full page suggests another one. */
  hasMore: boolean;
}

export async function listOffers(
  deps: MarketDeps,
  input: { page?: number | undefined; states?: readonly string[] | undefined } = {},
): Promise<OffersPage> {
  const page = requirePage(input.page);
  const result = await deps.market.getOffersTimeline({
    page,
    limit: PAGE_SIZE,
    ...(input.states && input.states.length > 0 ? { states: [...input.states] } : {}),
  });
  return { offers: result.offers.map(toOfferView), page, hasMore: result.offers.length >= PAGE_SIZE };
}

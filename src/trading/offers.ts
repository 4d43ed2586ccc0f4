// Price negotiation on buy-now listings: make an offer, counter one, read the offers timeline.
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import { formatCents, type Cents } from "../money.ts";
import type { MarketDeps } from "./deps.ts";
import { requireCents, requireId, requirePage } from "./validate.ts";
import { toOfferView, type OfferView } from "./views.ts";

/** The service's minimum price for anything (api-notes). */
const MIN_PRICE: Cents = 3;
const PAGE_SIZE = 10;

export async function makeOffer(
  deps: MarketDeps,
  input: { listingId: string; priceCents: Cents; replacePrevious?: boolean | undefined },
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
  try {
    const offer = await deps.market.createOffer({
      contract_id: listingId,
      price: priceCents,
      // A user making a new offer on the same listing means it to replace their last one.
      cancel_previous_offer: input.replacePrevious ?? true,
    });
    deps.logger.info({ listingId, offerId: offer.id, priceCents }, "offer made");
    return toOfferView(offer);
  } catch (error) {
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

/** A counter-offer replaces the offer it answers (spec 3). */
export async function counterOffer(
  deps: MarketDeps,
  input: { offerId: string; priceCents: Cents },
): Promise<OfferView> {
  const offerId = requireId("offer", input.offerId);
  const priceCents = requireCents("price", input.priceCents, MIN_PRICE);
  const offer = await deps.market.counterOffer(offerId, priceCents);
  deps.logger.info({ offerId, newOfferId: offer.id, priceCents }, "offer countered");
  return toOfferView(offer);
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

// Offers: a buyer proposes a price on a buy-now listing; either side may answer with a counter-offer,
// which replaces the offer answered.
import { badRequest, ErrorCode, notFound } from "./errors.ts";
import { completeSale, listingOf } from "./listings.ts";
import {
  DAY,
  minOfferPrice,
  pushTo,
  type OfferRec,
  type Store,
  type TradeRec,
  type UserRec,
} from "./state/index.ts";

export const OFFER_TTL_MS = DAY;

function addOffer(store: Store, o: Omit<OfferRec, "id" | "seq" | "messageId">): OfferRec {
  const { id, seq } = store.nextId(o.createdAt);
  const offer: OfferRec = { ...o, id, seq, messageId: store.nextId(o.createdAt).id };
  store.offers.set(id, offer);
  const l = listingOf(store, offer.listingId);
  pushTo(store.offersByUser, offer.buyerId, offer);
  pushTo(store.offersByUser, l.sellerId, offer);
  pushTo(store.offersByListing, l.id, offer);
  store.schedule(offer.expiresAt, () => {
    if (offer.state === "active") offer.state = "expired";
  });
  return offer;
}

export function createOffer(
  store: Store,
  buyer: UserRec,
  input: { contractId: string; price: number; cancelPrevious: boolean },
  at: number,
): OfferRec {
  const l = listingOf(store, input.contractId);
  if (l.state !== "listed")
    throw badRequest(`listing ${l.id} is no longer available (${l.state})`, ErrorCode.unavailable);
  if (l.type !== "buy_now") throw badRequest("offers are only possible on buy_now listings");
  if (l.sellerId === buyer.platformId)
    throw badRequest("you cannot make an offer on your own listing", ErrorCode.notOwner);
  if (l.maxOfferDiscount <= 0) throw badRequest("seller has offers disabled", ErrorCode.offersDisabled);
  const floor = minOfferPrice(l);
  if (input.price < floor) throw badRequest(`price is below the minimum offer price ${floor}`);
  if (input.price > l.price) throw badRequest(`price is above the listing price ${l.price}; buy it instead`);
  if (buyer.balance < input.price) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
  const previous = (store.offersByListing.get(l.id) ?? []).filter(
    (o) => o.buyerId === buyer.platformId && o.state === "active",
  );
  if (previous.length > 0) {
    if (!input.cancelPrevious) {
      throw badRequest(
        "you already have an active offer on this listing; set cancel_previous_offer to replace it",
      );
    }
    for (const o of previous) o.state = "cancelled";
  }
  return addOffer(store, {
    listingId: l.id,
    buyerId: buyer.platformId,
    authorId: buyer.platformId,
    price: input.price,
    contractPrice: l.price,
    type: "buyer_offer",
    state: "active",
    createdAt: at,
    expiresAt: at + OFFER_TTL_MS,
  });
}

/** An offer visible to the caller (its buyer or the listing's seller); others get 404. */
export function offerFor(store: Store, user: UserRec, id: string): OfferRec {
  const o = store.offers.get(id);
  if (!o) throw notFound("offer");
  const l = listingOf(store, o.listingId);
  if (o.buyerId !== user.platformId && l.sellerId !== user.platformId) throw notFound("offer");
  return o;
}

export function counterOffer(store: Store, user: UserRec, id: string, price: number, at: number): OfferRec {
  const o = offerFor(store, user, id);
  if (o.state !== "active")
    throw badRequest(
      `offer ${id} is ${o.state}; only an active offer can be countered`,
      ErrorCode.invalidState,
    );
  if (o.authorId === user.platformId)
    throw badRequest("you cannot counter your own offer; wait for the other side");
  const l = listingOf(store, o.listingId);
  if (l.state !== "listed")
    throw badRequest(`listing ${l.id} is no longer available (${l.state})`, ErrorCode.unavailable);
  const bySeller = user.platformId === l.sellerId;
  if (bySeller && (price <= o.price || price > l.price)) {
    throw badRequest(
      `a counter-offer must be above the offer (${o.price}) and at most the listing price (${l.price})`,
    );
  }
  if (!bySeller && (price >= o.price || price < minOfferPrice(l))) {
    throw badRequest(
      `a counter-offer must be below ${o.price} and at least the minimum offer price ${minOfferPrice(l)}`,
    );
  }
  if (!bySeller && user.balance < price)
    throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
  o.state = "countered";
  return addOffer(store, {
    listingId: l.id,
    buyerId: o.buyerId,
    authorId: user.platformId,
    price,
    contractPrice: l.price,
    type: bySeller ? "seller_counter_offer" : "buyer_counter_offer",
    state: "active",
    createdAt: at,
    expiresAt: at + OFFER_TTL_MS,
  });
}

/** The party who did not write the offer accepts it: the buyer buys at the offer price. */
export function acceptOffer(store: Store, o: OfferRec, at: number): TradeRec {
  if (o.state !== "active") throw badRequest(`offer ${o.id} is ${o.state}`, ErrorCode.invalidState);
  const l = listingOf(store, o.listingId);
  if (l.state !== "listed") throw badRequest(`listing ${l.id} is no longer available`, ErrorCode.unavailable);
  if (store.user(o.buyerId).balance < o.price)
    throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
  const trade = completeSale(store, l, o.buyerId, o.price, at);
  o.state = "accepted";
  return trade;
}

export function declineOffer(o: OfferRec): void {
  if (o.state !== "active") throw badRequest(`offer ${o.id} is ${o.state}`, ErrorCode.invalidState);
  o.state = "declined";
}

export function offersTimeline(
  store: Store,
  user: UserRec,
  opts: { page: number; limit: number; states: string[] | undefined },
): OfferRec[] {
  const all = (store.offersByUser.get(user.platformId) ?? []).filter(
    (o) => opts.states === undefined || opts.states.includes(o.state),
  );
  all.reverse();
  return all.slice(opts.page * opts.limit, (opts.page + 1) * opts.limit);
}

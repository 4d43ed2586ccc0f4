// Offers against the real sandbox: disabled offers, offers at or above the price, counters, timeline.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserFacingError } from "../../src/errors.ts";
import { counterOffer, listOffers, makeOffer } from "../../src/trading/offers.ts";
import { rejection, startTradingWorld, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

const OFFERS = "POST /offers";

describe("offers", () => {
  it("GIVEN a seller with offers disabled WHEN the user makes an offer THEN offers_disabled says so", async () => {
    const buyer = await world.trader();
    const l = world.sandbox.control.createListing({ price: 10_000, max_offer_discount: 0 });
    const before = world.hits(OFFERS);

    const error = await rejection(() =>
      makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 9_000 }),
    );

    // The service's refusal (400, code 4) is what becomes the message.
    expect(world.hits(OFFERS) - before).toBe(1);
    expect(error).toMatchObject({ code: "offers_disabled" });
    expect((error as UserFacingError).userMessage).toContain("This seller has offers disabled");
  });

  it("GIVEN an offer at the asking price WHEN made THEN the user is pointed to /buy and nothing is sent", async () => {
    const buyer = await world.trader();
    const l = world.sandbox.control.createListing({ price: 10_000, max_offer_discount: 2_000 });
    const before = world.hits(OFFERS);

    const error = await rejection(() =>
      makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 10_000 }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((error as UserFacingError).userMessage).toContain("use /buy instead");
    expect(world.hits(OFFERS)).toBe(before);
  });

  it("GIVEN an offer below the seller's floor WHEN made THEN the message names the lowest acceptable offer", async () => {
    const buyer = await world.trader();
    const l = world.sandbox.control.createListing({ price: 10_000, max_offer_discount: 1_000 });

    const error = await rejection(() =>
      makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 5_000 }),
    );

    expect(error).toMatchObject({ code: "invalid_input" });
    expect((error as UserFacingError).userMessage).toContain("$90.00");
  });

  it("GIVEN a buyer's offer WHEN the seller counters THEN both sides see the counter in their timeline", async () => {
    const buyer = await world.trader();
    const seller = await world.trader();
    const l = world.sandbox.control.createListing({
      price: 10_000,
      max_offer_discount: 2_000,
      sellerPlatformId: seller.platformId,
    });

    const offer = await makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 8_500 });
    const counter = await counterOffer(seller.deps, {
      userId: seller.userId,
      offerId: offer.offerId,
      priceCents: 9_500,
    });
    const buyerView = await listOffers(buyer.deps, { page: 0 });

    expect(offer).toMatchObject({
      listingId: l.id,
      priceCents: 8_500,
      listingPriceCents: 10_000,
      state: "active",
    });
    expect(counter).toMatchObject({ listingId: l.id, priceCents: 9_500, state: "active" });
    expect(counter.offerId).not.toBe(offer.offerId);
    expect(buyerView.offers.map((o) => [o.offerId, o.state])).toEqual([
      [counter.offerId, "active"],
      [offer.offerId, "countered"],
    ]);
    expect(buyerView.hasMore).toBe(false);
  });

  it("GIVEN an active offer WHEN the buyer offers again THEN the new offer replaces the old one", async () => {
    const buyer = await world.trader();
    const l = world.sandbox.control.createListing({ price: 10_000, max_offer_discount: 2_000 });

    const first = await makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 8_500 });
    const second = await makeOffer(buyer.deps, { userId: buyer.userId, listingId: l.id, priceCents: 8_800 });
    const page = await listOffers(buyer.deps);

    expect(page.offers.find((o) => o.offerId === first.offerId)?.state).toBe("cancelled");
    expect(page.offers.find((o) => o.offerId === second.offerId)?.state).toBe("active");
  });
});

// Offers: disabled sellers (code 4), minimum price, counter-offers replacing the answered offer, timeline.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Listing, Offer } from "../../src/market/schemas.ts";
import { ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

const Timeline = z.object({ offers: z.array(Offer) });

describe("offers", () => {
  const t = useSandbox();
  const offer = (key: string, contract_id: string, price: number, cancel_previous_offer = false) =>
    t.api("POST", "/offers", { key, body: { contract_id, price, cancel_previous_offer } });

  it("creates an active offer carrying the listing", async () => {
    const l = t.sb.control.createListing({ price: 10_000, max_offer_discount: 2000 });
    expect(l.min_offer_price).toBe(8000);
    const o = parse(Offer, await offer(t.alice, l.id, 9000));
    expect(o).toMatchObject({
      contract_id: l.id,
      price: 9000,
      contract_price: 10_000,
      state: "active",
      buyer_id: t.aliceId,
    });
    expect(o.contract?.id).toBe(l.id);
  });

  it("answers 400 with code 4 when the seller has offers disabled", async () => {
    const l = t.sb.control.createListing({ price: 5000, max_offer_discount: 0 });
    const res = await offer(t.alice, l.id, 4900);
    expect(res.status).toBe(400);
    expect(parse(ErrorBodyStrict, res)).toEqual({ code: 4, message: "seller has offers disabled" });
  });

  it("refuses an offer below min_offer_price, on an auction, on one's own listing, and a second one without cancel_previous_offer", async () => {
    const l = t.sb.control.createListing({ price: 10_000, max_offer_discount: 1000 });
    expect((await offer(t.alice, l.id, 8999)).status).toBe(400);
    const auction = t.sb.control.createListing({ type: "auction", price: 1000 });
    expect((await offer(t.alice, auction.id, 900)).status).toBe(400);
    const own = t.sb.control.createListing({ sellerPlatformId: t.aliceId, price: 1000 });
    expect((await offer(t.alice, own.id, 950)).status).toBe(400);
    const first = parse(Offer, await offer(t.alice, l.id, 9500));
    expect((await offer(t.alice, l.id, 9600)).status).toBe(400);
    const second = parse(Offer, await offer(t.alice, l.id, 9600, true));
    const tl = parse(Timeline, await t.api("GET", "/me/offers-timeline", { key: t.alice })).offers;
    expect(tl.find((o) => o.id === first.id)?.state).toBe("cancelled");
    expect(tl.find((o) => o.id === second.id)?.state).toBe("active");
    expect((await offer(t.alice, "77", 100)).status).toBe(404);
  });

  it("replaces the answered offer with a counter-offer from the other side", async () => {
    const l = parse(
      Listing,
      await t.api("POST", "/listings", {
        key: t.bob,
        body: { asset_id: t.sb.control.inventory(t.bobId)[0], price: 20_000, max_offer_discount: 3000 },
      }),
    );
    const o = parse(Offer, await offer(t.alice, l.id, 15_000));
    expect(
      (await t.api("POST", `/offers/${o.id}/counter-offer`, { key: t.alice, body: { price: 16_000 } }))
        .status,
    ).toBe(400);
    expect(
      (await t.api("POST", `/offers/${o.id}/counter-offer`, { key: t.carol, body: { price: 16_000 } }))
        .status,
    ).toBe(404);
    const counter = parse(
      Offer,
      await t.api("POST", `/offers/${o.id}/counter-offer`, { key: t.bob, body: { price: 18_000 } }),
    );
    expect(counter.id).not.toBe(o.id);
    expect(counter).toMatchObject({ price: 18_000, state: "active", buyer_id: t.aliceId, contract_id: l.id });
    const tl = parse(Timeline, await t.api("GET", "/me/offers-timeline", { key: t.bob })).offers;
    expect(tl.find((x) => x.id === o.id)?.state).toBe("countered");
    expect(
      (await t.api("POST", `/offers/${o.id}/counter-offer`, { key: t.bob, body: { price: 19_000 } })).status,
    ).toBe(400);
    const back = parse(
      Offer,
      await t.api("POST", `/offers/${counter.id}/counter-offer`, { key: t.alice, body: { price: 17_000 } }),
    );
    expect(back.price).toBe(17_000);
  });

  it("filters the timeline by repeated states parameters and pages from zero", async () => {
    const states = parse(
      Timeline,
      await t.api("GET", "/me/offers-timeline?states=cancelled&states=countered", { key: t.alice }),
    ).offers.map((o) => o.state);
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => s === "cancelled" || s === "countered")).toBe(true);
    const p0 = parse(
      Timeline,
      await t.api("GET", "/me/offers-timeline?limit=1&page=0", { key: t.alice }),
    ).offers;
    const p1 = parse(
      Timeline,
      await t.api("GET", "/me/offers-timeline?limit=1&page=1", { key: t.alice }),
    ).offers;
    expect(p0).toHaveLength(1);
    expect(p1[0]?.id).not.toBe(p0[0]?.id);
  });

  it("ends open offers when the listing sells, and expires unanswered offers after a day", async () => {
    const sold = t.sb.control.createListing({ price: 3000, max_offer_discount: 1000 });
    const o1 = parse(Offer, await offer(t.carol, sold.id, 2900));
    t.sb.control.sellToBuyer(sold.id);
    const later = t.sb.control.createListing({ price: 3000, max_offer_discount: 1000 });
    const o2 = parse(Offer, await offer(t.carol, later.id, 2900));
    t.sb.control.advanceClock(24 * 3_600_000 + 1);
    const tl = parse(Timeline, await t.api("GET", "/me/offers-timeline", { key: t.carol })).offers;
    expect(tl.find((o) => o.id === o1.id)?.state).toBe("cancelled");
    expect(tl.find((o) => o.id === o2.id)?.state).toBe("expired");
  });

  it("sells at the offer price when the seller accepts (control)", async () => {
    const l = t.sb.control.createListing({ price: 4000, max_offer_discount: 2000 });
    const o = parse(Offer, await offer(t.carol, l.id, 3500));
    const accepted = t.sb.control.respondToOffer(o.id, "accept");
    expect(accepted.state).toBe("accepted");
    const read = parse(Listing, await t.api("GET", `/listings/${l.id}`));
    expect(read).toMatchObject({ state: "sold", price: 3500 });
  });
});

// /bid and /offer end to end: bids tracked for outbid alerts, raises through the form, offers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BID_ACTIONS, OFFER_ACTIONS } from "../../src/discord/actions.ts";
import { encodeCustomId } from "../../src/discord/customId.ts";
import { renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import type { InteractionHandle, StoredMessage } from "../support/discord.ts";
import {
  answer,
  buttonId,
  hits,
  isEphemeral,
  textOf,
  totalHits,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice", "bob"]));
});

afterAll(() => stopTradingBot(bot, market));

/** Presses a button that must open a form; returns the form's custom id. */
async function formOf(press: InteractionHandle): Promise<string> {
  const opened = await press.firstResponse();
  expect(opened.type).toBe(9);
  return String(opened.data?.custom_id);
}

const trackedBid = async (user: BotUser, listingId: string) => {
  const row = await bot.db.prisma.user.findUnique({ where: { discordId: user.id } });
  if (!row) return null;
  return bot.db.prisma.trackedBid.findUnique({ where: { userId_listingId: { userId: row.id, listingId } } });
};

const footerId = (m: StoredMessage, noun: string) => {
  const footer = m.embeds[0]?.footer?.text ?? "";
  const found = new RegExp(`${noun} (\\d+)`).exec(footer)?.[1];
  if (!found) throw new Error(`no ${noun} id in "${footer}"`);
  return found;
};

describe("/bid", () => {
  it("GIVEN an auction WHEN alice bids and later raises through the outbid alert THEN the top bid follows and her bid is tracked", async () => {
    const auction = bot.sandbox.control.createListing({ type: "auction", reserve_price: 1000 });

    const placed = await answer(bot.double.slash(alice, "bid", { listing: auction.id, max_price: "15.00" }));
    expect(isEphemeral(placed)).toBe(true);
    expect(textOf(placed)).toContain("You are the top bidder");
    expect(textOf(placed)).toContain("$10.00"); // the standing price: the reserve
    expect(textOf(placed)).toContain("$15.00"); // the ceiling
    expect(textOf(placed)).toMatch(/<t:\d+:R>/);
    const tracked = await trackedBid(alice, auction.id);
    expect(tracked?.status).toBe("active");
    expect(Number(tracked?.maxPriceCents)).toBe(1500);

    // A rival outbids her; the outbid alert's Raise bid opens the form.
    bot.sandbox.control.placeCompetingBid(auction.id, 2000);
    const alert = bot.double.postMessage(
      bot.double.channelId,
      renderAlert(
        {
          kind: "outbid",
          listingId: auction.id,
          itemName: auction.item.market_hash_name,
          yourMaxCents: 1500,
          topBidCents: 1550,
        },
        alice.id,
      ),
    );
    const form = await formOf(bot.double.button(alice, buttonId(alert, "Raise bid"), alert));
    const raised = await answer(bot.double.modalSubmit(alice, form, { max_price: "30" }));
    expect(textOf(raised)).toContain("You are the top bidder");
    expect(textOf(raised)).toContain("$20.50"); // rival's ceiling plus the 50c increment
    const listing = await market.as(alice).getListing(auction.id);
    expect(listing.auction_details?.top_bid?.price).toBe(2050);
    expect(Number((await trackedBid(alice, auction.id))?.maxPriceCents)).toBe(3000);
  });

  it("GIVEN a bid reply WHEN alice presses Raise bid THEN the form raises her ceiling", async () => {
    const auction = bot.sandbox.control.createListing({ type: "auction", reserve_price: 500 });
    const placed = await answer(bot.double.slash(alice, "bid", { listing: auction.id, max_price: "6" }));
    bot.sandbox.control.placeCompetingBid(auction.id, 900);
    const form = await formOf(bot.double.button(alice, buttonId(placed, "Raise bid"), placed));
    const raised = await answer(bot.double.modalSubmit(alice, form, { max_price: "12.00" }));
    expect(textOf(raised)).toContain("You are the top bidder");
    // The rival's ceiling plus the 50c step of the live-like table.
    expect((await market.as(alice).getListing(auction.id)).auction_details?.top_bid?.price).toBe(950);
  });

  it.each([
    [{ max_price: "abc" }, "enter a price in dollars"],
    [{ max_price: "-5" }, "must not be negative"],
    [{ max_price: "1.234" }, "at most 2 decimals"],
    [{ listing: "12ab" }, "listing ids are numbers"],
  ])(
    "GIVEN %j WHEN alice runs /bid THEN she is told why and the marketplace is not called",
    async (bad, why) => {
      const auction = bot.sandbox.control.createListing({ type: "auction", reserve_price: 500 });
      const before = totalHits(bot);
      const reply = await answer(
        bot.double.slash(alice, "bid", { listing: auction.id, max_price: "10", ...bad }),
      );
      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toContain(why);
      expect(totalHits(bot)).toBe(before);
    },
  );

  it("GIVEN a bid form WHEN alice types a bad price THEN she is told why and no bid is placed", async () => {
    const auction = bot.sandbox.control.createListing({ type: "auction", reserve_price: 500 });
    const form = await formOf(
      bot.double.button(
        alice,
        encodeCustomId({ action: BID_ACTIONS.open, subject: auction.id, owner: alice.id }),
      ),
    );
    const before = hits(bot, "POST /listings/{listing_id}/bid");
    const reply = await answer(bot.double.modalSubmit(alice, form, { max_price: "ten dollars" }));
    expect(textOf(reply)).toContain("max_price");
    expect(hits(bot, "POST /listings/{listing_id}/bid")).toBe(before);
    expect(await trackedBid(alice, auction.id)).toBeNull();
  });
});

describe("/offer", () => {
  it("GIVEN a seller with offers disabled WHEN alice makes an offer THEN she is told so in its own words", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 5000,
      max_offer_discount: 0,
    });
    const reply = await answer(bot.double.slash(alice, "offer make", { listing: listing.id, price: "40" }));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("This seller has offers disabled");
    const offers = await market.as(alice).getOffersTimeline({});
    expect(offers.offers.some((o) => o.contract_id === listing.id)).toBe(false);
  });

  it("GIVEN bob's listing WHEN alice offers and bob counters THEN the marketplace holds the counter-offer", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 5000,
      max_offer_discount: 2000,
      sellerPlatformId: bob.demo.platformId,
    });
    const made = await answer(bot.double.slash(alice, "offer make", { listing: listing.id, price: "42.00" }));
    expect(textOf(made)).toContain("Offer sent");
    expect(textOf(made)).toContain("$42.00");
    const offerId = footerId(made, "Offer");

    const countered = await answer(
      bot.double.slash(bob, "offer counter", { offer: offerId, price: "48.00" }),
    );
    expect(textOf(countered)).toContain("Counter-offer sent");
    expect(textOf(countered)).toContain("$48.00");

    const timeline = await market.as(alice).getOffersTimeline({});
    const mine = timeline.offers.filter((o) => o.contract_id === listing.id);
    expect(mine.find((o) => o.id === offerId)?.state).toBe("countered");
    expect(mine.some((o) => o.price === 4800 && o.state === "active")).toBe(true);

    const list = await answer(bot.double.slash(alice, "offer list", {}));
    expect(textOf(list)).toContain(offerId);
  });

  it("GIVEN a Make offer button WHEN alice submits a price in its form THEN the offer is made", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 3000,
      max_offer_discount: 2000,
    });
    const form = await formOf(
      bot.double.button(
        alice,
        encodeCustomId({ action: OFFER_ACTIONS.open, subject: listing.id, owner: alice.id }),
      ),
    );
    const made = await answer(bot.double.modalSubmit(alice, form, { price: "27.50" }));
    expect(textOf(made)).toContain("$27.50");
    const timeline = await market.as(alice).getOffersTimeline({});
    expect(timeline.offers.some((o) => o.contract_id === listing.id && o.price === 2750)).toBe(true);
  });

  it("GIVEN the offer price abc WHEN alice runs /offer make THEN she is told why and the marketplace is not called", async () => {
    const before = totalHits(bot);
    const reply = await answer(bot.double.slash(alice, "offer make", { listing: "123456789", price: "abc" }));
    expect(textOf(reply)).toContain("`price`");
    expect(totalHits(bot)).toBe(before);
  });
});

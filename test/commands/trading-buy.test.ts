// /buy end to end: real discord.js client, Discord double, sandbox marketplace, real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  componentsOf,
  hits,
  isEphemeral,
  labels,
  textOf,
  totalHits,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

const BUY = "POST /listings/buy";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;
/** The bot's clock runs this far ahead of real time (expiry tests). */
let clockOffsetMs = 0;

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice", "bob"], {
    overrides: { now: () => new Date(Date.now() + clockOffsetMs) },
  }));
});

afterAll(() => stopTradingBot(bot, market));

const balanceOf = (u: BotUser) => bot.sandbox.control.balance(u.demo.platformId).balance;

async function quoteFor(user: BotUser, listingId: string) {
  const quote = await answer(bot.double.slash(user, "buy", { listing: listingId }));
  return { quote, confirmId: buttonId(quote, "Confirm purchase") };
}

describe("/buy", () => {
  it("GIVEN a buy-now listing WHEN alice confirms the quote THEN it is sold to her and her balance drops by the price", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 1234 });
    const before = balanceOf(alice);

    const { quote, confirmId } = await quoteFor(alice, listing.id);
    expect(isEphemeral(quote)).toBe(true);
    expect(textOf(quote)).toContain("$12.34");
    expect(labels(quote)).toEqual(["Confirm purchase", "Cancel"]);
    expect(hits(bot, BUY)).toBe(0);

    const done = await answer(bot.double.button(alice, confirmId, quote));
    expect(textOf(done)).toContain("Bought");
    expect(textOf(done)).toContain("$12.34");
    expect(componentsOf(done)).toEqual([]);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("sold");
    expect(balanceOf(alice)).toBe(before - 1234);
  });

  it("GIVEN a quote WHEN the seller reprices before the click THEN nothing is bought and the new price is named", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 2000,
      sellerPlatformId: bob.demo.platformId,
    });
    const before = balanceOf(alice);
    const buysBefore = hits(bot, BUY);
    const { quote, confirmId } = await quoteFor(alice, listing.id);
    expect(textOf(quote)).toContain("$20.00");

    const repriced = await answer(
      bot.double.slash(bob, "sell reprice", { listing: listing.id, price: "25.00" }),
    );
    expect(textOf(repriced)).toContain("Repriced");

    const refused = await answer(bot.double.button(alice, confirmId, quote));
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("$20.00 to $25.00");
    expect(textOf(refused)).toContain("nothing was bought");
    expect(hits(bot, BUY)).toBe(buysBefore);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("listed");
    expect(balanceOf(alice)).toBe(before);
  });

  it("GIVEN a quote WHEN Confirm is clicked twice at once THEN the listing is bought once", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 777 });
    const before = balanceOf(alice);
    const buysBefore = hits(bot, BUY);
    const { quote, confirmId } = await quoteFor(alice, listing.id);

    // A slow purchase keeps the first click in flight while the second one arrives.
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "latency",
      ms: 400,
      times: 2,
    });
    const first = bot.double.button(alice, confirmId, quote);
    const second = bot.double.button(alice, confirmId, quote);
    // Both are done once the quote became a receipt and the other click got its refusal.
    await bot.double.waitFor(
      () =>
        textOf(bot.double.message(quote.id) ?? quote).includes("Bought") &&
        first.followUps().length + second.followUps().length > 0,
      10_000,
      "one purchase and one refusal",
    );
    bot.sandbox.control.clearFaults();

    expect(hits(bot, BUY)).toBe(buysBefore + 1);
    expect(balanceOf(alice)).toBe(before - 777);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("sold");
    const texts = [...first.followUps(), ...second.followUps()].map(textOf).join("\n");
    expect(texts).toMatch(/already being processed|Already bought|already been sold/);
  });

  it("GIVEN caps WHEN purchases would exceed them THEN they are refused with the numbers and nothing more is bought", async () => {
    const caps = await answer(
      bot.double.slash(bob, "account settings", { per_purchase_cap: "8", daily_cap: "10.00" }),
    );
    expect(textOf(caps)).toContain("$10.00");
    try {
      const pricey = bot.sandbox.control.createListing({ type: "buy_now", price: 900 });
      const tooMuch = await answer(bot.double.slash(bob, "buy", { listing: pricey.id }));
      expect(textOf(tooMuch)).toContain("above your per-purchase cap of $8.00");

      const a = bot.sandbox.control.createListing({ type: "buy_now", price: 600 });
      const b = bot.sandbox.control.createListing({ type: "buy_now", price: 500 });
      // Both quotes fit the cap on their own; only the second purchase would cross it.
      const quoteA = await quoteFor(bob, a.id);
      const quoteB = await quoteFor(bob, b.id);
      const buysBefore = hits(bot, BUY);
      const before = balanceOf(bob);

      expect(textOf(await answer(bot.double.button(bob, quoteA.confirmId, quoteA.quote)))).toContain(
        "Bought",
      );
      const refused = await answer(bot.double.button(bob, quoteB.confirmId, quoteB.quote));
      expect(textOf(refused)).toContain("only $4.00 of your $10.00 daily cap is left");
      expect(textOf(refused)).toContain("$6.00 spent");
      expect(hits(bot, BUY)).toBe(buysBefore + 1);
      expect(balanceOf(bob)).toBe(before - 600);
      expect((await market.as(bob).getListing(b.id)).state).toBe("listed");
    } finally {
      await answer(bot.double.slash(bob, "account settings", { per_purchase_cap: "off", daily_cap: "off" }));
    }
  });

  it("GIVEN a listing alert WHEN alice presses its Buy button THEN the same confirmation flow buys it", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 4321 });
    const alert = renderAlert(
      {
        kind: "listing",
        ruleId: "r1",
        ruleName: "cheap rifles",
        ruleSummary: "under $50",
        listingId: listing.id,
        listingType: "buy_now",
        itemName: listing.item.market_hash_name,
        priceCents: 4321,
        stickers: [],
        keychains: [],
      },
      alice.id,
    );
    const posted = bot.double.postMessage(bot.double.channelId, alert);

    const quote = await answer(bot.double.button(alice, buttonId(posted, "Buy"), posted));
    expect(isEphemeral(quote)).toBe(true);
    expect(textOf(quote)).toContain("$43.21");
    const done = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));
    expect(textOf(done)).toContain("Bought");
    expect((await market.as(alice).getListing(listing.id)).state).toBe("sold");
  });

  it("GIVEN alice's buttons WHEN bob presses them THEN he is refused and the marketplace is not called", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 1500 });
    const { confirmId } = await quoteFor(alice, listing.id);
    const posted = bot.double.postMessage(
      bot.double.channelId,
      renderAlert(
        {
          kind: "listing",
          ruleId: "r2",
          ruleName: "anything",
          ruleSummary: "",
          listingId: listing.id,
          listingType: "buy_now",
          itemName: "Rifle | Test (Field Worn)",
          priceCents: 1500,
          stickers: [],
          keychains: [],
        },
        alice.id,
      ),
    );
    const requestsBefore = totalHits(bot);

    // The confirmation could only reach bob as a message sent earlier in a channel.
    const onConfirm = await answer(bot.double.button(bob, confirmId));
    const onAlert = await answer(bot.double.button(bob, buttonId(posted, "Buy"), posted));
    for (const refused of [onConfirm, onAlert]) {
      expect(isEphemeral(refused)).toBe(true);
      expect(textOf(refused)).toContain("isn't yours");
    }
    expect(totalHits(bot)).toBe(requestsBefore);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("listed");
  });

  it("GIVEN a quote WHEN alice presses Cancel THEN nothing is bought", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 321 });
    const { quote } = await quoteFor(alice, listing.id);
    const buysBefore = hits(bot, BUY);
    const cancelled = await answer(bot.double.button(alice, buttonId(quote, "Cancel"), quote));
    expect(textOf(cancelled)).toContain("nothing was bought");
    expect(componentsOf(cancelled)).toEqual([]);
    expect(hits(bot, BUY)).toBe(buysBefore);
  });

  it("GIVEN a quote older than 2 minutes WHEN Confirm is pressed THEN it has expired and nothing is bought", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 999 });
    const { quote, confirmId } = await quoteFor(alice, listing.id);
    const requestsBefore = totalHits(bot);
    clockOffsetMs = 2 * 60_000 + 1000;
    try {
      const expired = await answer(bot.double.button(alice, confirmId, quote));
      expect(textOf(expired)).toContain("expired");
    } finally {
      clockOffsetMs = 0;
    }
    expect(totalHits(bot)).toBe(requestsBefore);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("listed");
  });

  it.each([
    ["abc", "listing ids are numbers"],
    ["12 34", "listing ids are numbers"],
    ["../listings/1", "listing ids are numbers"],
  ])(
    "GIVEN the listing id %j WHEN alice runs /buy THEN she is told why and the marketplace is not called",
    async (id, why) => {
      const requestsBefore = totalHits(bot);
      const reply = await answer(bot.double.slash(alice, "buy", { listing: id }));
      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toContain(why);
      expect(totalHits(bot)).toBe(requestsBefore);
    },
  );
});

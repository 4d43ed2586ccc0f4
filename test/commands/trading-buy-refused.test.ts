// Purchases the marketplace refuses after the bot's last read, end to end through Discord: the
// listing sells, is repriced or delisted just before the purchase arrives, the sandbox answers 422
// (code 6 or 15) as the live service does, and the user reads why; nothing is bought.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import { startMarketGate, type MarketGate } from "./market-gate.ts";
import {
  answer,
  buttonId,
  isEphemeral,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "./trading-support.ts";

const BUY = "POST /listings/buy";

let sandbox: Sandbox;
let gate: MarketGate;
let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
  gate = await startMarketGate(sandbox.baseUrl);
  ({ bot, alice, bob, market } = await startTradingBot(["alice"], {
    reuse: { sandbox },
    overrides: { marketBaseUrl: gate.baseUrl },
  }));
});

afterAll(async () => {
  await stopTradingBot(bot, market);
  await gate?.close();
  await sandbox?.close();
});

const balanceOf = (u: BotUser) => sandbox.control.balance(u.demo.platformId).balance;
const refusals = () => sandbox.control.stats().routes[BUY]?.byStatus["422"] ?? 0;

/** Bob's buy-now listing, which alice is about to buy. */
function bobsListing(price: number) {
  return sandbox.control.createListing({ type: "buy_now", price, sellerPlatformId: bob.demo.platformId });
}

async function purchaseOf(listingId: string) {
  return bot.db.prisma.purchase.findFirst({ where: { listingIds: { has: listingId } } });
}

describe("/buy refused by the marketplace", () => {
  it("GIVEN alice's quote WHEN the listing sells just before her purchase arrives THEN she reads that it sold and nothing is bought", async () => {
    const listing = bobsListing(1_500);
    const quote = await answer(bot.double.slash(alice, "buy", { listing: listing.id }));
    gate.before(BUY, () => sandbox.control.sellToBuyer(listing.id));
    const [balance, refused] = [balanceOf(alice), refusals()];

    const reply = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));

    expect(refusals()).toBe(refused + 1);
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("This listing has already been sold; nothing was bought.");
    expect(balanceOf(alice)).toBe(balance);
    expect((await purchaseOf(listing.id))?.status).toBe("failed");
    expect(gate.failures).toEqual([]);
  });

  it("GIVEN alice's quote WHEN bob delists just before her purchase arrives THEN she reads that it was delisted", async () => {
    const listing = bobsListing(1_300);
    const quote = await answer(bot.double.slash(alice, "buy", { listing: listing.id }));
    gate.before(BUY, () => market.as(bob).deleteListing(listing.id));
    const [balance, refused] = [balanceOf(alice), refusals()];

    const reply = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));

    expect(refusals()).toBe(refused + 1);
    expect(textOf(reply)).toContain("no longer for sale (delisted); nothing was bought");
    expect(balanceOf(alice)).toBe(balance);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("delisted");
    expect(gate.failures).toEqual([]);
  });

  it("GIVEN a listing alert WHEN bob reprices just before alice's purchase from its Buy button arrives THEN she reads the new price and nothing is bought", async () => {
    const listing = bobsListing(1_500);
    const posted = bot.double.postMessage(
      bot.double.channelId,
      renderAlert(
        {
          kind: "listing",
          ruleId: "r-refused",
          ruleName: "rifles",
          ruleSummary: "under $20",
          listingId: listing.id,
          listingType: "buy_now",
          itemName: listing.item.market_hash_name,
          priceCents: 1_500,
          stickers: [],
          keychains: [],
        },
        alice.id,
      ),
    );
    const quote = await answer(bot.double.button(alice, buttonId(posted, "Buy"), posted));
    expect(textOf(quote)).toContain("$15.00");
    gate.before(BUY, () => market.as(bob).updateListing(listing.id, { price: 1_900 }));
    const [balance, refused] = [balanceOf(alice), refusals()];

    const reply = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));

    expect(refusals()).toBe(refused + 1);
    expect(textOf(reply)).toContain("The price changed from $15.00 to $19.00; nothing was bought.");
    expect(balanceOf(alice)).toBe(balance);
    expect((await market.as(alice).getListing(listing.id)).state).toBe("listed");
    expect((await purchaseOf(listing.id))?.status).toBe("failed");
    expect(gate.failures).toEqual([]);
  });
});

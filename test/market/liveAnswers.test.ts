// Live answers read as they are (docs/live-service.md), end to end through the Discord double and
// the sandbox, which answers as they were recorded: a purchase answered with a message only, a
// stall page without totals, a buy order created with a zero created_at.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snowflakeTime } from "../../src/market/ids.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  hits,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "../commands/trading-support.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

describe('a purchase answered { message: "all listings purchased" }', () => {
  it("GIVEN the live purchase answer WHEN alice confirms /buy THEN it reads as bought, the receipt names her trade found in GET /me/trades, and nothing is logged as not understood", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 1_525,
      sellerPlatformId: bob.demo.platformId,
    });
    const tradesRead = hits(bot, "GET /me/trades");

    const quote = await answer(bot.double.slash(alice, "buy", { listing: listing.id }));
    const done = await answer(bot.double.button(alice, buttonId(quote, "Confirm purchase"), quote));

    expect(textOf(done)).toContain("Bought");
    const mine = await market.as(alice).getMyTrades({ role: "buyer", limit: 50 });
    const trade = mine.trades.find((t) => t.contract_id === listing.id);
    expect(trade).toBeDefined();
    expect(done.embeds[0]?.footer?.text).toBe(`Listing ${listing.id} · trade ${trade?.id}`);
    expect(hits(bot, "GET /me/trades")).toBeGreaterThan(tradesRead);
    expect(bot.logs.filter((l) => l.msg.startsWith("purchase answer not understood"))).toEqual([]);
  });
});

describe("a stall page without totals", () => {
  it("GIVEN a stall whose later pages carry no total_count or total_price WHEN alice pages /stall THEN the next page shows its listings and no totals", async () => {
    const seller = "42420000000000205";
    const first = await bot.double.slash(alice, "stall", { user: seller }).finalMessage();
    expect(textOf(first)).toMatch(/\*\*\d+\*\* listings/);

    const second = await answer(bot.double.button(alice, buttonId(first, "Next ▶"), first));

    const text = textOf(second);
    expect(text).toContain("Stall of copperjay");
    expect(text).not.toMatch(/\*\*\d+\*\* listings/);
    expect(text).not.toMatch(/went wrong|could not/i);
    expect(text).toMatch(/\$\d/);
  });
});

describe("a buy order created with a zero created_at", () => {
  it("GIVEN the create reply's created_at is 0001-01-01 WHEN alice places a /buyorder THEN the receipt is dated by the order id's own time, not year 1", async () => {
    const before = Date.now();
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: "Falcon Rifle | Ember Tide (Field Worn)",
        max_price: "4",
        quantity: 1,
      }),
    );
    const created = await answer(
      bot.double.button(alice, buttonId(confirmation, "Place order"), confirmation),
    );

    const orderId = /Buy order (\d+)/.exec(created.embeds[0]?.footer?.text ?? "")?.[1] ?? "";
    const stamp = Date.parse(created.embeds[0]?.timestamp ?? "");
    expect(stamp).toBe(snowflakeTime(orderId)?.getTime());
    expect(stamp).toBeGreaterThanOrEqual(before - 1_000);
    expect(stamp).toBeLessThanOrEqual(Date.now() + 1_000);
  });
});

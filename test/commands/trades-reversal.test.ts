// /trades shows how long a verified sale can still be reversed, and stops once it cannot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bot, BotUser } from "../support/harness.ts";
import "../support/harness.ts";
import { answer, startTradingBot, stopTradingBot, textOf, type MarketView } from "./trading-support.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  // The bot reads the time as the sandbox does, so moving the sandbox clock closes the window.
  const clock = { now: () => Date.now() };
  ({ bot, alice, market } = await startTradingBot(["alice"], {
    overrides: { now: () => new Date(clock.now()) },
  }));
  clock.now = () => bot.sandbox.control.now();
});

afterAll(() => stopTradingBot(bot, market));

/** A sale of alice's, accepted and verified an hour later. */
async function verifiedSale(): Promise<string> {
  const sale = bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
  await market.as(alice).acceptTrade(sale.id);
  bot.sandbox.control.advanceClock(HOUR + 60_000);
  return sale.id;
}

const lineOf = (text: string, tradeId: string) =>
  text.split("\n").find((l) => l.includes(`\`${tradeId}\``)) ?? "";

describe("/trades reversal window", () => {
  it("GIVEN a verified sale WHEN alice lists her sales THEN its line shows until when it can be reversed", async () => {
    const tradeId = await verifiedSale();
    const upstream = await market.as(alice).getTrade(tradeId);
    const ends = Math.floor(Date.parse(String(upstream.trade_protection_ends_at)) / 1000);
    expect(ends).toBeGreaterThan(bot.sandbox.control.now() / 1000 + 6 * 24 * 3600);

    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "verified" }));
    expect(lineOf(textOf(list), tradeId)).toContain(`⏳ reversible until <t:${ends}:R>`);
  });

  it("GIVEN a verified sale that was reversed WHEN listed THEN no window is shown", async () => {
    const tradeId = await verifiedSale();
    bot.sandbox.control.reverseTrade(tradeId);
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "verified" }));
    const line = lineOf(textOf(list), tradeId);
    expect(line).toContain(tradeId);
    expect(line).not.toContain("reversible");
  });

  it("GIVEN a sale verified eight days ago WHEN listed THEN its window has closed and is not shown", async () => {
    const tradeId = await verifiedSale();
    bot.sandbox.control.advanceClock(8 * DAY);
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "verified" }));
    const line = lineOf(textOf(list), tradeId);
    expect(line).toContain(tradeId);
    expect(line).not.toContain("reversible");
  });
});

// /portfolio end to end: a known ledger built in the sandbox (purchases, sales with a 2% fee, a
// refund, a reversal, a sale with no purchase), read through Discord: exact P&L by period and
// item, open positions at the reference price, paging, the CSV, the chart, bad input, failures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Loaded before trading-support's market client: the first undici copy loaded installs the
// process-wide dispatcher, and discord.js's file uploads fail under the other copy's.
import type { Bot, BotUser } from "../support/harness.ts";
import "../support/harness.ts";
import { buyAndFindTrade } from "../support/purchase.ts";
import {
  answer,
  buttonId,
  hits,
  isEphemeral,
  labels,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "./trading-support.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const X = "Portfolio Rifle | Alpha (Field-Tested)";
const V = "Portfolio Pistol | Vee (Minimal Wear)";
const Y = "Portfolio Knife | Why (Factory New)";
const Z = "Portfolio Gloves | Zed (Well-Worn)";
const FILLERS = Array.from({ length: 9 }, (_, i) => `Portfolio Filler | No${i + 1} (Field-Tested)`);

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;
let unknownSale: { price: number; fee: number };

/** Bob lists `name`, alice buys it, bob accepts: a purchase in alice's ledger. */
async function aliceBuysFromBob(name: string, price: number, reference?: number) {
  const l = bot.sandbox.control.createListing({
    sellerPlatformId: bob.demo.platformId,
    market_hash_name: name,
    price,
    type: "buy_now",
    ...(reference === undefined ? {} : { reference_price: reference }),
  });
  const trade = await buyAndFindTrade(market.as(alice), l.id, price);
  return trade.id;
}

/** Alice lists `name`, a market buyer buys it, alice accepts: a sale in alice's ledger. */
async function aliceSells(name: string, price: number) {
  const l = bot.sandbox.control.createListing({
    sellerPlatformId: alice.demo.platformId,
    market_hash_name: name,
    price,
    type: "buy_now",
  });
  const trade = bot.sandbox.control.sellToBuyer(l.id);
  await market.as(alice).acceptTrade(trade.id);
  return trade.id;
}

beforeAll(async () => {
  // The bot's clock is the sandbox's, so periods can be tested by moving the sandbox clock.
  const clock = { now: () => Date.now() };
  ({ bot, alice, bob, market } = await startTradingBot(["alice"], {
    overrides: { now: () => new Date(clock.now()) },
  }));
  clock.now = () => bot.sandbox.control.now();
  const c = bot.sandbox.control;
  c.setSellerFee(200);

  // Nine days ago: X bought for $10.00 and sold for $15.00 (fee $0.30, credited $14.70).
  const xBuy = await aliceBuysFromBob(X, 1000);
  await market.as(bob).acceptTrade(xBuy);
  await aliceSells(X, 1500);
  c.advanceClock(HOUR);
  c.advanceClock(8 * DAY);

  // This week: V bought $5.00, sold $9.00 (credited $8.82) and the sale reversed; Y and nine
  // fillers held; Z bought and refunded; one sale of an item alice never bought.
  const toAccept = [
    await aliceBuysFromBob(V, 500, 700),
    await aliceBuysFromBob(Y, 2000, 2500),
    ...(await Promise.all(FILLERS.map((f) => aliceBuysFromBob(f, 100, 100)))),
  ];
  await market.as(bob).bulkAcceptTrades(toAccept);
  const vSale = await aliceSells(V, 900);
  const zBuy = await aliceBuysFromBob(Z, 800);
  await market.as(alice).bulkCancelTrades([zBuy]);
  c.advanceClock(HOUR);
  c.reverseTrade(vSale);
  const sale = c.createSaleForSeller(alice.demo.platformId);
  const price = sale.contract?.price ?? 0;
  unknownSale = { price, fee: Math.round(price * 0.02) };
}, 60_000);

afterAll(() => stopTradingBot(bot, market));

describe("/portfolio", () => {
  it("GIVEN a known ledger WHEN alice asks for all time THEN P&L, fees and the unknown-cost sale are exact", async () => {
    const reply = await answer(bot.double.slash(alice, "portfolio summary", { period: "all" }));
    expect(isEphemeral(reply)).toBe(true);
    const text = textOf(reply);
    expect(text).toContain("Portfolio · All time");
    expect(text).toContain("P&L after fees: +$4.70");
    const credited = 1470 + (unknownSale.price - unknownSale.fee);
    const cents = (n: number) => `$${(n / 100).toFixed(2)}`;
    expect(text).toContain(`Sales credited ${cents(credited)} · fees ${cents(30 + unknownSale.fee)}`);
    expect(text).toContain("bought $44.00");
    expect(text).toContain("1 reversal");
    expect(text).toContain(
      `1 sale (${cents(unknownSale.price - unknownSale.fee)}) of items with no purchase`,
    );
    expect(text).toMatch(
      /`1\.` \*\*Portfolio Rifle \| Alpha \(Field-Tested\)\*\* · P&L \*\*\+\$4\.70\*\* · sold 1 for \$14\.70 · fees \$0\.30 · bought 1 for \$10\.00/,
    );
    expect(text).not.toContain("Gloves");
  });

  it("GIVEN the sale nine days ago WHEN alice asks for 7 days THEN only this week's reversal shows, at zero", async () => {
    const reply = await answer(bot.double.slash(alice, "portfolio summary", { period: "7d" }));
    const text = textOf(reply);
    expect(text).toContain("Portfolio · Last 7 days");
    expect(text).toContain("P&L after fees: $0.00");
    expect(text).not.toContain("Alpha");
    expect(text).toContain("bought $34.00");
  });

  it("GIVEN open positions WHEN alice reads the summary THEN they are valued at the reference price after the fee", async () => {
    const text = textOf(await answer(bot.double.slash(alice, "portfolio summary", { period: "all" })));
    expect(text).toContain("Open positions (11)");
    expect(text).toContain("Estimated +$6.18 if sold at the reference price after the 2.0% fee");
    expect(text).toContain(
      "**Portfolio Knife | Why (Factory New)** ×1 · cost $20.00 · reference $25.00 · est. +$4.50",
    );
    expect(text).toContain(
      "**Portfolio Pistol | Vee (Minimal Wear)** ×1 · cost $5.00 · reference $7.00 · est. +$1.86",
    );
    expect(text).toContain("…and 3 more in the CSV.");
  });

  it("GIVEN thirteen items WHEN alice presses Next THEN the second page lists the rest, Previous comes back, and the ledger is not read again", async () => {
    const first = await answer(bot.double.slash(alice, "portfolio summary", { period: "all" }));
    expect(textOf(first)).toContain("By item · page 1 of 2");
    expect(labels(first)).toEqual(["◀ Previous", "Next ▶"]);
    const reads = hits(bot, "GET /me/transactions");
    const second = await answer(bot.double.button(alice, buttonId(first, "Next ▶"), first));
    expect(textOf(second)).toContain("By item · page 2 of 2");
    expect(textOf(second)).toMatch(/`9\.` /);
    expect(textOf(second)).not.toContain("Alpha");
    expect(textOf(second)).toContain(
      "**Portfolio Pistol | Vee (Minimal Wear)** · P&L **$0.00** · bought 1 for $5.00 · ⚠️ 1 reversal",
    );
    const back = await answer(bot.double.button(alice, buttonId(second, "◀ Previous"), second));
    expect(textOf(back)).toContain("By item · page 1 of 2");
    // The buttons page through what the command read: no second walk of the ledger.
    expect(hits(bot, "GET /me/transactions")).toBe(reads);
  });

  it("GIVEN an item WHEN alice filters by it (any case) THEN only that item's figures show", async () => {
    const text = textOf(
      await answer(bot.double.slash(alice, "portfolio summary", { period: "all", item: X.toUpperCase() })),
    );
    expect(text).toContain(`Portfolio · All time · ${X}`);
    expect(text).toContain("P&L after fees: +$4.70");
    expect(text).toContain("Open positions (0)");
  });

  it("GIVEN the period WHEN alice exports THEN the CSV holds every P&L line in dollars", async () => {
    const reply = await answer(bot.double.slash(alice, "portfolio export", { period: "all" }));
    expect(isEphemeral(reply)).toBe(true);
    const file = reply.attachments.find((a) => a.filename === "portfolio-all.csv");
    const lines = (file?.data.toString("utf8") ?? "").trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,kind,item,listing_id,net_proceeds_usd,fee_usd,cost_usd,pnl_usd,cost_known");
    const rows = lines.slice(1).map((l) => l.split(","));
    const of = (kind: string, item: string) => rows.filter((r) => r[1] === kind && r[2] === item);
    expect(of("sale", X).map((r) => r.slice(4))).toEqual([["14.70", "0.30", "10.00", "4.70", "yes"]]);
    expect(of("sale", V).map((r) => r.slice(4))).toEqual([["8.82", "0.18", "5.00", "3.82", "yes"]]);
    expect(of("sale reversed", V).map((r) => r.slice(4))).toEqual([
      ["-8.82", "-0.18", "-5.00", "-3.82", "yes"],
    ]);
    expect(rows.filter((r) => r[1] === "sale" && r[8] === "no")).toHaveLength(1);
    expect(of("open position x1", Y).map((r) => r.slice(4))).toEqual([
      ["24.50", "", "20.00", "4.50", "estimate"],
    ]);
    expect(rows.filter((r) => r[1]?.startsWith("open position"))).toHaveLength(11);
  });

  it("GIVEN the period WHEN alice asks for the chart THEN a valid 800×400 PNG is attached", async () => {
    const reply = await answer(bot.double.slash(alice, "portfolio chart", { period: "all" }), 20_000);
    expect(isEphemeral(reply)).toBe(true);
    const png = reply.attachments.find((a) => a.filename === "portfolio-pnl.png")?.data;
    expect(png?.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(png?.subarray(12, 16).toString("ascii")).toBe("IHDR");
    expect(png?.readUInt32BE(16)).toBe(800);
    expect(png?.readUInt32BE(20)).toBe(400);
    expect(reply.embeds[0]?.image?.url).toContain("portfolio-pnl.png");
    expect(textOf(reply)).toContain("+$4.70");
  });

  it("GIVEN an item alice never traded WHEN she asks for it THEN she is told so and nothing changes", async () => {
    const balance = bot.sandbox.control.balance(alice.demo.platformId);
    const reply = await answer(
      bot.double.slash(alice, "portfolio summary", { item: "Nothing | Such (Battle-Scarred)" }),
    );
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain(
      "Your ledger has no purchase or sale of “Nothing | Such (Battle-Scarred)”",
    );
    expect(bot.sandbox.control.balance(alice.demo.platformId)).toEqual(balance);
  });

  it("GIVEN a page button carrying a period that is not one WHEN pressed THEN a clear message and no marketplace request", async () => {
    const before = hits(bot, "GET /me/transactions");
    const reply = await answer(bot.double.button(alice, `pf.page:year.0:${alice.id}`));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("`period`: choose one of today, 7d, 30d, all");
    expect(hits(bot, "GET /me/transactions")).toBe(before);
  });

  it("GIVEN an item name with a line break WHEN sent THEN a clear message and no marketplace request", async () => {
    const before = hits(bot, "GET /me/transactions");
    const reply = await answer(bot.double.slash(alice, "portfolio export", { item: "Rifle\nAlpha" }));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("`item`: give an item's full market name");
    expect(hits(bot, "GET /me/transactions")).toBe(before);
  });

  it("GIVEN the method subcommand WHEN asked THEN it explains FIFO cost, fees, reversals and the estimate", async () => {
    const text = textOf(await answer(bot.double.slash(alice, "portfolio method")));
    for (const words of [
      "first in, first out",
      "net of the marketplace fee",
      "reversed sale",
      "**estimate**",
    ])
      expect(text).toContain(words);
  });

  it("GIVEN /help WHEN asked THEN /portfolio is listed with its subcommands and where the method is explained", async () => {
    const text = textOf(await answer(bot.double.slash(alice, "help")));
    expect(text).toContain(
      "`/portfolio` — Your profit and loss after fees, open positions, CSV export and chart (summary, export, chart, method)",
    );
    expect(text).toContain("/portfolio method explains how profit and loss is worked out");
  });

  it("GIVEN the ledger answers 503 WHEN alice asks THEN she is told the marketplace is in trouble", async () => {
    const c = bot.sandbox.control;
    c.injectFault({ path: "/me/transactions", kind: "status", status: 503 });
    const down = await answer(bot.double.slash(alice, "portfolio summary"));
    c.clearFaults();
    expect(isEphemeral(down)).toBe(true);
    expect(textOf(down)).toContain("The marketplace is having trouble right now (status 503)");
  });

  it("GIVEN the ledger answers 429 for minutes WHEN bob asks THEN he is told to wait, not that the service is down", async () => {
    const c = bot.sandbox.control;
    await bot.link(bob);
    c.injectFault({ path: "/me/transactions", kind: "rate_limit", retryAfterSeconds: 600 });
    const limited = await answer(bot.double.slash(bob, "portfolio export"));
    c.clearFaults();
    expect(isEphemeral(limited)).toBe(true);
    expect(textOf(limited)).toContain("rate limiting");
    expect(limited.attachments).toEqual([]);
  });

  it("GIVEN a revoked key WHEN alice asks THEN she is told to link again", async () => {
    bot.sandbox.control.revokeKey(alice.demo.apiKey);
    const reply = await answer(bot.double.slash(alice, "portfolio summary"));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toMatch(/key was rejected|link/i);
  });
});

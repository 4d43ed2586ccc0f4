// Money units are never guessed: a ledger amount that is not integer cents (a dollar string, a
// fraction, a string of cents) is neither shown nor summed; it is logged and counted, and the
// command or alert says it could not read it. Detail fields that arrive as strings stay readable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bot, BotUser } from "../support/harness.ts";
import "../support/harness.ts";
import { reversalAlertOf } from "../../src/accountPollers/reversals.ts";
import { reversalEmbed, reversalLine } from "../../src/discord/render/alerts/reversal.ts";
import { Transaction } from "../../src/market/schemas.ts";
import { buildBook } from "../../src/portfolio/book.ts";
import { toLedgerEntry } from "../../src/portfolio/ledgerEntry.ts";
import { scrape, valueOf } from "../ops/support.ts";
import { buyAndFindTrade } from "../support/purchase.ts";
import {
  answer,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "../commands/trading-support.ts";

const tx = (fields: Record<string, unknown>) =>
  toLedgerEntry(
    Transaction.parse({ id: "1050000000000000001", created_at: new Date().toISOString(), ...fields }),
  );

describe("a ledger entry whose amount is not integer cents", () => {
  it("GIVEN offsets as a dollar string, a fraction and a string of cents WHEN read THEN each is flagged unreadable and reads as no amount", () => {
    for (const odd of ["-12.34", -12.34, "1234"]) {
      const e = tx({ type: "contract_purchased", balance_offset: odd, details: { contract_id: "7" } });
      expect(e.amountUnreadable, String(odd)).toBe(true);
      expect(e.balanceCents, String(odd)).toBe(0);
    }
    const whole = tx({ type: "contract_purchased", balance_offset: -1234, pending_offset: 0 });
    expect(whole).toMatchObject({ amountUnreadable: false, balanceCents: -1234 });
  });

  it("GIVEN money-like detail fields as strings (as live) WHEN read THEN they stay readable", () => {
    const e = tx({
      type: "contract_sold",
      balance_offset: 0,
      pending_offset: 1470,
      details: { contract_id: "7", fee_amount: "30.00", fee: "2", float_fee: "0", original_tx: 42 },
    });

    expect(e).toMatchObject({ amountUnreadable: false, pendingCents: 1470, feeCents: 30, originalTx: "42" });
  });

  it("GIVEN a purchase with an unreadable amount WHEN the book is built THEN it is left out of every figure and counted", () => {
    const book = buildBook(
      [
        tx({ type: "contract_purchased", balance_offset: "-12.34", details: { contract_id: "7" } }),
        tx({ type: "contract_sold", balance_offset: 0, pending_offset: 2000, details: { contract_id: "7" } }),
      ],
      () => "Rifle",
    );

    expect(book.unreadableAmounts).toBe(1);
    expect(book.purchases).toEqual([]);
    // The sale stands on its own: its cost is unknown, not a guessed 12 cents.
    expect(book.events).toEqual([expect.objectContaining({ kind: "sale", costKnown: false, pnlCents: 0 })]);
  });

  it("GIVEN a trade's reversal whose amount is a fraction WHEN alerted THEN the alert says the amount could not be read and shows none", () => {
    const e = tx({
      type: "rollback",
      balance_offset: -12.34,
      details: { trade_id: "1050000000000000007", contract_id: "7", reason: "trade reversed" },
    });

    const alert = reversalAlertOf(e, "Rifle");
    expect(alert.amountCents).toBeUndefined();
    expect(reversalLine(alert)).toContain("amount unreadable");
    const shown = JSON.stringify(reversalEmbed(alert));
    expect(shown).toContain("cannot read");
    expect(shown).not.toMatch(/\$0\.12|\$12\.34/);
  });
});

describe("/portfolio and /account transactions when the ledger's unit changed", () => {
  let bot: Bot;
  let alice: BotUser;
  let bob: BotUser;
  let market: MarketView;

  beforeAll(async () => {
    ({ bot, alice, bob, market } = await startTradingBot(["alice"]));
    const l = bot.sandbox.control.createListing({
      sellerPlatformId: bob.demo.platformId,
      market_hash_name: "Units Rifle | Dollar (Field-Tested)",
      price: 1234,
      type: "buy_now",
    });
    await buyAndFindTrade(market.as(alice), l.id, 1234);
  });

  afterAll(async () => {
    bot?.sandbox.control.clearDrift();
    await stopTradingBot(bot, market);
  });

  it("GIVEN the ledger as sent today WHEN alice reads /portfolio THEN her purchase is summed in cents", async () => {
    bot.sandbox.control.clearDrift();

    const text = textOf(await answer(bot.double.slash(alice, "portfolio summary", { period: "all" })));

    expect(text).toContain("bought $12.34");
    expect(text).not.toContain("cannot read");
  });

  it("GIVEN balance_offset sent as dollar strings WHEN alice reads /portfolio THEN it says it cannot read the amounts, sums none of them, and the bot logs and counts them", async () => {
    bot.sandbox.control.setDrift({ retypeFields: { balance_offset: "dollars" } });
    const before = await scrape(bot.app.http.url);
    const counted = (samples: typeof before) =>
      valueOf(samples, "market_unreadable_elements_total", {
        endpoint: "GET /me/transactions",
        what: "transaction.balance_offset",
      }) ?? 0;

    const text = textOf(await answer(bot.double.slash(alice, "portfolio summary", { period: "all" })));

    expect(text).toContain("came with an amount the bot cannot read");
    expect(text).toContain("bought $0.00");
    expect(text).not.toContain("$0.12");
    const logged = bot.logs.find(
      (l) =>
        l.msg === "unreadable elements left out of a marketplace answer" &&
        (l as { dropped?: Record<string, number> }).dropped?.["transaction.balance_offset"] !== undefined,
    );
    expect(logged).toBeDefined();
    expect(counted(await scrape(bot.app.http.url)) - counted(before)).toBeGreaterThanOrEqual(2);
  });

  it("GIVEN balance_offset sent as strings of cents WHEN alice lists /account transactions THEN each entry says its amount is unreadable and shows no amount", async () => {
    bot.sandbox.control.setDrift({ retypeFields: { balance_offset: "string" } });

    const text = textOf(await answer(bot.double.slash(alice, "account transactions")));

    expect(text).toContain("amount unreadable");
    expect(text).not.toMatch(/balance [-+]\$/);
    expect(text).not.toContain("$12.34");
  });
});

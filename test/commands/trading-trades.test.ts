// /trades end to end: accept and cancel from buttons (lists, views, alerts), Accept all, ownership.
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

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice", "bob"]));
});

afterAll(() => stopTradingBot(bot, market));

/** A buyer bought one of alice's items: a trade waiting for her to accept. */
const saleForAlice = () => bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
const stateOf = async (tradeId: string) => (await market.as(alice).getTrade(tradeId)).state;

function tradeAlert(tradeId: string, owner: BotUser) {
  return bot.double.postMessage(
    bot.double.channelId,
    renderAlert(
      { kind: "trade", tradeId, role: "seller", state: "queued", itemName: "Rifle | Sold (Field Worn)" },
      owner.id,
    ),
  );
}

describe("/trades", () => {
  it("GIVEN a sale waiting on alice WHEN she presses Accept on her trade list THEN the trade is accepted upstream", async () => {
    const sale = saleForAlice();
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    expect(isEphemeral(list)).toBe(true);
    expect(textOf(list)).toContain(sale.id);
    // A date, then the span: "accept by 25 November 22:40 (in 12 hours)", never "by in 12 hours".
    expect(textOf(list)).toMatch(/accept by <t:\d+:f> \(<t:\d+:R>\)/);
    expect(textOf(list)).not.toMatch(/by <t:\d+:R>/);
    expect(labels(list)).toContain("Accept #1");

    const accepted = await answer(bot.double.button(alice, buttonId(list, "Accept #1"), list));
    expect(textOf(accepted)).toContain("Accepted");
    expect(textOf(accepted)).toMatch(
      /Send the item transfer offer on the platform by <t:\d+:f> \(<t:\d+:R>\)/,
    );
    expect(labels(accepted)).toEqual(["Cancel trade"]);
    expect(await stateOf(sale.id)).toBe("pending");
  });

  it("GIVEN a trade alert WHEN alice presses Accept THEN the trade is accepted, as with /trades accept", async () => {
    const sale = saleForAlice();
    const alert = tradeAlert(sale.id, alice);
    const accepted = await answer(bot.double.button(alice, buttonId(alert, "Accept"), alert));
    expect(isEphemeral(accepted)).toBe(true);
    expect(textOf(accepted)).toContain("Accepted");
    expect(await stateOf(sale.id)).toBe("pending");

    const again = await answer(bot.double.slash(alice, "trades accept", { trade: sale.id }));
    expect(textOf(again)).toContain("already accepted");
  });

  it("GIVEN a trade alert WHEN alice presses Cancel trade THEN she is asked first and only the confirmation cancels", async () => {
    const sale = saleForAlice();
    const alert = tradeAlert(sale.id, alice);
    const cancelsBefore = hits(bot, "POST /trades/bulk/cancel");

    const prompt = await answer(bot.double.button(alice, buttonId(alert, "Cancel trade"), alert));
    expect(isEphemeral(prompt)).toBe(true);
    expect(textOf(prompt)).toContain("Cancel this trade?");
    expect(labels(prompt)).toEqual(["Cancel trade", "Keep trade"]);
    expect(await stateOf(sale.id)).toBe("queued");
    expect(hits(bot, "POST /trades/bulk/cancel")).toBe(cancelsBefore);

    const done = await answer(bot.double.button(alice, buttonId(prompt, "Cancel trade"), prompt));
    expect(textOf(done)).toContain("Cancelled");
    expect(componentsOf(done)).toEqual([]);
    expect(await stateOf(sale.id)).toBe("cancelled");
    expect(hits(bot, "POST /trades/bulk/cancel")).toBe(cancelsBefore + 1);
  });

  it("GIVEN the cancel question WHEN alice keeps the trade THEN nothing changes", async () => {
    const sale = saleForAlice();
    const prompt = await answer(bot.double.slash(alice, "trades cancel", { trade: sale.id }));
    const kept = await answer(bot.double.button(alice, buttonId(prompt, "Keep trade"), prompt));
    expect(textOf(kept)).toContain("not cancelled");
    expect(await stateOf(sale.id)).toBe("queued");
  });

  it("GIVEN several sales waiting WHEN alice presses Accept all THEN one bulk request accepts every one", async () => {
    const sales = [saleForAlice(), saleForAlice()];
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    const acceptAll = labels(list).find((l) => l.startsWith("Accept all"));
    expect(acceptAll).toBeDefined();
    const bulkBefore = hits(bot, "POST /trades/bulk/accept");

    const result = await answer(bot.double.button(alice, buttonId(list, acceptAll ?? ""), list));
    expect(textOf(result)).toMatch(/(\d+) of \1 trades accepted/);
    for (const sale of sales) {
      expect(textOf(result)).toContain(sale.id);
      expect(await stateOf(sale.id)).toBe("pending");
    }
    expect(hits(bot, "POST /trades/bulk/accept")).toBe(bulkBefore + 1);
    const after = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    expect(textOf(after)).toContain("No trades match");
  });

  it("GIVEN alice's trade alert WHEN bob presses Accept or Cancel trade THEN he is refused and nothing reaches the marketplace", async () => {
    const sale = saleForAlice();
    const alert = tradeAlert(sale.id, alice);
    const before = totalHits(bot);
    for (const label of ["Accept", "Cancel trade"]) {
      const refused = await answer(bot.double.button(bob, buttonId(alert, label), alert));
      expect(isEphemeral(refused)).toBe(true);
      expect(textOf(refused)).toContain("isn't yours");
    }
    expect(totalHits(bot)).toBe(before);
    expect(await stateOf(sale.id)).toBe("queued");
  });

  it("GIVEN a trade WHEN alice views it THEN she sees its deadline and buttons, never its trade token", async () => {
    const sale = saleForAlice();
    const upstream = await market.as(alice).getTrade(sale.id);
    const view = await answer(bot.double.slash(alice, "trades view", { trade: sale.id }));
    expect(isEphemeral(view)).toBe(true);
    expect(textOf(view)).toMatch(/Accept by\n<t:\d+:f> \(<t:\d+:R>\)/);
    expect(labels(view)).toEqual(["Accept", "Cancel trade"]);
    const raw = JSON.stringify(bot.double.message(view.id));
    expect(upstream.trade_token).toBeTruthy();
    expect(raw).not.toContain(String(upstream.trade_token));
    if (upstream.trade_url) expect(raw).not.toContain(upstream.trade_url);
  });

  it("GIVEN the trade list WHEN alice opens a trade from its menu THEN she sees that trade with its actions", async () => {
    const sale = saleForAlice();
    const list = await answer(bot.double.slash(alice, "trades list", {}));
    const menu = componentsOf(list).find((c) => c.type === 3);
    if (!menu) throw new Error("the list has no menu");
    const opened = await answer(bot.double.select(alice, menu.customId, [sale.id], list));
    expect(isEphemeral(opened)).toBe(true);
    expect(textOf(opened)).toContain(`Trade ${sale.id}`);
    expect(labels(opened)).toEqual(["Accept", "Cancel trade"]);
  });

  it.each(["abc", "-1", "1 2"])(
    "GIVEN the trade id %j WHEN alice views it THEN she is told why and the marketplace is not called",
    async (id) => {
      const before = totalHits(bot);
      const reply = await answer(bot.double.slash(alice, "trades view", { trade: id }));
      expect(textOf(reply)).toContain("trade ids are numbers");
      expect(totalHits(bot)).toBe(before);
    },
  );
});

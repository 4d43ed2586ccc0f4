// Automation keeps its word, end to end through Discord and the sandbox: it never does more than
// the user confirmed when they turned it on (a cap raised later does not widen an armed rule; a
// guard never bids against its own user), any stop (unlink, a refused key, another account, the
// Stop everything button) ends all of it at once and says what stopped, and nothing resumes on a
// new link until the user turns it on again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { answer, buttonId, hits, isEphemeral, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { guardsOf, orderOf, placeOrder } from "../guards/support.ts";
import { marketOf, type MarketView } from "../commands/trading-support.ts";
import { armLive as armLiveAs, deliverAll, feedOnce } from "./support.ts";

const BUY = "POST /listings/buy";
const PATCH_ORDER = "PATCH /buy-orders/{order_id}";
const ACCEPT = "POST /trades/{trade_id}/accept";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

const engine = () => alertEngineOf(bot);

const deliver = () => deliverAll(bot);
const feed = () => feedOnce(bot);
async function guardPass(): Promise<void> {
  await guardsOf(bot).runOnce();
  await deliver();
}
async function pollTrades(): Promise<void> {
  await engine().runTradesOnce();
  await deliver();
}

const dms = (user: BotUser): StoredMessage[] =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined);
const dmsAbout = (user: BotUser, text: string) => dms(user).filter((m) => textOf(m).includes(text));

async function settings(user: BotUser, opts: Record<string, string>): Promise<void> {
  expect(textOf(await answer(bot.double.slash(user, "account settings", opts)))).toContain("Settings saved");
}

const armLive = (user: BotUser, rule: string, maxBuys = 1) => armLiveAs(bot, user, rule, maxBuys);

async function guardOrder(user: BotUser, order: string, ceiling: string, step = "0.1"): Promise<void> {
  const set = await answer(bot.double.slash(user, "buyorder guard", { order, ceiling, step }));
  expect(textOf(set)).toContain("Guard on");
}

const priceOf = async (user: BotUser, orderId: string) => (await orderOf(market, user, orderId)).price;

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
  market = marketOf(bot);
  await guardsOf(bot).stop();
  await settings(alice, { per_purchase_cap: "100", daily_cap: "500" });
  await settings(bob, { per_purchase_cap: "100", daily_cap: "500" });
  await feed(); // the feed's mark: listings after it are new
});

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await market?.close();
  await bot?.stop();
  expect(errors).toEqual([]);
});

describe("guards never outbid their own user", () => {
  it("GIVEN a guarded $5.00 order, the same user's own $5.50 order and a rival at $5.20 WHEN the guard runs THEN it is raised to $5.30, one step over the rival, not over the user's own order", async () => {
    const item = uniqueItemName("own-order");
    const guarded = await placeOrder(bot, alice, { item, maxPrice: "5" });
    const own = await placeOrder(bot, alice, { item, maxPrice: "5.50" });
    await guardOrder(alice, guarded, "6");
    bot.sandbox.control.createRivalBuyOrder({ marketHashName: item, maxPrice: 520 });

    await guardPass();

    expect(await priceOf(alice, guarded)).toBe(530);
    expect(await priceOf(alice, own)).toBe(550);
    // Now above the rival: a second pass changes nothing.
    const patches = hits(bot, PATCH_ORDER);
    await guardPass();
    expect(hits(bot, PATCH_ORDER)).toBe(patches);
  });

  it("GIVEN two guarded orders of one user on one item and no other buyer WHEN the guards run five times THEN neither is raised", async () => {
    const item = uniqueItemName("leapfrog");
    const a = await placeOrder(bot, alice, { item, maxPrice: "5" });
    const b = await placeOrder(bot, alice, { item, maxPrice: "5.10" });
    await guardOrder(alice, a, "6");
    await guardOrder(alice, b, "6");
    const patches = hits(bot, PATCH_ORDER);

    for (let i = 0; i < 5; i++) await guardPass();

    expect(hits(bot, PATCH_ORDER)).toBe(patches);
    expect(await priceOf(alice, a)).toBe(500);
    expect(await priceOf(alice, b)).toBe(510);
  });
});

describe("an armed rule keeps the ceiling its confirmation showed", () => {
  it("GIVEN a rule without max_price armed live under a $10 per-purchase cap WHEN the cap is raised to $150 and a $145 listing matches THEN nothing is bought and the DM names the $10 ceiling confirmed, AND a $9 listing is still bought", async () => {
    const item = uniqueItemName("ceiling");
    await settings(alice, { per_purchase_cap: "10", daily_cap: "500" });
    const added = await answer(bot.double.slash(alice, "watch add", { name: "no max", item }));
    expect(textOf(added)).toContain("Watching: no max");
    const quote = await armLive(alice, "no max", 3);
    expect(quote).toContain("$10.00 (your per-purchase cap");

    await settings(alice, { per_purchase_cap: "150", daily_cap: "500" });
    const before = hits(bot, BUY);
    const dear = bot.sandbox.control.createListing({ market_hash_name: item, price: 14_500 });
    await feed();

    expect(hits(bot, BUY)).toBe(before);
    const refused = dmsAbout(alice, dear.id);
    expect(refused.map(textOf).join("\n")).toContain("above the $10.00 ceiling you confirmed");
    expect(await bot.db.prisma.purchase.count({ where: { subjectId: dear.id } })).toBe(0);

    const cheap = bot.sandbox.control.createListing({ market_hash_name: item, price: 900 });
    await feed();
    expect(hits(bot, BUY)).toBe(before + 1);
    expect(dmsAbout(alice, cheap.id).map(textOf).join("\n")).toContain("Bought");
    await answer(bot.double.slash(alice, "watch disarm", { rule: "all" }));
    await settings(alice, { per_purchase_cap: "100", daily_cap: "500" });
  });

  it("GIVEN a live rule armed for at most 1 buy of $12 WHEN its filters are widened behind its back THEN a listing outside the rule as confirmed is not bought", async () => {
    const item = uniqueItemName("widened");
    await answer(bot.double.slash(alice, "watch add", { name: "narrow", item, max_price: 12 }));
    await armLive(alice, "narrow", 1);
    // What an edit elsewhere could do: the rule's own filters now allow $40.
    const rule = await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name: "narrow" } });
    await bot.db.prisma.watchRule.update({
      where: { id: rule.id },
      data: { filters: { ...(rule.filters as Record<string, unknown>), max_price: 4_000 } },
    });
    const before = hits(bot, BUY);
    bot.sandbox.control.createListing({ market_hash_name: item, price: 3_000 });
    await feed();
    expect(hits(bot, BUY)).toBe(before);
    const armed = await bot.db.prisma.watchRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect(armed.armMode).toBeNull();
  });
});

describe("one listing, one buy", () => {
  it("GIVEN two overlapping rules of one user, both armed live WHEN one listing matches both THEN it is bought once and one outcome DM says so", async () => {
    const item = uniqueItemName("overlap");
    await answer(bot.double.slash(bob, "watch add", { name: "wide", item, max_price: 30 }));
    await answer(bot.double.slash(bob, "watch add", { name: "wider", item, max_price: 40 }));
    await armLive(bob, "wide", 2);
    await armLive(bob, "wider", 2);
    const before = hits(bot, BUY);

    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_500 });
    await feed();

    expect(hits(bot, BUY)).toBe(before + 1);
    expect(dmsAbout(bob, listing.id).filter((m) => textOf(m).includes("Bought"))).toHaveLength(1);
    expect(dmsAbout(bob, "Someone was faster").filter((m) => textOf(m).includes(listing.id))).toHaveLength(0);
    expect(await bot.db.prisma.purchase.count({ where: { subjectId: listing.id } })).toBe(1);
    // The rule that did not buy kept its buys: both can still act on the next listing.
    const rules = await bot.db.prisma.watchRule.findMany({ where: { name: { in: ["wide", "wider"] } } });
    expect(rules.map((r) => r.armBuys).sort()).toEqual([0, 1]);
    await answer(bot.double.slash(bob, "watch disarm", { rule: "all" }));
  });
});

describe("a stop ends every automatic action and nothing resumes by itself", () => {
  it("GIVEN a live-armed rule, a guard and auto-accept WHEN the user unlinks THEN the reply names all three as stopped, AND after a re-link a match is only alerted, a sale is not accepted and the guard does not raise", async () => {
    const item = uniqueItemName("unlink");
    await answer(bot.double.slash(alice, "watch add", { name: "unlinked", item, max_price: 30 }));
    await armLive(alice, "unlinked", 2);
    const order = await placeOrder(bot, alice, { item, maxPrice: "5" });
    await guardOrder(alice, order, "8");
    expect(textOf(await answer(bot.double.slash(alice, "trades autoaccept", { enabled: true })))).toContain(
      "Auto-accept is on",
    );

    const unlinked = await answer(bot.double.slash(alice, "account unlink"));
    const said = textOf(unlinked);
    expect(isEphemeral(unlinked)).toBe(true);
    // Earlier tests left alice other guards: every one of them is named as stopped too.
    expect(said).toMatch(/Automation stopped: \d+ armed rules? disarmed \([^)]*"unlinked"/);
    expect(said).toMatch(/\d+ guards? turned off/);
    expect(said).toContain("trade auto-accept turned off");

    await bot.link(alice);
    const before = { buys: hits(bot, BUY), patches: hits(bot, PATCH_ORDER), accepts: hits(bot, ACCEPT) };
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await feed();
    expect(hits(bot, BUY)).toBe(before.buys);
    expect(dmsAbout(alice, listing.id).map(textOf).join("\n")).toContain("New listing");

    bot.sandbox.control.createRivalBuyOrder({ marketHashName: item, maxPrice: 600 });
    await guardPass();
    expect(hits(bot, PATCH_ORDER)).toBe(before.patches);

    const sale = bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
    await pollTrades();
    expect(hits(bot, ACCEPT)).toBe(before.accepts);
    expect((await market.as(alice).getTrade(sale.id)).state).toBe("queued");

    const overview = textOf(await answer(bot.double.slash(alice, "automation")));
    expect(overview).toContain("Armed rules (snipe mode)");
    expect(overview).not.toContain("unlinked · live");
  });

  it("GIVEN live automation WHEN another marketplace account is linked over it THEN it stops and the link reply says so", async () => {
    const item = uniqueItemName("other-account");
    await answer(bot.double.slash(bob, "watch add", { name: "bob live", item, max_price: 30 }));
    await armLive(bob, "bob live");
    const other = bot.sandbox.control.createUser({ name: "bobtwo", balance: 100_000 });

    const linked = textOf(await bot.link(bob, other.apiKey));

    expect(linked).toContain("automation of the previous link was stopped");
    expect(linked).toContain('"bob live"');
    const before = hits(bot, BUY);
    bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await feed();
    expect(hits(bot, BUY)).toBe(before);
    await bot.link(bob); // back to bob's own account for the tests below
  });

  it("GIVEN a live-armed rule WHEN the marketplace refuses the key THEN the rule is disarmed and the key-refused DM says what stopped", async () => {
    const item = uniqueItemName("revoked");
    const user = bot.sandbox.control.createUser({ name: "carol", balance: 100_000 });
    await bot.link(alice, user.apiKey);
    await answer(bot.double.slash(alice, "watch add", { name: "revoked live", item, max_price: 30 }));
    await armLive(alice, "revoked live");
    bot.sandbox.control.revokeKey(user.apiKey);

    await pollTrades();

    const told = dmsAbout(alice, "Your API key was refused").map(textOf).join("\n");
    expect(told).toContain('Automation stopped: 1 armed rule disarmed ("revoked live")');
    const rule = await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name: "revoked live" } });
    expect(rule.armMode).toBeNull();
    await bot.link(alice);
  });
});

describe("/automation", () => {
  it("GIVEN an armed rule, a guard and auto-accept WHEN /automation runs THEN it shows each with what was confirmed, AND only its owner's confirmed Stop everything turns all off", async () => {
    const item = uniqueItemName("overview");
    await answer(bot.double.slash(bob, "watch add", { name: "shown", item, max_price: 40 }));
    await armLive(bob, "shown", 2);
    const order = await placeOrder(bot, bob, { item, maxPrice: "5" });
    await guardOrder(bob, order, "7.5");
    await answer(bot.double.slash(bob, "trades autoaccept", { enabled: true, min_price: "20" }));

    const shown = await answer(bot.double.slash(bob, "automation"));
    const text = textOf(shown);
    expect(isEphemeral(shown)).toBe(true);
    expect(text).toContain("ceiling $40.00");
    expect(text).toContain("may spend $80.00 in all, $80.00 left");
    expect(text).toContain("raised up to $7.50");
    expect(text).toContain("priced at least $20.00");

    // Alice pressing bob's button (copied onto a server message) is refused and changes nothing.
    const stopId = buttonId(shown, "Stop everything");
    const copied = bot.double.postMessage(bot.double.channelId, {
      content: "bob's automation, copied",
      components: [
        { type: 1, components: [{ type: 2, style: 4, label: "Stop everything", custom_id: stopId }] },
      ],
    });
    const intruder = await answer(bot.double.button(alice, stopId, copied));
    expect(textOf(intruder)).not.toContain("Stop everything?");

    const confirm = await answer(bot.double.button(bob, stopId, shown));
    expect(textOf(confirm)).toContain("Stop everything?");
    const done = await answer(bot.double.button(bob, buttonId(confirm, "Yes, stop everything"), confirm));
    expect(textOf(done)).toContain('Stopped: 1 armed rule disarmed ("shown")');
    expect(textOf(done)).toContain("1 guard turned off");
    expect(textOf(done)).toContain("trade auto-accept turned off");

    const before = hits(bot, BUY);
    bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await feed();
    expect(hits(bot, BUY)).toBe(before);
    const after = textOf(await answer(bot.double.slash(bob, "automation")));
    expect(after).toMatch(/Trade auto-accept\s+Off\./);
    expect(after).not.toContain("Stop everything?");
  });
});

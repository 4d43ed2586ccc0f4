// Money safety end to end through Discord: a purchase is sent at most once per confirmation, never
// retried blindly after a lost answer, bounded by the spend caps under concurrent clicks, and
// refused when the price moved. Real discord.js client, Discord double, sandbox, Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../src/market/client.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import type { InteractionHandle, StoredMessage } from "../support/discord.ts";
import { reliabilityTally } from "./report.ts";
import { ANSWER_DEADLINE_MS, answer, buttonId, isEphemeral, routeHits, textOf, until } from "./support.ts";

const BUY = "POST /listings/buy";
const READ = "GET /listings/{listing_id}";
/** The market client gives up on an unanswered request after 10 s; the answer follows. */
const LOST_ANSWER_MS = 45_000;

const tally = reliabilityTally("money", "Money safety (item 5)", import.meta.url);

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let direct: MarketClient;

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
  direct = createMarketClient({ baseUrl: bot.sandbox.baseUrl, logger: createLogger({ level: "silent" }) });
});

afterAll(async () => {
  await direct?.close();
  await bot?.stop();
});

const balanceOf = (u: BotUser) => bot.sandbox.control.balance(u.demo.platformId).balance;

async function quote(user: BotUser, listingId: string): Promise<{ message: StoredMessage; confirm: string }> {
  const message = await answer(bot.double.slash(user, "buy", { listing: listingId }));
  expect(isEphemeral(message)).toBe(true);
  return { message, confirm: buttonId(message, "Confirm purchase") };
}

const confirm = (user: BotUser, q: { message: StoredMessage; confirm: string }): InteractionHandle =>
  bot.double.button(user, q.confirm, q.message);

async function purchasesOf(user: BotUser, listingId: string) {
  return bot.db.prisma.purchase.findMany({
    where: { user: { discordId: user.id }, listingIds: { has: listingId } },
  });
}

describe("a purchase whose answer is lost", () => {
  it(
    "GIVEN the purchase request hangs WHEN alice confirms two quotes THEN each is sent once, the listing is re-read after the time-out, she is told what the re-read found, and pressing Confirm again sends nothing",
    async () => {
      const stays = bot.sandbox.control.createListing({ type: "buy_now", price: 1111 });
      const goes = bot.sandbox.control.createListing({ type: "buy_now", price: 2222 });
      const qStays = await quote(alice, stays.id);
      const qGoes = await quote(alice, goes.id);
      const before = balanceOf(alice);
      const buys = routeHits(bot, BUY);
      const reads = routeHits(bot, READ);
      bot.sandbox.control.injectFault({ method: "POST", path: "/listings/buy", kind: "hang", times: 2 });
      try {
        const hStays = confirm(alice, qStays);
        const hGoes = confirm(alice, qGoes);
        // Both purchase requests are now in the air and will never be answered.
        await until(() => Promise.resolve(routeHits(bot, BUY) === buys + 2), "both purchase requests");
        // Meanwhile someone else buys the second listing.
        bot.sandbox.control.sellToBuyer(goes.id);

        const [unknown, lost] = await Promise.all([
          answer(hStays, LOST_ANSWER_MS),
          answer(hGoes, LOST_ANSWER_MS),
        ]);
        expect(isEphemeral(unknown)).toBe(true);
        expect(textOf(unknown)).toContain("could not confirm whether the purchase went through");
        expect(textOf(unknown)).toContain("check /trades list before trying again");
        expect(isEphemeral(lost)).toBe(true);
        // Sold, but not (yet) with a trade of hers: that is not proof it went to someone else.
        expect(textOf(lost)).toContain("the listing sold and your trades do not show it yet");
      } finally {
        bot.sandbox.control.clearFaults();
      }
      // One request per confirmation, never repeated; each confirmation read the listing before
      // buying and once more after the time-out.
      expect(routeHits(bot, BUY)).toBe(buys + 2);
      expect(routeHits(bot, READ)).toBe(reads + 4);
      expect(balanceOf(alice)).toBe(before);
      expect((await purchasesOf(alice, stays.id)).map((p) => p.status)).toEqual(["unknown"]);
      expect((await purchasesOf(alice, goes.id)).map((p) => p.status)).toEqual(["unknown"]);

      // The listing whose outcome is unknown is still for sale: a second press must not buy it.
      const again = await answer(confirm(alice, qStays));
      expect(textOf(again)).toContain("outcome could not be confirmed; check /trades list");
      const againLost = await answer(confirm(alice, qGoes));
      expect(textOf(againLost)).toContain("outcome could not be confirmed; check /trades list");
      expect(routeHits(bot, BUY)).toBe(buys + 2);
      expect(balanceOf(alice)).toBe(before);
      tally.add("money scenarios", 2);
      tally.add("confirmations whose purchase answer was lost", 2);
      tally.add("purchase requests those confirmations sent", routeHits(bot, BUY) - buys);
    },
    LOST_ANSWER_MS + 30_000,
  );

  it("GIVEN the purchase answers 502 WHEN alice confirms THEN the request is not repeated, the listing is re-read, and she is told the outcome is unconfirmed", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 1313 });
    const q = await quote(alice, listing.id);
    const buys = routeHits(bot, BUY);
    const reads = routeHits(bot, READ);
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "status",
      status: 502,
      times: 1,
    });
    try {
      const told = await answer(confirm(alice, q));
      expect(isEphemeral(told)).toBe(true);
      expect(textOf(told)).toContain("could not confirm whether the purchase went through");
    } finally {
      bot.sandbox.control.clearFaults();
    }
    expect(routeHits(bot, BUY)).toBe(buys + 1);
    expect(routeHits(bot, READ)).toBe(reads + 2);
    expect((await purchasesOf(alice, listing.id)).map((p) => p.status)).toEqual(["unknown"]);
    tally.add("money scenarios");
  });
});

describe("double clicks", () => {
  it("GIVEN one quote WHEN Confirm is pressed five times at once THEN one purchase request, one charge, and every press is answered", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 777 });
    const q = await quote(alice, listing.id);
    const before = balanceOf(alice);
    const buys = routeHits(bot, BUY);
    // A slow purchase keeps the first press in flight while the others arrive.
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "latency",
      ms: 500,
      times: 5,
    });
    let handles: InteractionHandle[] = [];
    try {
      handles = Array.from({ length: 5 }, () => confirm(alice, q));
      // The quote becomes the receipt once; the four other presses each get a private refusal.
      await bot.double.waitFor(
        () =>
          textOf(bot.double.message(q.message.id) ?? q.message).includes("Bought") &&
          handles.every((h) => h.record.responses.length > 0) &&
          handles.reduce((n, h) => n + h.followUps().length, 0) >= 4,
        ANSWER_DEADLINE_MS,
        "one purchase and four refusals",
      );
    } finally {
      bot.sandbox.control.clearFaults();
    }
    expect(routeHits(bot, BUY)).toBe(buys + 1);
    expect(balanceOf(alice)).toBe(before - 777);
    expect((await direct.forKey(alice.demo.apiKey).getListing(listing.id)).state).toBe("sold");
    const refusals = handles.flatMap((h) => h.followUps());
    expect(refusals).toHaveLength(4);
    for (const r of refusals) {
      expect(isEphemeral(r)).toBe(true);
      expect(textOf(r)).toMatch(/already being processed|Already bought|already been sold/);
    }
    for (const h of handles) expect(h.record.responses).toHaveLength(1);
    expect((await purchasesOf(alice, listing.id)).map((p) => p.status)).toEqual(["succeeded"]);
    tally.add("money scenarios");
    tally.add("concurrent presses of one Confirm", handles.length);
  });
});

describe("spend caps under concurrent confirmations", () => {
  it("GIVEN eight quotes taken before caps were set WHEN all eight are confirmed at once THEN the per-purchase cap refuses the dear ones, the daily cap stops the rest at $24 of $25, and only allowed purchases reach the marketplace", async () => {
    const cheap = Array.from({ length: 6 }, () =>
      bot.sandbox.control.createListing({ type: "buy_now", price: 600 }),
    );
    const dear = Array.from({ length: 2 }, () =>
      bot.sandbox.control.createListing({ type: "buy_now", price: 1200 }),
    );
    const quotes = [];
    for (const l of [...cheap, ...dear]) quotes.push({ listing: l, q: await quote(bob, l.id) });
    const capsSet = await answer(
      bot.double.slash(bob, "account settings", { per_purchase_cap: "10", daily_cap: "25" }),
    );
    expect(textOf(capsSet)).toContain("$25.00");
    const before = balanceOf(bob);
    const buys = routeHits(bot, BUY);
    try {
      const handles = quotes.map(({ q }) => confirm(bob, q));
      const texts = (await Promise.all(handles.map((h) => answer(h)))).map(textOf);

      const bought = texts.filter((t) => t.includes("Bought"));
      const perPurchase = texts.filter((t) => t.includes("above your per-purchase cap of $10.00"));
      const daily = texts.filter((t) => t.includes("of your $25.00 daily cap is left"));
      expect({ bought: bought.length, perPurchase: perPurchase.length, daily: daily.length }).toEqual({
        bought: 4,
        perPurchase: 2,
        daily: 2,
      });
      // The two dear quotes are the ones the per-purchase cap refused.
      for (const [i, { listing }] of quotes.entries()) {
        if (listing.price === 1200) expect(texts[i]).toContain("per-purchase cap");
      }
      const spent = before - balanceOf(bob);
      expect(spent).toBe(2400);
      expect(spent).toBeLessThanOrEqual(2500);
      expect(routeHits(bot, BUY)).toBe(buys + 4);
      const states = await Promise.all(
        quotes.map(
          async ({ listing }) => (await direct.forKey(bob.demo.apiKey).getListing(listing.id)).state,
        ),
      );
      expect(states.filter((s) => s === "sold")).toHaveLength(4);
      tally.add("money scenarios");
      tally.add("concurrent confirmations against caps", handles.length);
      tally.set("cap overshoot (cents)", Math.max(0, spent - 2500));
    } finally {
      await answer(bot.double.slash(bob, "account settings", { per_purchase_cap: "off", daily_cap: "off" }));
    }
  });
});

describe("a price that moved", () => {
  it("GIVEN a quote WHEN the seller reprices before Confirm THEN nothing is bought and no purchase request is sent", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 2000,
      sellerPlatformId: bob.demo.platformId,
    });
    const q = await quote(alice, listing.id);
    await direct.forKey(bob.demo.apiKey).updateListing(listing.id, { price: 2500 });
    const before = balanceOf(alice);
    const buys = routeHits(bot, BUY);

    const refused = await answer(confirm(alice, q));
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("The price changed from $20.00 to $25.00; nothing was bought.");
    expect(routeHits(bot, BUY)).toBe(buys);
    expect(balanceOf(alice)).toBe(before);
    tally.add("money scenarios");
  });

  it("GIVEN a confirmation in flight WHEN the seller reprices after the bot's re-read THEN the marketplace refuses the stale total, nothing is bought, and the new price is named", async () => {
    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 3000,
      sellerPlatformId: bob.demo.platformId,
    });
    const q = await quote(alice, listing.id);
    const before = balanceOf(alice);
    const buys = routeHits(bot, BUY);
    // The purchase request waits 3 s at the marketplace before it is processed.
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "latency",
      ms: 3000,
      times: 1,
    });
    try {
      const h = confirm(alice, q);
      // The pending purchase row is written after the re-read, just before the request leaves.
      await until(
        async () => (await purchasesOf(alice, listing.id)).some((p) => p.status === "pending"),
        "the reserved purchase",
      );
      await direct.forKey(bob.demo.apiKey).updateListing(listing.id, { price: 3500 });

      const refused = await answer(h);
      expect(isEphemeral(refused)).toBe(true);
      expect(textOf(refused)).toContain("The price changed from $30.00 to $35.00; nothing was bought.");
    } finally {
      bot.sandbox.control.clearFaults();
    }
    expect(routeHits(bot, BUY)).toBe(buys + 1);
    expect(balanceOf(alice)).toBe(before);
    const now = await direct.forKey(alice.demo.apiKey).getListing(listing.id);
    expect({ state: now.state, price: now.price }).toEqual({ state: "listed", price: 3500 });
    expect((await purchasesOf(alice, listing.id)).map((p) => p.status)).toEqual(["failed"]);
    tally.add("money scenarios");
  });
});

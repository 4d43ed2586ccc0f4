// Autocomplete and item checks through the Discord double: item names from the one catalog,
// unknown names refused with close ones, the README's /sell list and example item working as
// typed, and the user's own assets, orders, trades and auctions offered for id options.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ASSET_IDS, EXAMPLE_ITEM } from "../../src/sandbox/index.ts";
import { HOUR } from "../../src/sandbox/state/index.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import { buyAndFindTrade } from "../support/purchase.ts";
import {
  answer,
  buttonId,
  isEphemeral,
  startTradingBot,
  stopTradingBot,
  textOf,
  totalHits,
  type MarketView,
} from "./trading-support.ts";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

/** mossy_trader, a seeded seller who accepts trades a few minutes after a sale. */
const ACCEPTING_SELLER = "42420000000000201";

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

interface ChoiceJson {
  name: string;
  value: string | number;
}

async function suggest(
  user: BotUser,
  path: string,
  options: Record<string, string | number>,
  focused: string,
): Promise<ChoiceJson[]> {
  const res = await bot.double.autocomplete(user, path, options, focused).firstResponse();
  expect(res.type).toBe(8);
  return (res.data?.choices ?? []) as ChoiceJson[];
}

/** Discord's limits on choices: at most 25, names and values of at most 100 characters. */
function withinDiscordLimits(choices: readonly ChoiceJson[]): void {
  expect(choices.length).toBeLessThanOrEqual(25);
  for (const c of choices) {
    expect(c.name.length).toBeGreaterThan(0);
    expect(c.name.length).toBeLessThanOrEqual(100);
    expect(String(c.value).length).toBeLessThanOrEqual(100);
  }
}

describe("item names", () => {
  it("GIVEN the README's example item WHEN part of its name is typed into /buyorder create THEN it is suggested, and /search finds it under $120", async () => {
    const choices = await suggest(
      alice,
      "buyorder create",
      { item: "ember tide prist", max_price: "95", quantity: 2 },
      "item",
    );
    withinDiscordLimits(choices);
    expect(choices.map((c) => c.value)).toContain(EXAMPLE_ITEM);

    const found = await answer(
      bot.double.slash(alice, "search", { item: EXAMPLE_ITEM, max_price: "120", max_float: "0.07" }),
    );
    expect(textOf(found)).toContain(EXAMPLE_ITEM);
    expect(textOf(found)).not.toContain("No listings");
  });

  it("GIVEN a catalog name in other letter case WHEN alice creates a buy order THEN it is accepted under the market's spelling", async () => {
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: EXAMPLE_ITEM.toLowerCase(),
        max_price: "95",
        quantity: 2,
      }),
    );
    expect(isEphemeral(confirmation)).toBe(true);
    expect(textOf(confirmation)).toContain(EXAMPLE_ITEM);
    expect(buttonId(confirmation, "Place order")).toBeTruthy();
  });

  it("GIVEN a name a letter off a known item WHEN alice creates a buy order THEN she is told privately, with close names, and no order exists", async () => {
    const before = (await market.as(alice).getMyBuyOrders({ limit: 100 })).orders.length;
    const drafts = await bot.db.prisma.draft.count();
    const reply = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: "Falcon Rifle | Ember Tid (Pristine)",
        max_price: "95",
        quantity: 1,
      }),
    );
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("no listing or sale has the name");
    expect(textOf(reply)).toContain(`Did you mean **${EXAMPLE_ITEM}**`);
    expect((await market.as(alice).getMyBuyOrders({ limit: 100 })).orders.length).toBe(before);
    expect(await bot.db.prisma.draft.count()).toBe(drafts);
  });

  it("GIVEN a name no listing or sale has yet (a new release) WHEN alice creates a buy order THEN the confirmation asks to place it anyway, AND Place order places it on the marketplace", async () => {
    const name = "Night Lance | Ærøskøbing 新しい (Factory New)";
    const before = (await market.as(alice).getMyBuyOrders({ limit: 100 })).orders.length;
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", { item: name, max_price: "12", quantity: 1 }),
    );
    expect(isEphemeral(confirmation)).toBe(true);
    expect(textOf(confirmation)).toContain("No listing or sale has this name yet; place the order anyway?");
    expect(textOf(confirmation)).not.toContain("Did you mean");

    const placed = await answer(
      bot.double.button(alice, buttonId(confirmation, "Place order"), confirmation),
    );
    expect(textOf(placed)).toContain("Buy order created");
    const orders = (await market.as(alice).getMyBuyOrders({ limit: 100 })).orders;
    expect(orders).toHaveLength(before + 1);
    expect(orders.map((o) => o.market_hash_name)).toContain(name);
  });

  it("GIVEN a name outside the catalog that the market lists WHEN alice creates a buy order THEN it is accepted", async () => {
    const listed = bot.sandbox.control.createListing({
      market_hash_name: "Odd Blaster | Test Pattern (Field Worn)",
    });
    const before = totalHits(bot);
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: listed.item.market_hash_name,
        max_price: "5",
        quantity: 1,
      }),
    );
    expect(textOf(confirmation)).toContain("Odd Blaster | Test Pattern (Field Worn)");
    expect(buttonId(confirmation, "Place order")).toBeTruthy();
    // Looked up on the market once, since no catalog or recent name matched.
    expect(totalHits(bot)).toBeGreaterThan(before);
  });
});

describe("assets for /sell list", () => {
  it("GIVEN the README's two /sell list examples WHEN alice runs them as written THEN both her items are listed, the second as a 3-day auction", async () => {
    const readme = await readFile(path.join(REPO_ROOT, "README.md"), "utf8");
    expect(readme).toContain("`/sell list asset:31337 price:120`");
    expect(readme).toContain("`/sell list asset:31347 price:50 type:Auction duration_days:3 days`");
    expect(readme).toContain(`/search item:${EXAMPLE_ITEM} max_price:120`);
    expect(DEMO_ASSET_IDS.alice).toEqual(["31337", "31347"]);

    const listed = await answer(bot.double.slash(alice, "sell list", { asset: "31337", price: "120" }));
    expect(isEphemeral(listed)).toBe(true);
    expect(textOf(listed)).toContain(EXAMPLE_ITEM);
    expect(textOf(listed)).toContain("$120.00");
    const auction = await answer(
      bot.double.slash(alice, "sell list", {
        asset: "31347",
        price: "50",
        type: "auction",
        duration_days: 3,
      }),
    );
    expect(textOf(auction)).toContain(EXAMPLE_ITEM);
    expect(textOf(auction)).toMatch(/auction/i);
  });

  it("GIVEN alice bought an item and the trade was verified WHEN she types into /sell list asset THEN it is suggested, and listing the suggestion works", async () => {
    const listing = bot.sandbox.control.createListing({ price: 640, sellerPlatformId: ACCEPTING_SELLER });
    await market.as(alice).buyListings({ contract_ids: [listing.id], total_price: 640 });
    bot.sandbox.control.advanceClock(2 * HOUR);

    const choices = await suggest(alice, "sell list", { asset: "", price: "9" }, "asset");
    withinDiscordLimits(choices);
    const mine = choices.find((c) => c.value === listing.item.asset_id);
    expect(mine?.name).toContain(listing.item.market_hash_name);
    expect(mine?.name).toContain(`asset ${listing.item.asset_id}`);

    const relisted = await answer(
      bot.double.slash(alice, "sell list", { asset: String(mine?.value), price: "9" }),
    );
    expect(textOf(relisted)).toContain(listing.item.market_hash_name);
    expect(textOf(relisted)).toContain("$9.00");
  });

  it("GIVEN bob never linked a key WHEN he asks for asset suggestions THEN he gets none, without an error", async () => {
    const choices = await suggest(bob, "sell list", { asset: "", price: "9" }, "asset");
    expect(choices).toEqual([]);
    expect(bot.errorLogs()).toEqual([]);
  });
});

describe("ids of the user's own things", () => {
  it("GIVEN alice has a buy order WHEN she types into /buyorder edit order THEN it is offered with its item, price and quantity", async () => {
    const order = await market.as(alice).createBuyOrder({
      market_hash_name: "Warden Carbine | Copper Bloom (Field Worn)",
      max_price: 777,
      quantity: 3,
    });
    const choices = await waitForChoices(alice, "buyorder edit", { order: "copper" }, "order");
    withinDiscordLimits(choices);
    expect(choices).toContainEqual({
      name: `Warden Carbine | Copper Bloom (Field Worn) · $7.77 × 3 · ${order.id}`,
      value: order.id,
    });
    expect(choices.every((c) => c.name.includes("Copper Bloom"))).toBe(true);

    // An order placed through the bot shows at once: acting drops the user's cached lists.
    const confirmation = await answer(
      bot.double.slash(alice, "buyorder create", {
        item: "Warden Carbine | Copper Bloom (Pristine)",
        max_price: "8.88",
        quantity: 1,
      }),
    );
    const placed = await answer(
      bot.double.button(alice, buttonId(confirmation, "Place order"), confirmation),
    );
    expect(textOf(placed)).toContain("Buy order created");
    const started = Date.now();
    const again = await waitForChoices(alice, "buyorder cancel", { order: "copper" }, "order", (c) =>
      c.some((x) => x.name.startsWith("Warden Carbine | Copper Bloom (Pristine) · $8.88 × 1")),
    );
    expect(again.some((x) => x.name.startsWith("Warden Carbine | Copper Bloom (Pristine) · $8.88 × 1"))).toBe(
      true,
    );
    // Well within the 20 s the list is otherwise kept.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("GIVEN alice bought a listing still waiting on its seller WHEN she types into /trades cancel trade THEN the trade is offered with item, price and state", async () => {
    const listing = bot.sandbox.control.createListing({ price: 1234, sellerPlatformId: ACCEPTING_SELLER });
    const trade = await buyAndFindTrade(market.as(alice), listing.id, 1234);
    const choices = await waitForChoices(alice, "trades cancel", { trade: "" }, "trade");
    withinDiscordLimits(choices);
    const offered = choices.find((c) => c.value === trade?.id);
    expect(offered?.name).toBe(`Buying ${listing.item.market_hash_name} · $12.34 · queued · ${trade?.id}`);
    // Verified trades cannot be cancelled: not offered.
    const verified = choices.filter((c) => c.name.includes("· verified ·"));
    expect(verified).toEqual([]);
  });

  it("GIVEN alice bid on an auction through the bot WHEN she types into /bid listing THEN her auction comes first with her ceiling", async () => {
    const auction = bot.sandbox.control.createListing({ type: "auction", price: 500 });
    const bid = await answer(bot.double.slash(alice, "bid", { listing: auction.id, max_price: "7" }));
    expect(textOf(bid)).not.toContain("could not");
    const choices = await waitForChoices(alice, "bid", { listing: "", max_price: "8" }, "listing");
    withinDiscordLimits(choices);
    expect(choices[0]?.value).toBe(auction.id);
    expect(choices[0]?.name).toContain(auction.item.market_hash_name);
    expect(choices[0]?.name).toContain("your ceiling $7.00");
    expect(choices.length).toBeGreaterThan(1);
  });

  it("GIVEN the marketplace answers trades slowly WHEN alice asks for trade suggestions THEN she gets an empty answer in time, and the list on a later keystroke", async () => {
    bot.sandbox.control.injectFault({ path: "/me/trades", kind: "latency", ms: 2_500 });
    try {
      const started = Date.now();
      const res = await bot.double.autocomplete(alice, "trades view", { trade: "" }, "trade").firstResponse();
      expect(res.type).toBe(8);
      expect(res.data?.choices).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(bot.logs.filter((l) => l.msg.includes("autocomplete ran out of time"))).toEqual([]);
      // The read carried on: a later keystroke is answered from it.
      const later = await waitForChoices(alice, "trades view", { trade: "" }, "trade");
      expect(later.length).toBeGreaterThan(0);
    } finally {
      bot.sandbox.control.clearFaults();
    }
  });
});

/**
 * Asks again until choices come (bounded: 10 s): the first keystroke may answer empty while the
 * user's list is read. Each test reads a list of its own kind first, so none is stale.
 */
async function waitForChoices(
  user: BotUser,
  path: string,
  options: Record<string, string>,
  focused: string,
  done: (choices: ChoiceJson[]) => boolean = (c) => c.length > 0,
): Promise<ChoiceJson[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const choices = await suggest(user, path, options, focused);
    if (done(choices) || Date.now() > deadline) return choices;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

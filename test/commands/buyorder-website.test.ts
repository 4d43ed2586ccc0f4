// /buyorder with orders made on the marketplace's website, end to end: "advanced" orders carry a
// filter expression and no item name. Alice sees them, reprices them and cancels them; their
// expression is shown as is and only the website edits it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADVANCED_ORDER } from "../../src/discord/render/buyOrders.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  hits,
  isEphemeral,
  labels,
  textOf,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

const PATCH = "PATCH /buy-orders/{order_id}";

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

/** A listing, and an order alice made for its item on the website: $10 each, 3 wanted, float < 0.07. */
function websiteOrder() {
  const listing = bot.sandbox.control.createListing({ price: 1_500, float_value: 0.03 });
  const order = bot.sandbox.control.createWebsiteBuyOrder({
    platformId: alice.demo.platformId,
    marketHashName: listing.item.market_hash_name,
    maxPrice: 1_000,
    quantity: 3,
    maxFloat: 0.07,
  });
  const expression = order.expression;
  if (expression === undefined) throw new Error("the sandbox made no advanced order");
  return { listing, orderId: order.id, expression };
}

async function upstream(orderId: string) {
  const page = await market.as(alice).getMyBuyOrders({ limit: 100 });
  return page.orders.find((o) => o.id === orderId);
}

describe("/buyorder with orders made on the website", () => {
  it("GIVEN an advanced order WHEN alice lists her buy orders THEN she sees it labelled, with its expression as is", async () => {
    const { orderId, expression } = websiteOrder();

    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));

    expect(isEphemeral(listed)).toBe(true);
    const line = textOf(listed)
      .split("\n")
      .find((l) => l.includes(`\`${orderId}\``));
    expect(line).toContain(`${ADVANCED_ORDER} \`${expression}\``);
    expect(line).toContain("$10.00");
    expect(line).toContain("0/3 bought");
  });

  it("GIVEN an advanced order WHEN alice lowers its price THEN it is changed at once and keeps its expression", async () => {
    const { orderId, expression } = websiteOrder();

    const edited = await answer(bot.double.slash(alice, "buyorder edit", { order: orderId, max_price: "8" }));

    expect(isEphemeral(edited)).toBe(true);
    expect(textOf(edited)).toContain(`Buy order updated: ${ADVANCED_ORDER}`);
    expect(textOf(edited)).toContain(`\`${expression}\``);
    expect(textOf(edited)).toContain("only be edited on the website");
    expect(await upstream(orderId)).toMatchObject({ price: 800, qty: 3, expression });
  });

  it("GIVEN an advanced order WHEN alice raises its quantity and confirms THEN the confirmation names the expression and the order grows", async () => {
    const { orderId, expression } = websiteOrder();

    const confirm = await answer(bot.double.slash(alice, "buyorder edit", { order: orderId, quantity: 5 }));
    expect(textOf(confirm)).toContain(`${ADVANCED_ORDER} \`${expression}\``);
    expect(labels(confirm)).toEqual(["Save changes", "Cancel"]);

    const done = await answer(bot.double.button(alice, buttonId(confirm, "Save changes"), confirm));
    expect(textOf(done)).toContain(`Buy order updated: ${ADVANCED_ORDER}`);
    expect(await upstream(orderId)).toMatchObject({ price: 1_000, qty: 5, expression });
  });

  it("GIVEN an advanced order WHEN alice tries to change a float bound THEN she is told only the website edits its expression and nothing is sent", async () => {
    const { orderId, expression } = websiteOrder();
    const patches = hits(bot, PATCH);

    const refused = await answer(
      bot.double.slash(alice, "buyorder edit", { order: orderId, max_price: "9", max_float: "0.05" }),
    );

    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("can only be edited on the website");
    expect(textOf(refused)).toContain("max_price");
    expect(hits(bot, PATCH)).toBe(patches);
    expect(await upstream(orderId)).toMatchObject({ price: 1_000, qty: 3, expression });
  });

  it("GIVEN an advanced order WHEN alice checks a listing it would buy THEN the match shows the expression", async () => {
    const { listing, expression } = websiteOrder();

    const matches = await answer(bot.double.slash(alice, "buyorder matches", { listing: listing.id }));

    expect(textOf(matches)).toContain(`**$10.00** × 3 · ${ADVANCED_ORDER} \`${expression}\``);
  });

  it("GIVEN an advanced order WHEN alice cancels it THEN it is gone from the marketplace and from her list", async () => {
    const { orderId } = websiteOrder();

    const cancelled = await answer(bot.double.slash(alice, "buyorder cancel", { order: orderId }));

    expect(textOf(cancelled)).toContain(`Buy order \`${orderId}\` cancelled`);
    expect(await upstream(orderId)).toBeUndefined();
    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    expect(textOf(listed)).not.toContain(`\`${orderId}\``);
  });
});

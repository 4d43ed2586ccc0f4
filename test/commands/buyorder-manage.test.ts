// /buyorder list's controls end to end: an order is chosen from the list's menu, edited through its
// form and cancelled with its button, with no order id typed by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bot, BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  componentsOf,
  labels,
  textOf,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

// A name from the sandbox catalog: /buyorder create refuses names that are no item.
const ITEM = "Falcon Rifle | Ember Tide (Field Worn)";
const STRING_SELECT = 3;

async function sandboxOrder(orderId: string) {
  const page = await market.as(alice).getMyBuyOrders({ limit: 100 });
  return page.orders.find((o) => o.id === orderId);
}

async function createOrder(maxPrice: string, quantity: number): Promise<string> {
  const confirmation = await answer(
    bot.double.slash(alice, "buyorder create", { item: ITEM, max_price: maxPrice, quantity }),
  );
  const created = await answer(bot.double.button(alice, buttonId(confirmation, "Place order"), confirmation));
  const id = /Buy order (\d+)/.exec(created.embeds[0]?.footer?.text ?? "")?.[1];
  if (!id) throw new Error(`no order id in: ${textOf(created)}`);
  return id;
}

describe("/buyorder list's order controls", () => {
  it("GIVEN two open orders WHEN alice lists them THEN a menu offers each order, and no Edit or Cancel button shows before one is chosen", async () => {
    const first = await createOrder("5", 2);
    const second = await createOrder("6", 1);
    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    const menu = componentsOf(listed).find((c) => c.type === STRING_SELECT);
    expect(menu).toBeDefined();
    const options = JSON.stringify(listed.components);
    expect(options).toContain(`order ${first}`);
    expect(options).toContain(`order ${second}`);
    expect(labels(listed)).not.toContain("Edit order");
    expect(labels(listed)).not.toContain("Cancel order");
  });

  it("GIVEN an order chosen in the list's menu WHEN Edit order's form lowers its price THEN the marketplace has the new price and the quantity stays", async () => {
    const orderId = await createOrder("8", 3);
    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    const menu = componentsOf(listed).find((c) => c.type === STRING_SELECT);
    const chosen = await answer(bot.double.select(alice, menu?.customId ?? "", [orderId], listed));
    expect(labels(chosen)).toEqual(expect.arrayContaining(["Edit order", "Cancel order"]));

    const opened = await bot.double.button(alice, buttonId(chosen, "Edit order"), chosen).firstResponse();
    expect(opened.type).toBe(9);
    const edited = await answer(
      bot.double.modalSubmit(alice, String(opened.data?.custom_id), { max_price: "7.25", quantity: "" }),
    );
    expect(textOf(edited)).toContain("Buy order updated");
    const order = await sandboxOrder(orderId);
    expect(order?.price).toBe(725);
    expect(order?.qty).toBe(3);
  });

  it("GIVEN an order chosen in the list's menu WHEN Cancel order is pressed THEN it is cancelled and the list no longer shows it", async () => {
    const orderId = await createOrder("4", 1);
    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    const menu = componentsOf(listed).find((c) => c.type === STRING_SELECT);
    const chosen = await answer(bot.double.select(alice, menu?.customId ?? "", [orderId], listed));
    const after = await answer(bot.double.button(alice, buttonId(chosen, "Cancel order"), chosen));
    expect(textOf(after)).toContain(`Buy order \`${orderId}\` cancelled`);
    expect(await sandboxOrder(orderId)).toBeUndefined();
    expect(JSON.stringify(after.components)).not.toContain(`order ${orderId}`);
  });

  it("GIVEN a form with a quantity that is no number WHEN submitted THEN alice is told which field and the order is unchanged", async () => {
    const orderId = await createOrder("3", 2);
    const listed = await answer(bot.double.slash(alice, "buyorder list", {}));
    const menu = componentsOf(listed).find((c) => c.type === STRING_SELECT);
    const chosen = await answer(bot.double.select(alice, menu?.customId ?? "", [orderId], listed));
    const opened = await bot.double.button(alice, buttonId(chosen, "Edit order"), chosen).firstResponse();
    const reply = await answer(
      bot.double.modalSubmit(alice, String(opened.data?.custom_id), { max_price: "", quantity: "lots" }),
    );
    expect(textOf(reply)).toContain("`quantity`");
    const order = await sandboxOrder(orderId);
    expect(order?.price).toBe(300);
    expect(order?.qty).toBe(2);
  });
});

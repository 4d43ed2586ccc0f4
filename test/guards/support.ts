// Shared setup of the guard suites: a bot whose clock the test moves (the daily limit and the
// digest period are about time), the alert engine and the guards' own loop stopped so each pass
// is run by the test, and helpers to read what the user was told.
import { expect } from "vitest";
import type { GuardService } from "../../src/background/guards.ts";
import type { BuyOrder } from "../../src/market/schemas.ts";
import type { StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { answer, buttonId, marketOf, textOf, type MarketView } from "../commands/trading-support.ts";

export interface GuardSuite {
  bot: Bot;
  market: MarketView;
  clock: { at: number; advance(ms: number): void };
  /** One guard pass (every active guard, then the due digests), its DMs delivered. */
  pass(): Promise<void>;
  /** Bot DMs to the user that were not answers to an interaction. */
  dms(user: BotUser): StoredMessage[];
  stop(): Promise<void>;
}

export async function startGuardSuite(): Promise<GuardSuite> {
  const clock = {
    at: Date.now(),
    advance(ms: number) {
      clock.at += ms;
    },
  };
  const bot = await startQuietBot(["alice", "bob"], { overrides: { now: () => new Date(clock.at) } });
  const service = guardsOf(bot);
  await service.stop();
  const market = marketOf(bot);
  return {
    bot,
    market,
    clock,
    async pass() {
      await service.runOnce();
      while ((await alertEngineOf(bot).runDeliveryOnce()).claimed > 0);
    },
    dms: (user) => bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined),
    async stop() {
      await market.close();
      await bot.stop();
    },
  };
}

export function guardsOf(bot: Bot): GuardService {
  const s = bot.app.services.find((x): x is GuardService => x.name === "guards" && "runner" in x);
  if (!s) throw new Error("the app runs no guard service");
  return s;
}

/** Places a buy order through Discord (confirmation and all), so its exposure is held under the caps. */
export async function placeOrder(
  bot: Bot,
  user: BotUser,
  o: { item: string; maxPrice: string; quantity?: number; minFloat?: string; maxFloat?: string },
): Promise<string> {
  // /buyorder create takes only names the market knows: a listing priced far above any order
  // makes this test's own item one, without filling anything.
  bot.sandbox.control.createListing({ market_hash_name: o.item, price: 999_900 });
  const confirmation = await answer(
    bot.double.slash(user, "buyorder create", {
      item: o.item,
      max_price: o.maxPrice,
      quantity: o.quantity ?? 1,
      ...(o.minFloat === undefined ? {} : { min_float: o.minFloat }),
      ...(o.maxFloat === undefined ? {} : { max_float: o.maxFloat }),
    }),
  );
  const created = await answer(bot.double.button(user, buttonId(confirmation, "Place order"), confirmation));
  expect(textOf(created)).toContain("Buy order created");
  const id = /Buy order (\d+)/.exec(created.embeds[0]?.footer?.text ?? "")?.[1];
  if (id === undefined) throw new Error(`no order id in ${textOf(created)}`);
  return id;
}

export async function orderOf(market: MarketView, user: BotUser, orderId: string): Promise<BuyOrder> {
  const page = await market.as(user).getMyBuyOrders({ limit: 100 });
  const found = page.orders.find((o) => o.id === orderId);
  if (!found) throw new Error(`order ${orderId} is not open`);
  return found;
}

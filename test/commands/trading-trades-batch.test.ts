// Accept all through Discord when the live service fails the whole batch: a trade is accepted on the
// website after the bot's read and before its batch arrives (the sandbox then answers 400 "invalid
// trade ids specified", as live), so the bot goes one by one and reports each trade's own result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { Bot, BotUser } from "../support/harness.ts";
import { startMarketGate, type MarketGate } from "./market-gate.ts";
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

const BULK = "POST /trades/bulk/accept";

let sandbox: Sandbox;
let gate: MarketGate;
let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
  gate = await startMarketGate(sandbox.baseUrl);
  ({ bot, alice, market } = await startTradingBot(["alice"], {
    reuse: { sandbox },
    overrides: { marketBaseUrl: gate.baseUrl },
  }));
});

afterAll(async () => {
  await stopTradingBot(bot, market);
  await gate?.close();
  await sandbox?.close();
});

const refusedBatches = () => sandbox.control.stats().routes[BULK]?.byStatus["400"] ?? 0;

describe("Accept all when the batch is refused whole", () => {
  it("GIVEN three waiting sales, one accepted on the website just before the batch arrives WHEN alice presses Accept all THEN each is reported: accepted, already accepted, failed with the marketplace's words", async () => {
    const [fine, elsewhere, stuck] = [
      sandbox.control.createSaleForSeller(alice.demo.platformId).id,
      sandbox.control.createSaleForSeller(alice.demo.platformId).id,
      sandbox.control.createSaleForSeller(alice.demo.platformId).id,
    ];
    const list = await answer(bot.double.slash(alice, "trades list", { role: "seller", state: "queued" }));
    const acceptAll = labels(list).find((l) => l.startsWith("Accept all")) ?? "";
    gate.before(BULK, () => market.as(alice).acceptTrade(elsewhere));
    sandbox.control.injectFault({
      method: "POST",
      path: `/trades/${stuck}/accept`,
      kind: "status",
      status: 400,
      times: 1,
    });
    const [refused, singles] = [refusedBatches(), hits(bot, "POST /trades/{trade_id}/accept")];

    const reply = await answer(bot.double.button(alice, buttonId(list, acceptAll), list));

    expect(refusedBatches()).toBe(refused + 1);
    // The website's accept, then one each for the three the failed batch held.
    expect(hits(bot, "POST /trades/{trade_id}/accept") - singles).toBe(4);
    expect(isEphemeral(reply)).toBe(true);
    const lines = textOf(reply).split("\n");
    expect(lines.find((l) => l.includes(fine))).toMatch(/^✅ .* accepted; send the item by/);
    expect(lines.find((l) => l.includes(elsewhere))).toMatch(/^☑️ .* already accepted/);
    expect(lines.find((l) => l.includes(stuck))).toMatch(/^❌ .*: failed: injected fault: status 400$/);
    expect(textOf(reply)).toContain("1 of 3 trades accepted");
    expect(textOf(reply)).not.toContain("invalid trade ids");
    expect((await market.as(alice).getTrade(fine)).state).toBe("pending");
    expect((await market.as(alice).getTrade(stuck)).state).toBe("queued");
    expect(gate.failures).toEqual([]);
  });
});

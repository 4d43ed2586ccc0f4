// /trades autoaccept end to end through Discord and the sandbox: a queued sale that qualifies is
// accepted by the trade poller with no press and the seller is DM'd the deadline to send the item;
// off (or a sale outside the conditions) accepts nothing; a refused accept is DM'd at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessage } from "../support/discord.ts";
import { alertEngineOf, type Bot, type BotUser } from "../support/harness.ts";
import {
  answer,
  hits,
  isEphemeral,
  labels,
  startTradingBot,
  stopTradingBot,
  textOf,
  type MarketView,
} from "./trading-support.ts";

const ACCEPT = "POST /trades/{trade_id}/accept";

let bot: Bot;
let alice: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, market } = await startTradingBot(["alice"]));
});

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await stopTradingBot(bot, market);
  expect(errors).toEqual([]);
});

const engine = () => alertEngineOf(bot);
const saleForAlice = () => bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
const stateOf = async (tradeId: string) => (await market.as(alice).getTrade(tradeId)).state;

/** One trade poll (as the background loop runs it), then every DM it queued delivered. */
async function pollTrades(): Promise<void> {
  await engine().runTradesOnce();
  while ((await engine().runDeliveryOnce()).claimed > 0);
}

/** DMs the bot sent alice on its own (not answers to her commands) about this trade. */
const dmsAbout = (tradeId: string): StoredMessage[] =>
  bot.double
    .dmsTo(alice.id)
    .filter((m) => m.interactionId === undefined && textOf(m).includes(`Trade ${tradeId}`));

async function autoaccept(opts: Record<string, string | boolean>): Promise<StoredMessage> {
  const reply = await answer(bot.double.slash(alice, "trades autoaccept", opts));
  expect(isEphemeral(reply)).toBe(true);
  return reply;
}

describe("/trades autoaccept", () => {
  it("GIVEN auto-accept never turned on WHEN a sale queues and the trades are polled THEN nothing is accepted AND alice gets the ordinary alert with an Accept button", async () => {
    const sale = saleForAlice();
    const before = hits(bot, ACCEPT);
    await pollTrades();
    expect(await stateOf(sale.id)).toBe("queued");
    expect(hits(bot, ACCEPT)).toBe(before);
    const dms = dmsAbout(sale.id);
    expect(dms).toHaveLength(1);
    expect(labels(dms[0] as StoredMessage)).toContain("Accept");
    expect(textOf(dms[0] as StoredMessage)).not.toContain("accepted automatically");
  });

  it("GIVEN auto-accept on WHEN a sale queues and the trades are polled THEN it is accepted with no press AND alice is DM'd the deadline to send the item", async () => {
    const on = await autoaccept({ enabled: true });
    expect(textOf(on)).toContain("Auto-accept is on");
    const sale = saleForAlice();
    const interactionsBefore = bot.double.dmsTo(alice.id).filter((m) => m.interactionId !== undefined).length;

    await pollTrades();

    expect(await stateOf(sale.id)).toBe("pending");
    const dms = dmsAbout(sale.id);
    expect(dms).toHaveLength(1);
    const dm = dms[0] as StoredMessage;
    expect(textOf(dm)).toContain("Sale accepted automatically");
    expect(textOf(dm)).toMatch(/Send the item transfer offer on the platform by <t:\d+:f> \(<t:\d+:R>\)/);
    expect(labels(dm)).toEqual([]);
    // No button was pressed and no command run for it.
    expect(bot.double.dmsTo(alice.id).filter((m) => m.interactionId !== undefined)).toHaveLength(
      interactionsBefore,
    );
    // Told once: the next poll sees the trade pending, as it left it, and says nothing more.
    await pollTrades();
    expect(dmsAbout(sale.id)).toHaveLength(1);
  });

  it("GIVEN auto-accept on with a minimum price WHEN a cheaper sale queues THEN it is left for alice to accept", async () => {
    const sale = saleForAlice();
    const price = sale.contract?.price ?? 0;
    await autoaccept({ enabled: true, min_price: ((price + 100) / 100).toFixed(2) });
    await pollTrades();
    expect(await stateOf(sale.id)).toBe("queued");
    expect(labels(dmsAbout(sale.id)[0] as StoredMessage)).toContain("Accept");

    // At or below its price the same condition takes the next sale.
    await autoaccept({ enabled: true, min_price: (price / 100).toFixed(2), item: "|" });
    await pollTrades();
    expect(await stateOf(sale.id)).toBe("pending");
    expect(dmsAbout(sale.id).map(textOf).join("\n")).toContain("Sale accepted automatically");
  });

  it("GIVEN auto-accept on WHEN the marketplace refuses the accept THEN alice is DM'd the failure with an Accept button at once AND it is not retried", async () => {
    await autoaccept({ enabled: true });
    const sale = saleForAlice();
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/trades/*/accept",
      kind: "status",
      status: 503,
      times: 1,
    });
    const before = hits(bot, ACCEPT);
    await pollTrades();

    expect(await stateOf(sale.id)).toBe("queued");
    const dms = dmsAbout(sale.id);
    expect(dms).toHaveLength(1);
    const dm = dms[0] as StoredMessage;
    expect(textOf(dm)).toContain("Auto-accept failed");
    expect(textOf(dm)).toContain("the marketplace failed (503)");
    expect(textOf(dm)).toMatch(/Accept it yourself by <t:\d+:f>/);
    expect(labels(dm)).toEqual(["Accept"]);

    // The failure is final for the automation: no silent retry loop.
    const after = hits(bot, ACCEPT);
    expect(after).toBeGreaterThan(before);
    await pollTrades();
    expect(hits(bot, ACCEPT)).toBe(after);
    expect(await stateOf(sale.id)).toBe("queued");
  });

  it("GIVEN auto-accept on WHEN the accept's answer is lost and the trade cannot be read back THEN alice is told it is not confirmed, AND the next poll finds out and tells her", async () => {
    await autoaccept({ enabled: true });
    const sale = saleForAlice();
    const control = bot.sandbox.control;
    control.injectFault({ method: "POST", path: "/trades/*/accept", kind: "status", status: 502, times: 1 });
    // Every read of the trade fails too (the client's retries included).
    control.injectFault({ method: "GET", path: "/trades/*", kind: "status", status: 503 });
    await pollTrades();
    const first = dmsAbout(sale.id);
    expect(first).toHaveLength(1);
    expect(textOf(first[0] as StoredMessage)).toContain("Auto-accept not confirmed");
    expect(textOf(first[0] as StoredMessage)).toContain("could not be read back");

    control.clearFaults();
    await pollTrades();
    // The 502 came before the sandbox acted: the trade is still queued, and alice hears that it
    // was not accepted, with the button to do it herself.
    expect(await stateOf(sale.id)).toBe("queued");
    const dms = dmsAbout(sale.id);
    expect(dms).toHaveLength(2);
    const found = dms[1] as StoredMessage;
    expect(textOf(found)).toContain("Auto-accept failed");
    expect(textOf(found)).toContain("did not go through");
    expect(labels(found)).toEqual(["Accept"]);
    await pollTrades();
    expect(dmsAbout(sale.id)).toHaveLength(2);
  });

  it("GIVEN a claim left pending by a crash minutes ago WHEN the trades are polled THEN the sale's real state is found out and told, not left silent", async () => {
    await autoaccept({ enabled: true });
    const sale = saleForAlice();
    const user = await bot.db.prisma.user.findFirstOrThrow({ where: { discordId: alice.id } });
    await bot.db.prisma.autoAccept.create({
      data: { userId: user.id, tradeId: sale.id, createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    const before = hits(bot, ACCEPT);
    await pollTrades();
    // Claimed already: not accepted again, but not silent either.
    expect(hits(bot, ACCEPT)).toBe(before);
    const dms = dmsAbout(sale.id);
    expect(dms).toHaveLength(1);
    expect(textOf(dms[0] as StoredMessage)).toContain("Auto-accept failed");
    expect(labels(dms[0] as StoredMessage)).toEqual(["Accept"]);
  });

  it("GIVEN auto-accept turned off WHEN a sale queues THEN nothing is accepted", async () => {
    const off = await autoaccept({ enabled: false });
    expect(textOf(off)).toContain("Auto-accept is off");
    const sale = saleForAlice();
    const before = hits(bot, ACCEPT);
    await pollTrades();
    expect(await stateOf(sale.id)).toBe("queued");
    expect(hits(bot, ACCEPT)).toBe(before);
    expect(textOf(dmsAbout(sale.id)[0] as StoredMessage)).not.toContain("automatically");
  });

  it.each([
    [{ enabled: true, min_price: "abc" }, "min_price"],
    [{ enabled: true, item: "   " }, "item"],
  ])(
    "GIVEN bad input %j WHEN alice runs /trades autoaccept THEN she is told why and nothing changes",
    async (opts, option) => {
      const before = await bot.db.prisma.autoAcceptSetting.findFirst();
      const reply = await autoaccept(opts);
      expect(textOf(reply)).toContain(option);
      expect(await bot.db.prisma.autoAcceptSetting.findFirst()).toEqual(before);
    },
  );
});

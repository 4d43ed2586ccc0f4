// A trade that comes back to a state it was in is news again: alerted once per return, never
// twice for the same one, restarts included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarketApi, MarketClient } from "../../../src/market/client.ts";
import type { Trade } from "../../../src/market/schemas.ts";
import type { DemoUser } from "../../../src/sandbox/index.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, type World } from "./world.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;

let w: World;
let alice: DoubleUser;
let aliceDemo: DemoUser;
let aliceId: number;

/** Trade states the marketplace reports in place of the sandbox's own (by trade id). */
const reported = new Map<string, Trade["state"]>();

/**
 * The sandbox never moves a trade back (its trades only go forward), so this market client reports
 * a state of our choosing for the trades in `reported`; every other byte comes from the sandbox.
 */
function reportingStates(market: MarketClient): MarketClient {
  const patch = (trade: Trade): Trade => {
    const state = reported.get(trade.id);
    return state === undefined ? trade : { ...trade, state };
  };
  return {
    ...market,
    forKey(key) {
      const api = market.forKey(key);
      const wrapped: MarketApi = {
        ...api,
        async *iterateMyTrades(q, opts) {
          for await (const trade of api.iterateMyTrades(q, opts)) yield patch(trade);
        },
        getTrade: async (id) => patch(await api.getTrade(id)),
      };
      return wrapped;
    },
  };
}

beforeAll(async () => {
  w = await startWorld();
  ({ user: alice, demo: aliceDemo, id: aliceId } = await w.linkDemo("alice"));
});

afterAll(async () => {
  await w?.close();
});

const engineNow = () => new Date(w.sandbox.control.now());
const tradeKeys = async (tradeId: string) =>
  (
    await w.db.prisma.alertLog.findMany({
      where: { userId: aliceId, kind: "trade", subjectId: tradeId },
      orderBy: { id: "asc" },
      select: { dedupeKey: true },
    })
  ).map((a) => a.dedupeKey);

describe("trade poller: returns to an earlier state", () => {
  it("GIVEN a trade that went queued then pending WHEN it is queued again THEN the second queued is alerted once, also after a restart", async () => {
    const engine = w.engine({ market: reportingStates(w.market), now: engineNow });
    await engine.runTradesOnce(); // baseline: what the seeded world already holds
    const trade = w.sandbox.control.createSaleForSeller(aliceDemo.platformId);
    await engine.runTradesOnce();
    await w.market.forKey(aliceDemo.apiKey).acceptTrade(trade.id);
    await engine.runTradesOnce();

    reported.set(trade.id, "queued"); // the marketplace puts it back in the seller's queue
    const back = await engine.runTradesOnce();
    await engine.runTradesOnce();
    await engine.stop();
    const restarted = w.engine({ market: reportingStates(w.market), now: engineNow });
    const afterRestart = await restarted.runTradesOnce();

    expect(back.alerts).toBe(1);
    expect(afterRestart.alerts).toBe(0);
    expect(await tradeKeys(trade.id)).toEqual([
      `trade:${aliceId}:${trade.id}:queued`,
      `trade:${aliceId}:${trade.id}:pending`,
      `trade:${aliceId}:${trade.id}:queued:2`,
    ]);
    while ((await restarted.runDeliveryOnce()).claimed > 0);
    const dms = w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(`Trade ${trade.id}`));
    expect(dms).toHaveLength(3);
    // The last one asks to accept again.
    expect(JSON.stringify(dms[2]?.components)).toContain(`alert.accept:${trade.id}:${alice.id}`);

    // And pending again is a second pending.
    reported.delete(trade.id);
    expect((await restarted.runTradesOnce()).alerts).toBe(1);
    expect((await tradeKeys(trade.id)).at(-1)).toBe(`trade:${aliceId}:${trade.id}:pending:2`);
  });

  it("GIVEN a queued trade reminded of its deadline WHEN it comes back to queued with a new deadline THEN the new deadline is reminded too", async () => {
    const engine = w.engine({ market: reportingStates(w.market), now: engineNow });
    const trade = w.sandbox.control.createSaleForSeller(aliceDemo.platformId);
    const reminders = () =>
      w.db.prisma.alertLog.count({ where: { userId: aliceId, kind: "trade_reminder", subjectId: trade.id } });
    await engine.runTradesOnce();
    w.sandbox.control.advanceClock(11 * HOUR + MINUTE); // 59 minutes left to accept
    await engine.runRemindersOnce();
    expect(await reminders()).toBe(1);

    await w.market.forKey(aliceDemo.apiKey).acceptTrade(trade.id);
    await engine.runTradesOnce();
    reported.set(trade.id, "queued"); // back in the queue, with the deadline the marketplace gives
    expect((await engine.runTradesOnce()).alerts).toBe(1);
    w.sandbox.control.advanceClock(11 * HOUR + MINUTE);
    await engine.runRemindersOnce();
    await engine.runRemindersOnce();

    expect(await reminders()).toBe(2);
  });
});

// Trades, reminders, buy-order fills and revoked keys: per-user polls that DM each change once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoUser } from "../../../src/sandbox/index.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;

let w: World;
let alice: DoubleUser;
let bob: DoubleUser;
let aliceDemo: DemoUser;
let bobDemo: DemoUser;
let aliceId: number;
let bobId: number;
let engine: ReturnType<World["engine"]>;

beforeAll(async () => {
  w = await startWorld();
  ({ user: alice, demo: aliceDemo, id: aliceId } = await w.linkDemo("alice"));
  ({ user: bob, demo: bobDemo, id: bobId } = await w.linkDemo("bob"));
  // The pollers read deadlines against the marketplace's clock, which these tests move forward.
  engine = w.engine({ now: () => new Date(w.sandbox.control.now()) });
  await engine.runTradesOnce(); // baseline: whatever the seeded world already holds
  await engine.runDeliveryOnce();
});

afterAll(async () => {
  await w?.close();
});

const dmsAbout = (user: DoubleUser, tradeId: string) =>
  w.double.dmsTo(user.id).filter((m) => textOf(m).includes(`Trade ${tradeId}`));

describe("trade poller", () => {
  it("GIVEN a sale waiting on the seller WHEN polled THEN one DM with Accept, Cancel trade and the deadline", async () => {
    const trade = w.sandbox.control.createSaleForSeller(aliceDemo.platformId);

    const first = await engine.runTradesOnce();
    expect(first).toEqual({ users: 2, alerts: 1, revoked: 0, failed: 0 });
    await engine.runDeliveryOnce();
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    const dms = dmsAbout(alice, trade.id);
    expect(dms).toHaveLength(1);
    const dm = dms[0] as (typeof dms)[0];
    const deadline = Math.floor(Date.parse(String(trade.expires_at)) / 1000);
    expect(textOf(dm)).toContain(`<t:${deadline}:R>`);
    const ids = JSON.stringify(dm.components);
    expect(ids).toContain(`alert.accept:${trade.id}:${alice.id}`);
    expect(ids).toContain(`alert.cancel:${trade.id}:${alice.id}`);
    expect(
      await w.db.prisma.alertLog.count({ where: { dedupeKey: `trade:${aliceId}:${trade.id}:queued` } }),
    ).toBe(1);
  });

  it("GIVEN an accepted trade WHEN it moves to pending and then verified THEN each change is told once", async () => {
    const trade = w.sandbox.control.createSaleForSeller(aliceDemo.platformId);
    await engine.runTradesOnce();
    await w.market.forKey(aliceDemo.apiKey).acceptTrade(trade.id);

    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    expect(dmsAbout(alice, trade.id).map((m) => textOf(m))).toEqual([
      expect.stringContaining("Sold"),
      expect.stringContaining("Send the item"),
    ]);

    w.sandbox.control.advanceClock(HOUR + MINUTE); // the sandbox verifies an hour after acceptance
    await engine.runTradesOnce();
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    const texts = dmsAbout(alice, trade.id).map((m) => textOf(m));
    expect(texts).toHaveLength(3);
    expect(texts[2]).toContain("complete");
    const tracked = await w.db.prisma.trackedTrade.findUniqueOrThrow({
      where: { userId_tradeId: { userId: aliceId, tradeId: trade.id } },
    });
    expect(tracked.closedAt).toBeInstanceOf(Date);
    expect(tracked.lastKnownState).toBe("verified");
  });

  it("GIVEN a trade waiting on the seller WHEN its deadline nears THEN one reminder at an hour and one at 15 minutes", async () => {
    const trade = w.sandbox.control.createSaleForSeller(aliceDemo.platformId);
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    const reminders = () => dmsAbout(alice, trade.id).filter((m) => textOf(m).includes("Reminder"));

    expect(await engine.runRemindersOnce()).toBe(0);
    w.sandbox.control.advanceClock(11 * HOUR + MINUTE); // 59 minutes left
    expect(await engine.runRemindersOnce()).toBe(1);
    expect(await engine.runRemindersOnce()).toBe(0);
    await engine.runDeliveryOnce();
    expect(reminders()).toHaveLength(1);

    w.sandbox.control.advanceClock(46 * MINUTE); // 13 minutes left
    expect(await engine.runRemindersOnce()).toBe(1);
    expect(await engine.runRemindersOnce()).toBe(0);
    await engine.runDeliveryOnce();
    const [, last, ...extra] = reminders();
    expect(extra).toHaveLength(0);
    if (last === undefined) throw new Error("no 15-minute reminder");
    expect(textOf(last)).toMatch(/<t:\d+:R>/);
  });

  it("GIVEN a buy order WHEN items are bought for it THEN the owner is told once per fill", async () => {
    const order = await w.market
      .forKey(aliceDemo.apiKey)
      .createBuyOrder({ market_hash_name: uniqueItemName("order"), max_price: 2_000, quantity: 5 });
    await engine.runTradesOnce(); // first sight: baseline, no alert

    w.sandbox.control.fillBuyOrder(order.id, 2);
    await engine.runTradesOnce();
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    const dms = w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(`Buy order ${order.id}`));
    expect(dms).toHaveLength(1);
    expect(textOf(dms[0] as (typeof dms)[0])).toContain("2 of 5");
    expect(
      await w.db.prisma.alertLog.count({ where: { dedupeKey: `buyorder:${aliceId}:${order.id}:2` } }),
    ).toBe(1);
  });

  it("GIVEN an order made on the website (an expression, no item name) WHEN items are bought for it THEN the DM names the expression", async () => {
    const order = w.sandbox.control.createWebsiteBuyOrder({
      platformId: aliceDemo.platformId,
      marketHashName: uniqueItemName("website order"),
      maxPrice: 1_500,
      quantity: 4,
      maxFloat: 0.07,
    });
    await engine.runTradesOnce(); // first sight: baseline, no alert

    w.sandbox.control.fillBuyOrder(order.id, 1);
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    const dms = w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(`Buy order ${order.id}`));
    expect(dms).toHaveLength(1);
    const text = textOf(dms[0] as (typeof dms)[0]);
    expect(text).toContain("Buy order filled: Advanced order (made on the website)");
    expect(text).toContain(`Expression: \`${order.expression}\``);
    expect(text).toContain("1 of 4");
  });

  it("GIVEN a key the marketplace revokes WHEN polled THEN the account is marked revoked, polls stop and one DM says so", async () => {
    w.sandbox.control.revokeKey(bobDemo.apiKey);
    const before = w.sandbox.control.stats().total;

    const first = await engine.runTradesOnce();
    expect(first.revoked).toBe(1);
    const user = await w.db.prisma.user.findUniqueOrThrow({ where: { id: bobId } });
    expect(user.status).toBe("revoked");
    expect(user.revokedAt).toBeInstanceOf(Date);

    const callsOfFirst = w.sandbox.control.stats().total - before;
    const second = await engine.runTradesOnce();
    expect(second.revoked).toBe(0);
    expect(second.users).toBe(first.users - 1);
    expect(w.sandbox.control.stats().total - before).toBeLessThan(callsOfFirst * 2);

    await engine.runDeliveryOnce();
    const dms = w.double.dmsTo(bob.id).filter((m) => textOf(m).includes("API key was refused"));
    expect(dms).toHaveLength(1);
    expect(await w.db.prisma.alertLog.count({ where: { userId: bobId, kind: "key_revoked" } })).toBe(1);
  });
});

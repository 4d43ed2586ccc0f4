// Reversal alerts: a rollback in a user's ledger (a reversed sale or purchase) is DMed once, with
// what was reversed and the amount, and never again: not on the next poll, not after a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoUser } from "../../../src/sandbox/index.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { buyAndFindTrade } from "../../support/purchase.ts";
import { pollNeeds } from "../../../src/accountPollers/pollPlan.ts";
import { startWorld, type World } from "./world.ts";

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
  engine = w.engine({ now: () => new Date(w.sandbox.control.now()) });
  await engine.runTradesOnce();
  await engine.runDeliveryOnce();
});

afterAll(async () => {
  await w?.close();
});

const reversalDms = (user: DoubleUser) =>
  w.double.dmsTo(user.id).filter((m) => textOf(m).includes("reversed"));

/** Bob lists an item, alice buys it, bob accepts and the trade is verified an hour later. */
async function verifiedSale(name: string, price: number): Promise<string> {
  const l = w.sandbox.control.createListing({
    sellerPlatformId: bobDemo.platformId,
    market_hash_name: name,
    price,
    type: "buy_now",
  });
  const trade = await buyAndFindTrade(w.market.forKey(aliceDemo.apiKey), l.id, price);
  // The bot sees the sale while it is open, as its trade checks would: a reversal of a trade it
  // saw is what its rollback reads look for.
  await engine.runTradesOnce();
  await w.market.forKey(bobDemo.apiKey).acceptTrade(trade.id);
  w.sandbox.control.advanceClock(HOUR + MINUTE);
  expect((await w.market.forKey(bobDemo.apiKey).getTrade(trade.id)).state).toBe("verified");
  return trade.id;
}

describe("reversal alerts", () => {
  it("GIVEN a verified trade WHEN it is reversed THEN the seller and the buyer each get one DM with the item and the amount", async () => {
    const tradeId = await verifiedSale("Reversal Rifle | Undone (Field-Tested)", 1234);
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    const before = { alice: reversalDms(alice).length, bob: reversalDms(bob).length };

    w.sandbox.control.reverseTrade(tradeId, "transfer reversed by the sender");
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    const bobs = reversalDms(bob).slice(before.bob);
    expect(bobs).toHaveLength(1);
    const sellerText = textOf(bobs[0] as (typeof bobs)[0]);
    expect(sellerText).toContain("Sale reversed: Reversal Rifle | Undone (Field-Tested)");
    expect(sellerText).toContain("took **$12.34** back");
    expect(sellerText).toContain(`Trade\n${tradeId}`);
    expect(sellerText).toContain("transfer reversed by the sender");

    const alices = reversalDms(alice).slice(before.alice);
    expect(alices).toHaveLength(1);
    const buyerText = textOf(alices[0] as (typeof alices)[0]);
    expect(buyerText).toContain("Purchase reversed: Reversal Rifle | Undone (Field-Tested)");
    expect(buyerText).toContain("refunded **$12.34**");
  });

  it("GIVEN a reversal already told WHEN polled again and after a restart THEN no second DM and one alert row", async () => {
    const tradeId = await verifiedSale("Reversal Pistol | Once (Minimal Wear)", 555);
    w.sandbox.control.reverseTrade(tradeId);
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    const told = reversalDms(bob).filter((m) => textOf(m).includes("Once")).length;
    expect(told).toBe(1);

    await engine.runTradesOnce();
    await engine.runDeliveryOnce();
    const restarted = w.engine({ now: () => new Date(w.sandbox.control.now()) });
    await restarted.runTradesOnce();
    await restarted.runDeliveryOnce();

    expect(reversalDms(bob).filter((m) => textOf(m).includes("Once"))).toHaveLength(1);
    const rows = await w.db.prisma.alertLog.findMany({
      where: { userId: bobId, kind: "reversal", subjectId: tradeId },
    });
    expect(rows).toHaveLength(1);
    expect(await w.db.prisma.outbox.count({ where: { alertId: rows[0]?.id ?? -1 } })).toBe(1);
  });

  it("GIVEN a sale verified within the reversal window WHEN polls are planned THEN its seller is polled often, and not after the window", async () => {
    const l = w.sandbox.control.createListing({
      sellerPlatformId: bobDemo.platformId,
      price: 700,
      type: "buy_now",
    });
    const tradeId = (await buyAndFindTrade(w.market.forKey(aliceDemo.apiKey), l.id, 700)).id;
    await engine.runTradesOnce(); // seen open: tracked
    await w.market.forKey(bobDemo.apiKey).acceptTrade(tradeId);
    w.sandbox.control.advanceClock(HOUR + MINUTE);
    await engine.runTradesOnce(); // seen verified: closed
    const tracked = await w.db.prisma.trackedTrade.findFirst({ where: { userId: bobId, tradeId } });
    expect(tracked?.lastKnownState).toBe("verified");
    const now = new Date(w.sandbox.control.now());
    expect((await pollNeeds(w.db.prisma, now)).hot.has(bobId)).toBe(true);
    const later = new Date(now.getTime() + 8 * 24 * HOUR);
    expect((await pollNeeds(w.db.prisma, later)).hot.has(bobId)).toBe(false);
  });

  it("GIVEN an outbid bid's hold released by a rollback WHEN polled THEN it is not a reversal and no DM", async () => {
    const auction = w.sandbox.control.createListing({ type: "auction", price: 1000, reserve_price: 1000 });
    await w.market.forKey(aliceDemo.apiKey).placeBid(auction.id, 1500);
    w.sandbox.control.placeCompetingBid(auction.id, 3000);
    const ledger = await w.market
      .forKey(aliceDemo.apiKey)
      .getTransactions({ type: "rollback", order: "desc", limit: 5 });
    expect(ledger.transactions.some((t) => t.details?.contract_id === auction.id)).toBe(true);
    const before = reversalDms(alice).length;

    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    expect(reversalDms(alice)).toHaveLength(before);
    expect(
      await w.db.prisma.alertLog.count({
        where: { userId: aliceId, kind: "reversal", subjectId: auction.id },
      }),
    ).toBe(0);
  });
});

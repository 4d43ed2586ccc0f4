// Reversal alerts: a rollback in a user's ledger (a reversed sale or purchase) is DMed once, with
// what was reversed and the amount, and never again: not on the next poll, not after a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoUser } from "../../../src/sandbox/index.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { pollNeeds } from "../../../src/alerts/pollPlan.ts";
import { createTradePoller } from "../../../src/alerts/tradePoller.ts";
import type { MarketClient } from "../../../src/market/client.ts";
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
  alice = w.double.user("alice");
  bob = w.double.user("bob");
  aliceDemo = w.demo("alice");
  bobDemo = w.demo("bob");
  aliceId = await w.linkUser(alice, aliceDemo);
  bobId = await w.linkUser(bob, bobDemo);
  engine = w.engine({ now: () => new Date(w.sandbox.control.now()) });
  await engine.runTradesOnce();
  await engine.runDeliveryOnce();
});

afterAll(async () => {
  await w?.close();
});

const reversalDms = (user: DoubleUser) =>
  w.double.dmsTo(user.id).filter((m) => textOf(m).includes("reversed"));

/**
 * Bob lists an item, alice buys it, bob accepts and the trade is verified an hour later. The bot
 * polls while the trade is open (as it does for a trader with a sale waiting) unless `unseen`.
 */
async function verifiedSale(name: string, price: number, opts: { unseen?: boolean } = {}): Promise<string> {
  const l = w.sandbox.control.createListing({
    sellerPlatformId: bobDemo.platformId,
    market_hash_name: name,
    price,
    type: "buy_now",
  });
  const [trade] = await w.market
    .forKey(aliceDemo.apiKey)
    .buyListings({ contract_ids: [l.id], total_price: price });
  if (!trade) throw new Error("no trade");
  await w.market.forKey(bobDemo.apiKey).acceptTrade(trade.id);
  if (opts.unseen !== true) await engine.runTradesOnce();
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

  it("GIVEN a sale the bot never saw open WHEN it is reversed THEN its DM comes at the next ledger read, within the reversal read period", async () => {
    const tradeId = await verifiedSale("Reversal Knife | Unseen (Factory New)", 777, { unseen: true });
    // The poll after verification: the trade is no longer open, so the bot never tracked it.
    await engine.runTradesOnce();
    const before = reversalDms(bob).length;

    w.sandbox.control.reverseTrade(tradeId);
    w.sandbox.control.advanceClock(10 * MINUTE);
    await engine.runTradesOnce();
    await engine.runDeliveryOnce();

    const bobs = reversalDms(bob).slice(before);
    expect(bobs).toHaveLength(1);
    expect(textOf(bobs[0] as (typeof bobs)[0])).toContain("Reversal Knife | Unseen (Factory New)");
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
    const [trade] = await w.market
      .forKey(aliceDemo.apiKey)
      .buyListings({ contract_ids: [l.id], total_price: 700 });
    const tradeId = trade?.id ?? "";
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

  it("GIVEN one user with a trade in its reversal window and one without WHEN polled three times THEN the first's ledger is read each poll and the other's once per reversal period", async () => {
    const carolId = await w.linkUser({ id: "900000000000000003" } as DoubleUser, w.demo("carol"));
    // The real client, counting each key's rollback reads.
    const reads = new Map<string, number>();
    const market = new Proxy(w.market, {
      get(target, prop) {
        if (prop !== "forKey") return Reflect.get(target, prop, target) as unknown;
        return (key: string, opts?: Parameters<MarketClient["forKey"]>[1]) => {
          const api = target.forKey(key, opts);
          return {
            ...api,
            getTransactions: (q: Parameters<typeof api.getTransactions>[0]) => {
              if (q?.type === "rollback") reads.set(key, (reads.get(key) ?? 0) + 1);
              return api.getTransactions(q);
            },
          };
        };
      },
    });
    let clock = w.sandbox.control.now();
    const poller = createTradePoller({
      prisma: w.db.prisma,
      market,
      openKey: (sealed, userId) => w.vault.decrypt(sealed, userId),
      logger: w.logger,
      now: () => new Date(clock),
      reversalReadEveryMs: 10 * MINUTE,
    });
    const readsOf = (demo: DemoUser) => reads.get(demo.apiKey) ?? 0;
    const carol = w.demo("carol");
    const needs = await pollNeeds(w.db.prisma, new Date(clock));
    expect(needs.reversible.has(bobId)).toBe(true);
    expect(needs.reversible.has(carolId)).toBe(false);

    await poller.runOnce();
    expect([readsOf(bobDemo), readsOf(carol)]).toEqual([1, 1]);
    clock += 9 * MINUTE;
    await poller.runOnce();
    expect([readsOf(bobDemo), readsOf(carol)]).toEqual([2, 1]);
    clock += MINUTE;
    await poller.runOnce();
    expect([readsOf(bobDemo), readsOf(carol)]).toEqual([3, 2]);
  });
});

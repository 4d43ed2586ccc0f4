// A buy order whose answer was lost, found again although the service sends it with a zero
// created_at (docs/live-service.md): the reconciler reads the order's time from its id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEngine } from "../../../src/alerts/engine/engine.ts";
import { reserveSpend, settlePurchase } from "../../../src/db/repos/purchases.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, type World } from "./world.ts";

let w: World;
let engine: AlertEngine;
let alice: DoubleUser;
let aliceId: number;

beforeAll(async () => {
  w = await startWorld();
  engine = w.engine();
  alice = w.double.user("alice");
  aliceId = await w.linkUser(alice, w.demo("alice"), { perPurchaseCapCents: null, dailyCapCents: null });
});

afterAll(async () => {
  await w?.close();
});

describe("reconciler and buy orders with a zero created_at", () => {
  it("GIVEN a buy order placed after its commitment, whose answer was lost and which the service lists with a zero created_at, WHEN reconciling past the settle delay THEN it stands as that order, not 'no such order was placed'", async () => {
    const reserved = await reserveSpend(w.db.prisma, {
      userId: aliceId,
      idempotencyKey: "lost-order-1",
      kind: "buy_order",
      subjectId: null,
      unitPriceCents: 321,
      totalCents: 642,
    });
    if (!reserved.ok) throw new Error(`reservation refused: ${reserved.reason}`);
    const commitmentId = reserved.purchase.id;
    await settlePurchase(w.db.prisma, commitmentId, { status: "unknown", error: "timeout" });
    // Reserved two minutes ago, past the reconciler's settle delay; the order landed since.
    await w.db.prisma.purchase.update({
      where: { id: commitmentId },
      data: { createdAt: new Date(Date.now() - 2 * 60_000) },
    });
    const order = await w.market.forKey(w.demo("alice").apiKey).createBuyOrder({
      market_hash_name: "Reconcile Rifle | Zero Time (Field-Tested)",
      max_price: 321,
      quantity: 2,
    });
    expect(order.created_at).toBe("0001-01-01T00:00:00Z");

    await engine.runReconcileOnce();
    await engine.runDeliveryOnce();

    const settled = await w.db.prisma.purchase.findUniqueOrThrow({ where: { id: commitmentId } });
    expect(settled).toMatchObject({ status: "open", subjectId: order.id });
    const dm = w.double.dmsTo(alice.id).find((m) => textOf(m).includes(`order ${order.id}`));
    expect(dm && textOf(dm)).toContain("Your buy order is in place");
  });
});

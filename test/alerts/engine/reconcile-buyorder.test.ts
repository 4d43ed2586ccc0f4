// Buy orders whose answer was lost, found out by the reconciler: a new order found again although
// the service sends it with a zero created_at (docs/live-service.md; its time is read from its id);
// a lost edit settled as the order now stands, leaving one commitment; and an order past the pages
// read on a busy account kept held, never taken as "not placed".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEngine } from "../../../src/background/engine.ts";
import { reserveSpend, settlePurchase } from "../../../src/db/repos/purchases.ts";
import type { SpendKind } from "../../../src/generated/prisma/client.ts";
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
    // Reserved two minutes ago, past the reconciler's settle delay; the order landed since.
    const commitmentId = await commitment({
      key: "lost-order-1",
      subjectId: null,
      unitPriceCents: 321,
      totalCents: 642,
      status: "unknown",
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

/** A commitment of alice's, as a command would have left it, reserved `ageMs` ago. */
async function commitment(input: {
  key: string;
  kind?: SpendKind;
  subjectId: string | null;
  unitPriceCents: number;
  totalCents: number;
  status: "open" | "unknown";
  ageMs?: number;
}): Promise<number> {
  const reserved = await reserveSpend(w.db.prisma, {
    userId: aliceId,
    idempotencyKey: input.key,
    kind: input.kind ?? "buy_order",
    subjectId: input.subjectId,
    unitPriceCents: input.unitPriceCents,
    totalCents: input.totalCents,
  });
  if (!reserved.ok) throw new Error(`reservation refused: ${reserved.reason}`);
  const id = reserved.purchase.id;
  await settlePurchase(w.db.prisma, id, {
    status: input.status,
    ...(input.status === "unknown" ? { error: "timeout" } : {}),
  });
  await w.db.prisma.purchase.update({
    where: { id },
    data: { createdAt: new Date(Date.now() - (input.ageMs ?? 2 * 60_000)) },
  });
  return id;
}

const standing = async (orderId: string) =>
  (
    await w.db.prisma.purchase.findMany({
      where: { userId: aliceId, subjectId: orderId, status: { in: ["pending", "open", "unknown"] } },
      orderBy: { id: "asc" },
    })
  ).map((p) => [p.id, p.status, Number(p.totalCents)]);

describe("reconciler and a buy order's lost edit", () => {
  for (const applied of [true, false]) {
    it(`GIVEN an order for 3 at $5 holding $15 and an edit to 1 whose answer was lost WHEN the edit ${applied ? "took effect" : "never landed"} and the reconciler runs THEN one commitment stands, holding what the order now shows ($${applied ? 5 : 15}), and the other is released`, async () => {
      const api = w.market.forKey(w.demo("alice").apiKey);
      const order = await api.createBuyOrder({
        market_hash_name: `Reconcile Rifle | Lost Edit ${applied ? "A" : "B"} (Field-Tested)`,
        max_price: 500,
        quantity: 3,
      });
      const old = await commitment({
        key: `order-${order.id}`,
        subjectId: order.id,
        unitPriceCents: 500,
        totalCents: 1_500,
        status: "open",
        ageMs: 10 * 60_000,
      });
      const lost = await commitment({
        key: `edit-${order.id}`,
        subjectId: order.id,
        unitPriceCents: 500,
        totalCents: 500,
        status: "unknown",
      });
      if (applied) await api.updateBuyOrder(order.id, { max_price: 500, quantity: 1, constraints: {} });

      await engine.runReconcileOnce();

      const holds = applied ? 500 : 1_500;
      expect(await standing(order.id)).toEqual([[lost, "open", holds]]);
      const replaced = await w.db.prisma.purchase.findUniqueOrThrow({ where: { id: old } });
      expect(replaced.status).toBe("released");
    });
  }
});

describe("reconciler and a busy account's buy orders", () => {
  it("GIVEN a lost order placed before 1,000 others, so past the 20 pages the reconciler reads, WHEN reconciling past the settle delay THEN it stays held as unknown, counted as page-limited, not settled as 'no such order was placed'", async () => {
    const api = w.market.forKey(w.demo("alice").apiKey);
    const lost = await commitment({
      key: "busy-order",
      subjectId: null,
      unitPriceCents: 777,
      totalCents: 777,
      status: "unknown",
    });
    await api.createBuyOrder({
      market_hash_name: "Reconcile Rifle | Busy Account (Field-Tested)",
      max_price: 777,
      quantity: 1,
    });
    for (let i = 0; i < 1_000; i++)
      w.sandbox.control.createWebsiteBuyOrder({
        platformId: w.demo("alice").platformId,
        marketHashName: "Reconcile Rifle | Filler (Field-Tested)",
        maxPrice: 3,
      });

    const result = await engine.runReconcileOnce();

    const row = await w.db.prisma.purchase.findUniqueOrThrow({ where: { id: lost } });
    expect(row.status).toBe("unknown");
    expect(result.pageLimited).toBeGreaterThanOrEqual(1);
  });
});

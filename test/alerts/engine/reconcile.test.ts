// Uncertain outcomes settled to the truth: commitments whose answer was lost are found out from
// the marketplace's own records (every page of trades, the ledger, the listing) and DM'd.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEngine } from "../../../src/background/engine.ts";
import { reserveSpend, settlePurchase, spentInWindow } from "../../../src/db/repos/purchases.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, type World } from "./world.ts";

let w: World;
let engine: AlertEngine;
let alice: DoubleUser;
let aliceId: number;
let keys = 0;

beforeAll(async () => {
  w = await startWorld();
  engine = w.engine();
  alice = w.double.user("alice");
  aliceId = await w.linkUser(alice, w.demo("alice"), { perPurchaseCapCents: null, dailyCapCents: null });
});

afterAll(async () => {
  await w?.close();
});

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

/** A commitment as a crash or a lost answer leaves it: reserved, maybe sent, never recorded. */
async function lostCommitment(input: {
  kind: "buy" | "bid";
  listingId: string;
  totalCents: number;
  status: "pending" | "unknown";
  minutesOld: number;
}): Promise<number> {
  keys += 1;
  const reserved = await reserveSpend(w.db.prisma, {
    userId: aliceId,
    idempotencyKey: `lost-${keys}`,
    kind: input.kind,
    subjectId: input.listingId,
    listingIds: input.kind === "buy" ? [input.listingId] : [],
    totalCents: input.totalCents,
  });
  if (!reserved.ok) throw new Error(`reservation refused: ${reserved.reason}`);
  const id = reserved.purchase.id;
  if (input.status === "unknown")
    await settlePurchase(w.db.prisma, id, { status: "unknown", error: "timeout" });
  await w.db.prisma.purchase.update({ where: { id }, data: { createdAt: minutesAgo(input.minutesOld) } });
  return id;
}

const statusOf = async (id: number) =>
  (await w.db.prisma.purchase.findUniqueOrThrow({ where: { id } })).status;
const dmsAbout = (text: string) => w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(text));

describe("reconciler", () => {
  it("GIVEN a crash left a purchase pending that did go through, with its trade past the first page WHEN reconciling THEN it is settled as bought and the user is told", async () => {
    const aliceApi = w.market.forKey(w.demo("alice").apiKey);
    const landed = w.sandbox.control.createListing({ type: "buy_now", price: 150 });
    await aliceApi.buyListings({ contract_ids: [landed.id], total_price: 150 });
    // 55 later purchases push its trade off the first page of /me/trades.
    for (let i = 0; i < 55; i += 1) {
      const l = w.sandbox.control.createListing({ type: "buy_now", price: 100 });
      await aliceApi.buyListings({ contract_ids: [l.id], total_price: 100 });
    }
    const firstPage = await aliceApi.getMyTrades({ role: "buyer", page: 0, limit: 50 });
    expect(firstPage.trades.some((t) => (t.contract_id ?? t.contract?.id) === landed.id)).toBe(false);
    const id = await lostCommitment({
      kind: "buy",
      listingId: landed.id,
      totalCents: 150,
      status: "pending",
      minutesOld: 5,
    });

    const result = await engine.runReconcileOnce();
    await engine.runDeliveryOnce();

    expect(result.settled).toBeGreaterThanOrEqual(1);
    expect(await statusOf(id)).toBe("succeeded");
    const [dm] = dmsAbout(`listing ${landed.id}`);
    expect(dm && textOf(dm)).toContain("Your purchase went through");
    expect(dm && textOf(dm)).toContain("$1.50");
  });

  it("GIVEN an unknown purchase of a listing still for sale after a while WHEN reconciling THEN it did not go through, stops counting and the user is told", async () => {
    const still = w.sandbox.control.createListing({ type: "buy_now", price: 2_500 });
    const id = await lostCommitment({
      kind: "buy",
      listingId: still.id,
      totalCents: 2_500,
      status: "unknown",
      minutesOld: 3,
    });
    const counted = await spentInWindow(w.db.prisma, aliceId);

    await engine.runReconcileOnce();
    await engine.runDeliveryOnce();

    expect(await statusOf(id)).toBe("failed");
    expect(await spentInWindow(w.db.prisma, aliceId)).toBe(counted - 2_500);
    const [dm] = dmsAbout(`listing ${still.id}`);
    expect(dm && textOf(dm)).toContain("Your purchase did not go through");
    expect(dm && textOf(dm)).toContain("still for sale");
  });

  it("GIVEN an unknown purchase of a listing that just sold without a trade of ours WHEN reconciling early THEN it stays unknown (never failed while it may have gone through)", async () => {
    const sold = w.sandbox.control.createListing({ type: "buy_now", price: 700 });
    const bobApi = w.market.forKey(w.demo("bob").apiKey);
    await bobApi.buyListings({ contract_ids: [sold.id], total_price: 700 });
    const id = await lostCommitment({
      kind: "buy",
      listingId: sold.id,
      totalCents: 700,
      status: "unknown",
      minutesOld: 0,
    });

    await engine.runReconcileOnce();

    expect(await statusOf(id)).toBe("unknown");

    // Later, with still no trade or ledger entry of ours, someone else bought it.
    await w.db.prisma.purchase.update({ where: { id }, data: { createdAt: minutesAgo(5) } });
    await engine.runReconcileOnce();
    expect(await statusOf(id)).toBe("failed");
  });

  it("GIVEN an unknown bid on an auction where a rival now stands above the ceiling WHEN reconciling THEN the bid is released", async () => {
    const auction = w.sandbox.control.createListing({ type: "auction", reserve_price: 500 });
    // Two rivals push the standing price past the ceiling.
    w.sandbox.control.placeCompetingBid(auction.id, 3_000);
    w.sandbox.control.placeCompetingBid(auction.id, 5_000);
    const id = await lostCommitment({
      kind: "bid",
      listingId: auction.id,
      totalCents: 1_000,
      status: "unknown",
      minutesOld: 1,
    });

    await engine.runReconcileOnce();
    await engine.runDeliveryOnce();

    expect(await statusOf(id)).toBe("released");
    const [dm] = dmsAbout(`listing ${auction.id}`);
    expect(dm && textOf(dm)).toContain("Your bid no longer stands");
  });

  it("GIVEN a pending row younger than the grace period WHEN reconciling THEN it is left alone (its request may be in flight)", async () => {
    const l = w.sandbox.control.createListing({ type: "buy_now", price: 300 });
    const id = await lostCommitment({
      kind: "buy",
      listingId: l.id,
      totalCents: 300,
      status: "pending",
      minutesOld: 0,
    });

    await engine.runReconcileOnce();

    expect(await statusOf(id)).toBe("pending");
  });
});

describe("reconciler and a busy account's offers", () => {
  it("GIVEN a lost offer of alice's that stands, with 210 newer offers on her own listings before it (past the 5 pages of 40 read) WHEN reconciling past the settle delay THEN it stays held as unknown and is counted page-limited, never settled as 'no offer was made'", async () => {
    const aliceApi = w.market.forKey(w.demo("alice").apiKey);
    const target = w.sandbox.control.createListing({
      type: "buy_now",
      price: 2_000,
      max_offer_discount: 2_000,
    });
    await aliceApi.createOffer({ contract_id: target.id, price: 1_800 });
    keys += 1;
    const reserved = await reserveSpend(w.db.prisma, {
      userId: aliceId,
      idempotencyKey: `lost-offer-${keys}`,
      kind: "offer",
      subjectId: target.id,
      totalCents: 1_800,
    });
    if (!reserved.ok) throw new Error(`reservation refused: ${reserved.reason}`);
    await settlePurchase(w.db.prisma, reserved.purchase.id, { status: "unknown", error: "timeout" });
    await w.db.prisma.purchase.update({
      where: { id: reserved.purchase.id },
      data: { createdAt: minutesAgo(10) },
    });
    const own = w.sandbox.control.createListings(210, {
      type: "buy_now",
      price: 1_000,
      max_offer_discount: 2_000,
      sellerPlatformId: w.demo("alice").platformId,
    });
    for (const l of own) w.sandbox.control.makeOffer(l.id, 900);

    const result = await engine.runReconcileOnce();

    expect(await statusOf(reserved.purchase.id)).toBe("unknown");
    expect(result.pageLimited).toBeGreaterThanOrEqual(1);
  });
});

// Buying against the real sandbox and a real database: quotes, price changes, sold listings,
// idempotent confirmation, spend caps under concurrency, and lost answers resolved by reading back.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getPurchaseByKey, listRecentPurchases } from "../../src/db/repos/purchases.ts";
import { UserFacingError } from "../../src/errors.ts";
import type { MarketApi } from "../../src/market/client.ts";
import { confirmBuy, prepareBuy } from "../../src/trading/buy.ts";
import { reprice } from "../../src/trading/selling.ts";
import { rejection, startTradingWorld, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

const BUY = "POST /listings/buy";
let keyCounter = 0;
const newKey = () => `confirm-${process.pid}-${++keyCounter}`;

function listing(price: number, extra: { sellerPlatformId?: string; type?: "buy_now" | "auction" } = {}) {
  return world.sandbox.control.createListing({ price, ...extra });
}

async function buyerTrades(market: MarketApi, listingId: string) {
  const page = await market.getMyTrades({ role: "buyer", limit: 50 });
  return page.trades.filter((t) => t.contract_id === listingId);
}

describe("prepareBuy", () => {
  it("GIVEN a listed buy-now listing WHEN quoted THEN the quote carries its price, item and the user's caps", async () => {
    const buyer = await world.trader({ perPurchaseCapCents: 50_000, dailyCapCents: 100_000 });
    const l = listing(1_234);

    const quote = await prepareBuy(buyer.deps, { userId: buyer.userId, listingId: l.id });

    expect(quote).toMatchObject({
      listingId: l.id,
      priceCents: 1_234,
      itemName: l.item.market_hash_name,
      state: "listed",
      isSeller: false,
      perPurchaseCapCents: 50_000,
      dailyCapCents: 100_000,
      spentTodayCents: 0,
    });
  });

  it("GIVEN an auction, a sold listing or the user's own listing WHEN quoted THEN each is refused with its own code", async () => {
    const buyer = await world.trader();
    const auction = listing(500, { type: "auction" });
    const sold = listing(500);
    world.sandbox.control.sellToBuyer(sold.id);
    const own = listing(500, { sellerPlatformId: buyer.platformId });

    const onAuction = await rejection(() =>
      prepareBuy(buyer.deps, { userId: buyer.userId, listingId: auction.id }),
    );
    const onSold = await rejection(() =>
      prepareBuy(buyer.deps, { userId: buyer.userId, listingId: sold.id }),
    );
    const onOwn = await rejection(() => prepareBuy(buyer.deps, { userId: buyer.userId, listingId: own.id }));

    expect(onAuction).toBeInstanceOf(UserFacingError);
    expect(onAuction).toMatchObject({ code: "invalid_input" });
    expect((onAuction as UserFacingError).userMessage).toContain("/bid");
    expect(onSold).toMatchObject({ code: "already_sold" });
    expect(onOwn).toMatchObject({ code: "conflict" });
  });

  it("GIVEN a per-purchase cap below the price WHEN quoted THEN spend_cap names both amounts", async () => {
    const buyer = await world.trader({ perPurchaseCapCents: 1_000 });
    const l = listing(2_500);

    const error = await rejection(() => prepareBuy(buyer.deps, { userId: buyer.userId, listingId: l.id }));

    expect(error).toMatchObject({ code: "spend_cap" });
    expect((error as UserFacingError).userMessage).toContain("$25.00");
    expect((error as UserFacingError).userMessage).toContain("$10.00");
  });
});

describe("confirmBuy", () => {
  it("GIVEN a quote WHEN confirmed at the quoted price THEN the listing is bought once and the purchase recorded", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const l = listing(4_321);
    const quote = await prepareBuy(buyer.deps, { userId: buyer.userId, listingId: l.id });
    const key = newKey();

    const result = await confirmBuy(buyer.deps, {
      userId: buyer.userId,
      listingId: l.id,
      expectedPriceCents: quote.priceCents,
      idempotencyKey: key,
    });

    expect(result).toMatchObject({ bought: true, listingId: l.id, priceCents: 4_321 });
    expect(result.trade).toMatchObject({ listingId: l.id, state: "queued", buyerId: buyer.platformId });
    expect((await buyer.market.getListing(l.id)).state).toBe("sold");
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000 - 4_321);
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({
      status: "succeeded",
      totalCents: 4_321,
    });
  });

  it("GIVEN the seller repriced after the quote WHEN confirmed THEN price_changed with both prices and nothing is bought", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const seller = await world.trader();
    const l = listing(1_000, { sellerPlatformId: seller.platformId });
    const quote = await prepareBuy(buyer.deps, { userId: buyer.userId, listingId: l.id });
    await reprice(seller.deps, { listingId: l.id, priceCents: 1_500 });
    const buysBefore = world.hits(BUY);

    const error = await rejection(() =>
      confirmBuy(buyer.deps, {
        userId: buyer.userId,
        listingId: l.id,
        expectedPriceCents: quote.priceCents,
        idempotencyKey: newKey(),
      }),
    );

    expect(error).toMatchObject({ code: "price_changed" });
    expect((error as UserFacingError).userMessage).toBe(
      "The price changed from $10.00 to $15.00; nothing was bought. Run /buy again to see the new price.",
    );
    expect(world.hits(BUY)).toBe(buysBefore);
    expect((await buyer.market.getListing(l.id)).state).toBe("listed");
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000);
  });

  it("GIVEN a listing sold after the quote WHEN confirmed THEN already_sold and no purchase request is sent", async () => {
    const buyer = await world.trader();
    const l = listing(800);
    const quote = await prepareBuy(buyer.deps, { userId: buyer.userId, listingId: l.id });
    world.sandbox.control.sellToBuyer(l.id);
    const buysBefore = world.hits(BUY);

    const error = await rejection(() =>
      confirmBuy(buyer.deps, {
        userId: buyer.userId,
        listingId: l.id,
        expectedPriceCents: quote.priceCents,
        idempotencyKey: newKey(),
      }),
    );

    expect(error).toMatchObject({ code: "already_sold" });
    expect(world.hits(BUY)).toBe(buysBefore);
  });

  it("GIVEN two Confirm clicks at once with the same key WHEN both run THEN the listing is bought once and the other is told so", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const l = listing(3_000);
    const key = newKey();
    const buysBefore = world.hits(BUY);
    const input = { userId: buyer.userId, listingId: l.id, expectedPriceCents: 3_000, idempotencyKey: key };

    const outcomes = await Promise.allSettled([confirmBuy(buyer.deps, input), confirmBuy(buyer.deps, input)]);

    const bought = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(bought).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: "conflict" });
    expect((refused[0] as UserFacingError).userMessage).toMatch(/already being processed|Already bought/);
    expect(world.hits(BUY) - buysBefore).toBe(1);
    expect(await buyerTrades(buyer.market, l.id)).toHaveLength(1);
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000 - 3_000);
  });

  it("GIVEN a used key WHEN confirmed again later THEN it answers 'already bought' without buying", async () => {
    const buyer = await world.trader();
    const l = listing(700);
    const input = {
      userId: buyer.userId,
      listingId: l.id,
      expectedPriceCents: 700,
      idempotencyKey: newKey(),
    };
    await confirmBuy(buyer.deps, input);
    const buysBefore = world.hits(BUY);

    const error = await rejection(() => confirmBuy(buyer.deps, input));

    expect(error).toMatchObject({ code: "conflict" });
    expect((error as UserFacingError).userMessage).toContain("Already bought");
    expect(world.hits(BUY)).toBe(buysBefore);
  });

  it("GIVEN a daily cap for two purchases WHEN four confirms run at once THEN exactly two buy and two get spend_cap", async () => {
    const buyer = await world.trader({ balance: 100_000, dailyCapCents: 2_500 });
    const listings = [listing(1_000), listing(1_000), listing(1_000), listing(1_000)];

    const outcomes = await Promise.allSettled(
      listings.map((l) =>
        confirmBuy(buyer.deps, {
          userId: buyer.userId,
          listingId: l.id,
          expectedPriceCents: 1_000,
          idempotencyKey: newKey(),
        }),
      ),
    );

    const bought = outcomes.filter((o) => o.status === "fulfilled");
    const capped = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(bought).toHaveLength(2);
    expect(capped).toHaveLength(2);
    for (const e of capped) {
      expect(e).toMatchObject({ code: "spend_cap", context: { cap: 2_500, cap_kind: "daily" } });
      expect((e as UserFacingError).userMessage).toContain("$25.00 daily cap");
    }
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000 - 2_000);
    const purchases = await listRecentPurchases(world.db.prisma, buyer.userId);
    expect(purchases.map((p) => p.status).sort()).toEqual(["succeeded", "succeeded"]);
  });

  it("GIVEN a per-purchase cap WHEN a dearer listing is confirmed THEN spend_cap and nothing is sent or reserved", async () => {
    const buyer = await world.trader({ perPurchaseCapCents: 999 });
    const l = listing(1_000);
    const buysBefore = world.hits(BUY);

    const error = await rejection(() =>
      confirmBuy(buyer.deps, {
        userId: buyer.userId,
        listingId: l.id,
        expectedPriceCents: 1_000,
        idempotencyKey: newKey(),
      }),
    );

    expect(error).toMatchObject({ code: "spend_cap", context: { cap: 999, cap_kind: "per_purchase" } });
    expect((error as UserFacingError).userMessage).toContain("per-purchase cap of $9.99");
    expect(world.hits(BUY)).toBe(buysBefore);
    expect(await listRecentPurchases(world.db.prisma, buyer.userId)).toEqual([]);
  });
});

describe("confirmBuy when the purchase request gets no answer", () => {
  const TIMEOUT_MS = 400;

  it("GIVEN the purchase request hangs WHEN the client times out THEN it is not retried, the listing is read back and the outcome is unknown", async () => {
    const buyer = await world.trader({ balance: 100_000, dailyCapCents: 10_000 });
    const market = world.extraClient({ timeoutMs: TIMEOUT_MS }).forKey(buyer.apiKey);
    const l = listing(1_100);
    const key = newKey();
    world.sandbox.control.injectFault({ method: "POST", path: "/listings/buy", kind: "hang", times: 1 });
    const buysBefore = world.hits(BUY);
    const readsBefore = world.hits("GET /listings/{listing_id}");

    const error = await rejection(() =>
      confirmBuy(
        { ...buyer.deps, market },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 1_100, idempotencyKey: key },
      ),
    );

    expect(error).toMatchObject({ code: "unknown_outcome" });
    expect((error as UserFacingError).userMessage).toContain("check /trades list before trying again");
    expect(world.hits(BUY) - buysBefore).toBe(1);
    // One read before the purchase, one to resolve it.
    expect(world.hits("GET /listings/{listing_id}") - readsBefore).toBe(2);
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({
      status: "unknown",
      totalCents: 1_100,
    });
    // The unknown purchase still counts against the daily cap.
    const quote = await prepareBuy(buyer.deps, { userId: buyer.userId, listingId: listing(200).id });
    expect(quote.spentTodayCents).toBe(1_100);
  });

  it("GIVEN the purchase landed but its answer was lost WHEN the client times out THEN the trade confirms it was bought", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const market = world.extraClient({ timeoutMs: 2_000 }).forKey(buyer.apiKey);
    const l = listing(1_300);
    const key = newKey();
    world.sandbox.control.injectFault({ method: "POST", path: "/listings/buy", kind: "hang", times: 1 });
    const buysBefore = world.hits(BUY);

    const pending = confirmBuy(
      { ...buyer.deps, market },
      { userId: buyer.userId, listingId: l.id, expectedPriceCents: 1_300, idempotencyKey: key },
    );
    // While the bot's request hangs, the same purchase goes through (the "lost answer" case).
    await vi.waitFor(() => expect(world.hits(BUY) - buysBefore).toBe(1), { timeout: 1_500, interval: 10 });
    await buyer.market.buyListings({ contract_ids: [l.id], total_price: 1_300 });
    const result = await pending;

    expect(result).toMatchObject({ bought: true, listingId: l.id, priceCents: 1_300 });
    expect(result.trade).toMatchObject({ listingId: l.id, buyerId: buyer.platformId });
    expect(world.hits(BUY) - buysBefore).toBe(2);
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({ status: "succeeded" });
  });

  it("GIVEN someone else bought the listing while the request hung WHEN the client times out THEN the outcome stays unknown and counted (the reconciler settles it), never failed", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const market = world.extraClient({ timeoutMs: 2_000 }).forKey(buyer.apiKey);
    const l = listing(1_400);
    const key = newKey();
    world.sandbox.control.injectFault({ method: "POST", path: "/listings/buy", kind: "hang", times: 1 });
    const buysBefore = world.hits(BUY);

    const pending = rejection(() =>
      confirmBuy(
        { ...buyer.deps, market },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 1_400, idempotencyKey: key },
      ),
    );
    await vi.waitFor(() => expect(world.hits(BUY) - buysBefore).toBe(1), { timeout: 1_500, interval: 10 });
    world.sandbox.control.sellToBuyer(l.id);
    const error = await pending;

    expect(error).toMatchObject({ code: "unknown_outcome" });
    expect(world.hits(BUY) - buysBefore).toBe(1);
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({ status: "unknown" });
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000);
  });
});

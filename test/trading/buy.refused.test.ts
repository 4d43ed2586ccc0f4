// A purchase the marketplace refuses after the bot's last read (422: code 6 sold or stale, code 15
// the price changed), against the real sandbox and database: the user is told why, nothing is bought.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPurchaseByKey } from "../../src/db/repos/purchases.ts";
import type { UserFacingError } from "../../src/errors.ts";
import type { MarketApi } from "../../src/market/client.ts";
import { confirmBuy } from "../../src/trading/buy.ts";
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
const newKey = () => `refused-${process.pid}-${++keyCounter}`;

function listing(price: number, extra: { sellerPlatformId?: string } = {}) {
  return world.sandbox.control.createListing({ price, ...extra });
}

describe("confirmBuy when the marketplace refuses the purchase", () => {
  it("GIVEN the price changes between the re-read and the purchase WHEN the service refuses the stale total THEN price_changed and the purchase is recorded failed", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const seller = await world.trader();
    const l = listing(2_000, { sellerPlatformId: seller.platformId });
    const key = newKey();
    // The real client, with the seller's reprice slipped in just before the purchase request.
    const racing: MarketApi = {
      ...buyer.market,
      buyListings: async (body) => {
        await reprice(seller.deps, { listingId: l.id, priceCents: 2_200 });
        return buyer.market.buyListings(body);
      },
    };

    const error = await rejection(() =>
      confirmBuy(
        { ...buyer.deps, market: racing },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 2_000, idempotencyKey: key },
      ),
    );

    expect(error).toMatchObject({ code: "price_changed", context: { expected: 2_000, actual: 2_200 } });
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({ status: "failed" });
    expect((await buyer.market.getListing(l.id)).state).toBe("listed");
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000);
  });

  const refusals = () => world.sandbox.control.stats().routes[BUY]?.byStatus["422"] ?? 0;

  it("GIVEN the listing sells between the re-read and the purchase WHEN the service answers 422 (code 6) THEN already_sold says it sold and the purchase is recorded failed", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const l = listing(1_800);
    const key = newKey();
    const racing: MarketApi = {
      ...buyer.market,
      buyListings: async (body) => {
        world.sandbox.control.sellToBuyer(l.id);
        return buyer.market.buyListings(body);
      },
    };
    const refusedBefore = refusals();

    const error = await rejection(() =>
      confirmBuy(
        { ...buyer.deps, market: racing },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 1_800, idempotencyKey: key },
      ),
    );

    expect(refusals()).toBe(refusedBefore + 1);
    expect(error).toMatchObject({ code: "already_sold" });
    expect((error as UserFacingError).userMessage).toBe(
      "This listing has already been sold; nothing was bought.",
    );
    expect(await getPurchaseByKey(world.db.prisma, key)).toMatchObject({ status: "failed" });
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000);
  });

  it("GIVEN the seller delists between the re-read and the purchase WHEN the service refuses THEN the user reads that it was delisted", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const seller = await world.trader();
    const l = listing(1_300, { sellerPlatformId: seller.platformId });
    const racing: MarketApi = {
      ...buyer.market,
      buyListings: async (body) => {
        await seller.market.deleteListing(l.id);
        return buyer.market.buyListings(body);
      },
    };
    const refusedBefore = refusals();

    const error = await rejection(() =>
      confirmBuy(
        { ...buyer.deps, market: racing },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 1_300, idempotencyKey: newKey() },
      ),
    );

    expect(refusals()).toBe(refusedBefore + 1);
    expect((error as UserFacingError).userMessage).toBe(
      "This listing is no longer for sale (delisted); nothing was bought.",
    );
    expect(world.sandbox.control.balance(buyer.platformId).balance).toBe(100_000);
  });

  it("GIVEN a price change refused with code 15 WHEN the listing cannot be read back THEN the refusal's code still says the price changed", async () => {
    const buyer = await world.trader({ balance: 100_000 });
    const seller = await world.trader();
    const l = listing(2_500, { sellerPlatformId: seller.platformId });
    let bought = false;
    const racing: MarketApi = {
      ...buyer.market,
      buyListings: async (body) => {
        await reprice(seller.deps, { listingId: l.id, priceCents: 2_700 });
        bought = true;
        return buyer.market.buyListings(body);
      },
      // Readable for the confirmation's re-read, not after the refusal.
      getListing: async (id) => {
        if (bought) throw new Error("listing unreadable");
        return buyer.market.getListing(id);
      },
    };

    const error = await rejection(() =>
      confirmBuy(
        { ...buyer.deps, market: racing },
        { userId: buyer.userId, listingId: l.id, expectedPriceCents: 2_500, idempotencyKey: newKey() },
      ),
    );

    expect(error).toMatchObject({ code: "price_changed", context: { code: 15 } });
    expect((error as UserFacingError).userMessage).toContain(
      "The price changed before the purchase went through",
    );
    expect((await buyer.market.getListing(l.id)).price).toBe(2_700);
  });
});

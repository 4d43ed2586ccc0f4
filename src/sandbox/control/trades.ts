// Control over sales and trades: a synthetic buyer buys, a seller's asset is sold, a trade is reversed, the seller fee.
import { badRequest, ErrorCode, notFound } from "../errors.ts";
import { makeAsset, modelPrice } from "../factory.ts";
import { completeSale, createListing, listingOf } from "../listings.ts";
import { tradeJson, type TradeJson } from "../render/index.ts";
import type { World } from "../seed.ts";
import type { Store } from "../state/index.ts";
import { reverseTrade } from "../trades.ts";

export interface TradeControl {
  /** A synthetic buyer buys a listed buy-now listing: a queued trade waits on its seller. */
  sellToBuyer(listingId: string): TradeJson;
  /** Lists one of the seller's assets and sells it to a synthetic buyer: a trade waiting on them. */
  createSaleForSeller(platformId: string): TradeJson;
  /** Alias of createSaleForSeller (the name in docs/architecture.md). */
  createSaleOf(platformId: string): TradeJson;
  /**
   * The item's sender reverses a verified trade within its protection window: `rollback` ledger
   * entries take the seller's proceeds back and refund the buyer (src/sandbox/trades.ts).
   */
  reverseTrade(tradeId: string, reason?: string): TradeJson;
  /** Seller fee on every later sale, in basis points (0 to 10000; 200 = 2%). */
  setSellerFee(bps: number): void;
}

export function tradeControl(store: Store, world: World): TradeControl {
  const control: TradeControl = {
    sellToBuyer(listingId) {
      store.tick();
      const l = listingOf(store, listingId);
      if (l.state !== "listed") throw badRequest(`listing ${listingId} is ${l.state}`, ErrorCode.unavailable);
      if (l.type !== "buy_now")
        throw badRequest("only a buy_now listing can be sold this way; bid on auctions");
      const t = completeSale(store, l, world.marketBuyer.platformId, l.price, store.now());
      return tradeJson(store, t, l.sellerId);
    },

    createSaleForSeller(platformId) {
      store.tick();
      const seller = store.user(platformId);
      const asset = seller.inventory.values().next().value ?? makeAsset(store, seller, {});
      const l = createListing(
        store,
        seller,
        {
          assetId: asset.assetId,
          type: "buy_now",
          price: modelPrice(store, asset.item),
          reservePrice: undefined,
          durationMs: undefined,
          durationDays: undefined,
          maxOfferDiscount: undefined,
          description: undefined,
          private: undefined,
        },
        store.now(),
      );
      return control.sellToBuyer(l.id);
    },

    createSaleOf: (platformId) => control.createSaleForSeller(platformId),

    reverseTrade(tradeId, reason = "trade reversed by the sender") {
      store.tick();
      const t = store.trades.get(tradeId);
      if (!t) throw notFound("trade");
      reverseTrade(store, t, store.now(), reason);
      return tradeJson(store, t, t.sellerId);
    },

    setSellerFee(bps) {
      if (!Number.isInteger(bps) || bps < 0 || bps > 10_000)
        throw badRequest("sellerFeeBps must be an integer from 0 to 10000");
      store.sellerFeeBps = bps;
    },
  };
  return control;
}

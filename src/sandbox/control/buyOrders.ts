// Control over buy orders: a website order (filter expression), a synthetic rival's order, filling an order.
import { createBuyOrder, isOpen, ownOrder } from "../buyOrders.ts";
import { badRequest, ErrorCode, notFound } from "../errors.ts";
import { makeAsset } from "../factory.ts";
import { MoneyField } from "../http.ts";
import { completeSale, createListing } from "../listings.ts";
import { buyOrderJson, type BuyOrderJson } from "../render/index.ts";
import type { World } from "../seed.ts";
import type { Store, UserRec } from "../state/index.ts";

export interface BuyOrderControl {
  /**
   * A buy order as made on the marketplace's website: a filter expression and no
   * market_hash_name in what the API sends (docs/live-service.md, "Buy orders").
   */
  createWebsiteBuyOrder(input: {
    platformId: string;
    marketHashName: string;
    maxPrice: number;
    quantity?: number;
    maxFloat?: number;
  }): BuyOrderJson;
  /**
   * A synthetic rival's buy order (what a buy-order guard answers): by the market buyer, for the
   * item and float range given.
   */
  createRivalBuyOrder(input: {
    marketHashName: string;
    maxPrice: number;
    quantity?: number;
    minFloat?: number;
    maxFloat?: number;
  }): BuyOrderJson;
  /** n items are bought for the order (default 1): bought_item_count rises, trades queue for its owner. */
  fillBuyOrder(orderId: string, n?: number): BuyOrderJson;
}

export function buyOrderControl(store: Store, world: World): BuyOrderControl {
  return {
    createWebsiteBuyOrder(input) {
      store.tick();
      const owner = store.user(input.platformId);
      const name = input.marketHashName.replace(/["\\]/g, "");
      const expression =
        input.maxFloat === undefined
          ? `(== Item "${name}")`
          : `(and (== Item "${name}") (< FloatValue ${input.maxFloat}))`;
      const o = createBuyOrder(
        store,
        owner,
        {
          marketHashName: input.marketHashName,
          maxPrice: input.maxPrice,
          quantity: input.quantity ?? 1,
          hybrid: input.maxFloat === undefined ? {} : { max_float: input.maxFloat },
          expression,
        },
        store.now(),
      );
      return buyOrderJson(o);
    },

    createRivalBuyOrder(input) {
      store.tick();
      const o = createBuyOrder(
        store,
        world.marketBuyer,
        {
          marketHashName: input.marketHashName,
          maxPrice: MoneyField.min(3).parse(input.maxPrice),
          quantity: input.quantity ?? 1,
          hybrid: {
            ...(input.minFloat === undefined ? {} : { min_float: input.minFloat }),
            ...(input.maxFloat === undefined ? {} : { max_float: input.maxFloat }),
          },
        },
        store.now(),
      );
      return buyOrderJson(o);
    },

    fillBuyOrder(orderId, n = 1) {
      store.tick();
      const o = store.buyOrders.get(orderId);
      if (!o) throw notFound("buy order");
      const owner = store.user(o.userId);
      const seller = world.sellers.find((s) => s.autoAcceptMs !== undefined) ?? (world.sellers[0] as UserRec);
      for (let i = 0; i < n && isOpen(o); i++) {
        if (owner.balance < o.price) throw badRequest("insufficient balance", ErrorCode.insufficientBalance);
        const h = o.hybrid;
        const lo = h.min_float ?? 0;
        const hi = h.max_float ?? 1;
        const asset = makeAsset(store, seller, {
          marketHashName: o.marketHashName,
          floatValue:
            h.min_float !== undefined || h.max_float !== undefined
              ? Math.round(((lo + hi) / 2) * 1e6) / 1e6
              : undefined,
          paintIndex: h.paint_index,
          paintSeed: h.paint_seeds?.[0],
          stickers: h.applied_stickers?.map((s, slot) => ({ stickerId: s.sId, slot })),
          keychains: h.applied_keychains?.map((k) => ({
            stickerId: k.sId,
            pattern: h.min_keychain_pattern ?? h.max_keychain_pattern,
          })),
        });
        const l = createListing(
          store,
          seller,
          {
            assetId: asset.assetId,
            type: "buy_now",
            price: o.price,
            reservePrice: undefined,
            durationMs: undefined,
            durationDays: undefined,
            maxOfferDiscount: 0,
            description: undefined,
            private: true,
          },
          store.now(),
        );
        completeSale(store, l, owner.platformId, o.price, store.now());
        o.bought += 1;
      }
      return buyOrderJson(ownOrder(store, owner, orderId));
    },
  };
}

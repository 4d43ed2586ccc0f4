// The control surface: drive the sandbox from tests, benchmarks and the playground (methods and /_control HTTP).
import { z } from "zod";
import { createBuyOrder, isOpen, ownOrder } from "./buyOrders.ts";
import { catalogItems } from "./catalog.ts";
import { badRequest, ErrorCode, notFound } from "./errors.ts";
import { makeAsset, makeUser, modelPrice, type ItemSpec } from "./factory.ts";
import { FaultBook, FaultSpec } from "./faults.ts";
import { IdField, MoneyField, ok, parseBody, Router } from "./http.ts";
import { completeSale, createListing, listingOf, placeBid } from "./listings.ts";
import { acceptOffer, createOffer, declineOffer } from "./offers.ts";
import { reverseTrade } from "./trades.ts";
import {
  bidJson,
  buyOrderJson,
  iso,
  listingJson,
  offerJson,
  tradeJson,
  type BidJson,
  type BuyOrderJson,
  type ListingJson,
  type OfferJson,
  type TradeJson,
} from "./render.ts";
import type { DemoUser, World } from "./seed.ts";
import { DAY, type Store, type UserRec } from "./state.ts";
import type { Stats } from "./stats.ts";

const StickerPin = z.union([
  z.number().int().nonnegative(),
  z.object({
    stickerId: z.number().int().nonnegative(),
    slot: z.number().int().min(0).max(5).optional(),
    /** 0 = fresh, 1 = scraped off (drawn when absent). */
    wear: z.number().min(0).max(1).optional(),
  }),
]);
const KeychainPin = z.union([
  z.number().int().nonnegative(),
  z.object({ stickerId: z.number().int().nonnegative(), pattern: z.number().int().nonnegative().optional() }),
]);

export const ListingTemplate = z.object({
  sellerPlatformId: IdField.optional(),
  market_hash_name: z.string().min(1).optional(),
  price: MoneyField.min(3).optional(),
  type: z.enum(["buy_now", "auction"]).optional(),
  float_value: z.number().min(0).max(1).optional(),
  paint_seed: z.number().int().min(0).max(1000).optional(),
  paint_index: z.number().int().nonnegative().optional(),
  def_index: z.number().int().nonnegative().optional(),
  stickers: z.array(StickerPin).max(5).optional(),
  keychains: z.array(KeychainPin).max(1).optional(),
  /** Sets the reference (predicted and base price) of the item's name; null removes it. */
  reference_price: MoneyField.nullable().optional(),
  reference_quantity: z.number().int().nonnegative().optional(),
  is_statcounter: z.boolean().optional(),
  is_souvenir: z.boolean().optional(),
  /** Spec 2.3 item.fade: percentage, rank; its seed is the item's paint seed. */
  fade: z
    .object({
      percentage: z.number().min(0).max(100),
      rank: z.number().int().min(1).optional(),
      type: z.string().optional(),
    })
    .optional(),
  /** Spec 2.3 item.blue_gem, e.g. { playside_blue: 74.2, backside_blue: 40.1 }. */
  blue_gem: z.record(z.string(), z.number().min(0).max(100)).optional(),
  /** Spec 2.3 item.low_rank (1 = lowest float of its kind); drawn from the float when absent. */
  low_rank: z.number().int().min(1).optional(),
  auction_duration_ms: z.number().int().positive().optional(),
  reserve_price: MoneyField.min(3).optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  description: z.string().max(180).optional(),
  private: z.boolean().optional(),
});
export type ListingTemplate = z.input<typeof ListingTemplate>;

export interface UserInfo extends DemoUser {
  kind: UserRec["kind"];
  balance: number;
  pending: number;
  revoked: boolean;
  stallPublic: boolean;
}

export interface InventoryAsset {
  asset_id: string;
  market_hash_name: string;
  float_value: number;
  paint_seed: number;
}

export interface SandboxControl {
  /** Sandbox clock (ms since epoch): real time plus every advanceClock. */
  now(): number;
  /** Moves the sandbox clock forward; due expiries and settlements run at once. Returns the new now. */
  advanceClock(ms: number): number;
  createListing(template?: ListingTemplate): ListingJson;
  createListings(n: number, template?: ListingTemplate): ListingJson[];
  /**
   * A listing whose item fields have the odd types some live answers carry (sticker_index as a
   * string, nulls inside blue_gem and fade, a sticker without wear): readable, and matchable.
   */
  createOddListing(template?: ListingTemplate): ListingJson;
  /** A listing no client can read (its price is "abc"), among the normal ones of GET /listings. */
  createUnreadableListing(template?: ListingTemplate): { id: string };
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
  /** A synthetic rival bids up to maxPrice (proxy rules apply). */
  placeCompetingBid(listingId: string, maxPrice: number): BidJson;
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
  /** n items are bought for the order (default 1): bought_item_count rises, trades queue for its owner. */
  fillBuyOrder(orderId: string, n?: number): BuyOrderJson;
  /** A synthetic buyer makes an offer on a listing. */
  makeOffer(listingId: string, price: number): OfferJson;
  /** The party that did not write the offer accepts or declines it. */
  respondToOffer(offerId: string, action: "accept" | "decline"): OfferJson;
  injectFault(spec: FaultSpec): { id: number };
  clearFaults(): void;
  revokeKey(apiKey: string): void;
  createUser(input: { name: string; balance?: number }): DemoUser;
  users(): UserInfo[];
  /** Asset ids the user can list. */
  inventory(platformId: string): string[];
  inventoryDetails(platformId: string): InventoryAsset[];
  setBalance(platformId: string, cents: number): void;
  balance(platformId: string): { balance: number; pending: number };
  stats(): Stats;
  resetStats(): void;
}

export function createControl(
  store: Store,
  world: World,
  faults: FaultBook,
  stats: { snapshot(): Stats; reset(): void },
): SandboxControl {
  const rng = store.rng;
  let userCounter = 0;

  const syntheticBidder = (exclude: string | undefined): UserRec => {
    for (const u of store.users.values()) {
      if (u.kind === "synthetic" && u.name.startsWith("rival_bidder_") && u.platformId !== exclude) return u;
    }
    throw new Error("no synthetic bidder");
  };

  const control: SandboxControl = {
    now: () => store.now(),

    advanceClock(ms) {
      if (!Number.isFinite(ms) || ms < 0)
        throw badRequest("advanceMs must be a non-negative number of milliseconds");
      return store.advance(ms);
    },

    createListing(input = {}) {
      store.tick();
      const t = ListingTemplate.parse(input);
      const seller =
        t.sellerPlatformId !== undefined ? store.user(t.sellerPlatformId) : rng.pick(world.sellers);
      const spec: ItemSpec = {
        marketHashName: t.market_hash_name,
        defIndex: t.def_index,
        paintIndex: t.paint_index,
        floatValue: t.float_value,
        paintSeed: t.paint_seed,
        statcounter: t.is_statcounter,
        souvenir: t.is_souvenir,
        stickers: t.stickers?.map((s, i) => (typeof s === "number" ? { stickerId: s, slot: i } : s)),
        keychains: t.keychains?.map((k) => (typeof k === "number" ? { stickerId: k } : k)),
        fade: t.fade,
        blueGem: t.blue_gem,
        lowRank: t.low_rank,
      };
      const asset = makeAsset(store, seller, spec);
      const name = asset.item.marketHashName;
      if (t.reference_price === null) store.references.delete(name);
      else if (t.reference_price !== undefined) {
        store.references.set(name, {
          basePrice: t.reference_price,
          predictedPrice: t.reference_price,
          quantity: t.reference_quantity ?? 50,
          lastUpdated: store.now(),
        });
      }
      const price = t.price ?? Math.max(3, Math.round(modelPrice(store, asset.item) * rng.float(0.8, 1.1)));
      const type = t.type ?? "buy_now";
      const l = createListing(
        store,
        seller,
        {
          assetId: asset.assetId,
          type,
          price,
          reservePrice: t.reserve_price ?? price,
          durationMs: type === "auction" ? (t.auction_duration_ms ?? DAY) : undefined,
          durationDays: undefined,
          maxOfferDiscount: t.max_offer_discount,
          description: t.description,
          private: t.private,
        },
        store.now(),
      );
      return listingJson(store, l);
    },

    createOddListing(template = {}) {
      const json = control.createListing(template);
      const l = store.listings.get(json.id);
      if (l) l.quirk = "odd";
      return l ? listingJson(store, l) : json;
    },

    createUnreadableListing(template = {}) {
      const json = control.createListing(template);
      const l = store.listings.get(json.id);
      if (l) l.quirk = "unreadable";
      return { id: json.id };
    },

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

    createListings(n, template) {
      if (!Number.isInteger(n) || n < 0 || n > 100_000)
        throw badRequest("n must be an integer from 0 to 100000");
      return Array.from({ length: n }, () => control.createListing(template));
    },

    placeCompetingBid(listingId, maxPrice) {
      store.tick();
      const l = listingOf(store, listingId);
      const bidder = syntheticBidder(l.auction?.leader?.userId);
      return bidJson(store, placeBid(store, bidder, listingId, maxPrice, store.now()));
    },

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

    makeOffer(listingId, price) {
      store.tick();
      const o = createOffer(
        store,
        world.marketBuyer,
        { contractId: listingId, price, cancelPrevious: true },
        store.now(),
      );
      return offerJson(store, o);
    },

    respondToOffer(offerId, action) {
      store.tick();
      const o = store.offers.get(offerId);
      if (!o) throw notFound("offer");
      if (action === "accept") acceptOffer(store, o, store.now());
      else declineOffer(o);
      return offerJson(store, o);
    },

    injectFault: (spec) => ({ id: faults.add(spec).id }),
    clearFaults: () => faults.clear(),

    revokeKey(apiKey) {
      const u = store.usersByKey.get(apiKey);
      if (!u) throw notFound("API key");
      u.revoked = true;
    },

    createUser(input) {
      const name = z.string().min(1).max(40).parse(input.name);
      const balance = MoneyField.parse(input.balance ?? 0);
      userCounter += 1;
      const platformId = String(42420000000001000n + BigInt(store.users.size + userCounter));
      const apiKey = `sandbox-${name.replace(/[^a-z0-9]/gi, "").toLowerCase() || "user"}-key-${platformId}`;
      const u = makeUser(store, { name, platformId, apiKey, kind: "demo", balance, autoAcceptMs: undefined });
      for (let i = 0; i < 4; i++) makeAsset(store, u, {});
      return { name: u.name, platformId: u.platformId, apiKey: u.apiKey };
    },

    users: () =>
      [...store.users.values()].map((u) => ({
        name: u.name,
        platformId: u.platformId,
        apiKey: u.apiKey,
        kind: u.kind,
        balance: u.balance,
        pending: u.pending,
        revoked: u.revoked,
        stallPublic: u.stallPublic,
      })),

    inventory: (platformId) => [...store.user(platformId).inventory.keys()],

    inventoryDetails: (platformId) =>
      [...store.user(platformId).inventory.values()].map((a) => ({
        asset_id: a.assetId,
        market_hash_name: a.item.marketHashName,
        float_value: a.item.floatValue,
        paint_seed: a.item.paintSeed,
      })),

    setBalance(platformId, cents) {
      const amount = MoneyField.parse(cents);
      const u = store.user(platformId);
      const delta = amount - u.balance;
      if (delta !== 0) {
        store.post(u.platformId, delta > 0 ? "deposit" : "withdrawal", delta, 0, {
          reason: "sandbox control",
        });
      }
    },

    balance: (platformId) => {
      const u = store.user(platformId);
      return { balance: u.balance, pending: u.pending };
    },

    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
  };
  return control;
}

/** The same operations over HTTP under /_control (JSON in, JSON out). */
export function buildControlRouter(control: SandboxControl, faults: FaultBook): Router<never> {
  const r = new Router<never>();
  const clock = () => ({ now: control.now(), iso: iso(control.now()) });
  r.add("GET", "/", false, () =>
    ok({ routes: r.all().map((x) => `${x.method} /_control${x.template === "/" ? "" : x.template}`) }),
  );
  r.add("GET", "/clock", false, () => ok(clock()));
  r.add("POST", "/clock", false, (ctx) => {
    const b = parseBody(z.object({ advanceMs: z.number().int().nonnegative() }), ctx.body);
    control.advanceClock(b.advanceMs);
    return ok(clock());
  });
  r.add("GET", "/users", false, () => ok({ users: control.users() }));
  r.add("POST", "/users", false, (ctx) => {
    const b = parseBody(
      z.object({ name: z.string().min(1).max(40), balance: MoneyField.optional() }),
      ctx.body,
    );
    return ok(
      control.createUser(b.balance === undefined ? { name: b.name } : { name: b.name, balance: b.balance }),
    );
  });
  r.add("GET", "/catalog", false, () => ok({ items: catalogItems().map((c) => c.name) }));
  r.add("GET", "/users/{platform_id}/inventory", false, (ctx) => {
    const id = ctx.params["platform_id"] as string;
    return ok({ asset_ids: control.inventory(id), assets: control.inventoryDetails(id) });
  });
  r.add("POST", "/users/{platform_id}/balance", false, (ctx) => {
    const b = parseBody(z.object({ balance: MoneyField }), ctx.body);
    const id = ctx.params["platform_id"] as string;
    control.setBalance(id, b.balance);
    return ok(control.balance(id));
  });
  r.add("POST", "/listings/odd", false, (ctx) =>
    ok(control.createOddListing(parseBody(ListingTemplate, ctx.body ?? {}))),
  );
  r.add("POST", "/listings/unreadable", false, (ctx) =>
    ok(control.createUnreadableListing(parseBody(ListingTemplate, ctx.body ?? {}))),
  );
  r.add("POST", "/buy-orders/website", false, (ctx) => {
    const b = parseBody(
      z.object({
        platformId: IdField,
        marketHashName: z.string().min(1).max(200),
        maxPrice: MoneyField,
        quantity: z.number().int().min(1).max(10_000).optional(),
        maxFloat: z.number().min(0).max(1).optional(),
      }),
      ctx.body,
    );
    return ok(
      control.createWebsiteBuyOrder({
        platformId: b.platformId,
        marketHashName: b.marketHashName,
        maxPrice: b.maxPrice,
        ...(b.quantity === undefined ? {} : { quantity: b.quantity }),
        ...(b.maxFloat === undefined ? {} : { maxFloat: b.maxFloat }),
      }),
    );
  });
  r.add("POST", "/buy-orders/rival", false, (ctx) => {
    const b = parseBody(
      z.object({
        marketHashName: z.string().min(1).max(200),
        maxPrice: MoneyField.min(3),
        quantity: z.number().int().min(1).max(10_000).optional(),
        minFloat: z.number().min(0).max(1).optional(),
        maxFloat: z.number().min(0).max(1).optional(),
      }),
      ctx.body,
    );
    return ok(
      control.createRivalBuyOrder({
        marketHashName: b.marketHashName,
        maxPrice: b.maxPrice,
        ...(b.quantity === undefined ? {} : { quantity: b.quantity }),
        ...(b.minFloat === undefined ? {} : { minFloat: b.minFloat }),
        ...(b.maxFloat === undefined ? {} : { maxFloat: b.maxFloat }),
      }),
    );
  });
  r.add("POST", "/listings", false, (ctx) => {
    const b = parseBody(
      ListingTemplate.extend({ count: z.number().int().min(1).max(100_000).optional() }),
      ctx.body,
    );
    const { count, ...template } = b;
    return count === undefined
      ? ok(control.createListing(template))
      : ok({ data: control.createListings(count, template) });
  });
  r.add("POST", "/bids", false, (ctx) => {
    const b = parseBody(z.object({ listingId: IdField, maxPrice: MoneyField }), ctx.body);
    return ok(control.placeCompetingBid(b.listingId, b.maxPrice));
  });
  r.add("POST", "/sales", false, (ctx) => {
    const b = parseBody(
      z
        .object({ listingId: IdField.optional(), sellerPlatformId: IdField.optional() })
        .refine(
          (x) => (x.listingId === undefined) !== (x.sellerPlatformId === undefined),
          "give listingId or sellerPlatformId",
        ),
      ctx.body,
    );
    return ok(
      b.listingId !== undefined
        ? control.sellToBuyer(b.listingId)
        : control.createSaleForSeller(b.sellerPlatformId as string),
    );
  });
  r.add("POST", "/trades/{trade_id}/reverse", false, (ctx) => {
    const b = parseBody(z.object({ reason: z.string().min(1).max(200).optional() }), ctx.body ?? {});
    return ok(control.reverseTrade(ctx.params["trade_id"] as string, b.reason));
  });
  r.add("POST", "/fees", false, (ctx) => {
    const b = parseBody(z.object({ sellerFeeBps: z.number().int().min(0).max(10_000) }), ctx.body);
    control.setSellerFee(b.sellerFeeBps);
    return ok({ sellerFeeBps: b.sellerFeeBps });
  });
  r.add("POST", "/buy-orders/{order_id}/fill", false, (ctx) => {
    const b = parseBody(z.object({ n: z.number().int().min(1).max(1000).optional() }), ctx.body);
    return ok(control.fillBuyOrder(ctx.params["order_id"] as string, b.n ?? 1));
  });
  r.add("POST", "/offers", false, (ctx) => {
    const b = parseBody(z.object({ listingId: IdField, price: MoneyField }), ctx.body);
    return ok(control.makeOffer(b.listingId, b.price));
  });
  r.add("POST", "/offers/{offer_id}/respond", false, (ctx) => {
    const b = parseBody(z.object({ action: z.enum(["accept", "decline"]) }), ctx.body);
    return ok(control.respondToOffer(ctx.params["offer_id"] as string, b.action));
  });
  r.add("GET", "/faults", false, () =>
    ok({
      faults: faults
        .list()
        .map((f) => ({ id: f.id, ...f.spec, remaining: f.remaining === Infinity ? null : f.remaining })),
    }),
  );
  r.add("POST", "/faults", false, (ctx) => ok(control.injectFault(parseBody(FaultSpec, ctx.body))));
  r.add("DELETE", "/faults", false, () => {
    control.clearFaults();
    return ok({ message: "faults cleared" });
  });
  r.add("POST", "/keys/revoke", false, (ctx) => {
    const b = parseBody(z.object({ apiKey: z.string().min(1) }), ctx.body);
    control.revokeKey(b.apiKey);
    return ok({ message: "key revoked" });
  });
  r.add("GET", "/stats", false, () => ok(control.stats()));
  r.add("DELETE", "/stats", false, () => {
    control.resetStats();
    return ok({ message: "stats reset" });
  });
  return r;
}

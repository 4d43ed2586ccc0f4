// The spec's routes under /api/v1 (33 endpoints, plus DELETE /buy-orders/{id} and GET /me as live).
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  aggregate,
  createBuyOrder,
  deleteBuyOrder,
  myBuyOrders,
  normalizeHybrid,
  orderPrices,
  ordersForItem,
  similarOrders,
  updateBuyOrder,
} from "./buyOrders.ts";
import { badRequest, ErrorCode, notFound, unauthorized } from "./errors.ts";
import {
  IdField,
  MoneyField,
  ok,
  parseBody,
  qEnum,
  qInt,
  qLimit,
  qNumber,
  qPage,
  qString,
  Router,
  type Reply,
  type RequestContext,
} from "./http.ts";
import {
  buyListings,
  createListing,
  delist,
  listingOf,
  placeBid,
  unwatch,
  updateListing,
  validateDelist,
  validateNewListing,
  validatePatch,
  watch,
  type NewListing,
} from "./listings.ts";
import {
  historyGraph,
  historySales,
  parseStickerSelectors,
  searchListings,
  similar,
  stall,
  watchlist,
  SORTS,
} from "./market.ts";
import { counterOffer, createOffer, offersTimeline } from "./offers.ts";
import {
  bidJson,
  bidReceiptJson,
  buyOrderJson,
  listingJson,
  offerJson,
  tradeJson,
  transactionJson,
  userSummary,
} from "./render.ts";
import type { Store, UserRec } from "./state.ts";
import { acceptTrade, cancelTrade, isCancellable, myTrades } from "./trades.ts";

type Ctx = RequestContext<UserRec>;

const TX_TYPES = [
  "deposit",
  "withdrawal",
  "fine",
  "bid_posted",
  "trade_verified",
  "contract_purchased",
  "contract_sold",
  "contract_purchase_refund",
  "contract_sale_refund",
  "rollback",
] as const;

const TRADE_STATES = ["queued", "pending", "verified", "failed", "cancelled"] as const;

/** Largest batch a bulk operation takes (spec: not shown). */
const MAX_BATCH = 100;

const NewListingBody = z.object({
  asset_id: z.string().min(1),
  type: z.enum(["buy_now", "auction"]).default("buy_now"),
  price: MoneyField.optional(),
  reserve_price: MoneyField.optional(),
  duration_days: z.number().int().optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  description: z.string().max(180).optional(),
  private: z.boolean().optional(),
});

const PatchFields = {
  price: MoneyField.optional(),
  description: z.string().max(180).optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  private: z.boolean().optional(),
};
const ListingPatchBody = z
  .object(PatchFields)
  .refine((p) => Object.values(p).some((v) => v !== undefined), "at least one property is required");

const IdList = z.array(IdField).min(1).max(MAX_BATCH);

const StickerRef = z.object({ sId: z.number().int() });
const HybridFields = {
  min_float: z.number().min(0).max(1).nullish(),
  max_float: z.number().min(0).max(1).nullish(),
  paint_index: z.number().int().nonnegative().nullish(),
  paint_seeds: z.array(z.number().int().min(0).max(1000)).nullish(),
  applied_stickers: z.array(StickerRef).nullish(),
  applied_keychains: z.array(StickerRef).nullish(),
  min_keychain_pattern: z.number().int().nonnegative().nullish(),
  max_keychain_pattern: z.number().int().nonnegative().nullish(),
};
const Hybrid = z.object(HybridFields);
const Quantity = z.number().int().min(1).max(10_000);

function toNewListing(b: z.infer<typeof NewListingBody>): NewListing {
  return {
    assetId: b.asset_id,
    type: b.type,
    price: b.price,
    reservePrice: b.reserve_price,
    durationMs: undefined,
    durationDays: b.duration_days,
    maxOfferDiscount: b.max_offer_discount,
    description: b.description,
    private: b.private,
  };
}

function need(ctx: Ctx): UserRec {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

/** A strong ETag over the JSON body, for conditional GETs. */
function etagOf(body: unknown): string {
  return `"${createHash("sha1").update(JSON.stringify(body)).digest("base64url").slice(0, 22)}"`;
}

function conditional(ctx: Ctx, body: unknown): Reply {
  const tag = etagOf(body);
  const header = ctx.headers["if-none-match"];
  const tags = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""));
  if (tags.includes(tag) || tags.includes("*")) return { status: 304, headers: { ETag: tag } };
  return ok(body, { ETag: tag });
}

export function buildApiRouter(store: Store): Router<UserRec> {
  const r = new Router<UserRec>();
  const now = (): number => store.now();
  const viewer = (ctx: Ctx): string | undefined => ctx.user?.platformId;
  /** Ids named in a bulk body: an unknown one makes the whole request a 400, not a 404. */
  const known = (id: string): string => {
    if (!store.listings.has(id))
      throw badRequest(`listing ${id} does not exist; nothing was changed`, ErrorCode.notFound);
    return id;
  };

  // ---- 4.1 market data -------------------------------------------------------------
  r.add("GET", "/listings", false, (ctx) => {
    const q = ctx.query;
    const stickers = qString(q, "stickers");
    const userId = qString(q, "user_id");
    if (userId !== undefined && !/^\d+$/.test(userId)) throw badRequest("user_id must be a numeric string");
    const page = searchListings(
      store,
      {
        sortBy: qEnum(q, "sort_by", SORTS) ?? "best_deal",
        limit: qInt(q, "limit", { min: 1, max: 50 }) ?? 50,
        cursor: qString(q, "cursor"),
        category: qInt(q, "category", { min: 0, max: 3 }) ?? 0,
        defIndex: qInt(q, "def_index"),
        paintIndex: qInt(q, "paint_index"),
        paintSeed: qInt(q, "paint_seed"),
        rarity: qInt(q, "rarity"),
        minFloat: qNumber(q, "min_float", { min: 0, max: 1 }),
        maxFloat: qNumber(q, "max_float", { min: 0, max: 1 }),
        userId,
        collection: qString(q, "collection"),
        marketHashName: qString(q, "market_hash_name"),
        minPrice: qInt(q, "min_price", { min: 0 }),
        maxPrice: qInt(q, "max_price", { min: 0 }),
        type: qEnum(q, "type", ["buy_now", "auction"] as const),
        stickers: stickers === undefined ? undefined : parseStickerSelectors(stickers),
        minRefQty: qInt(q, "min_ref_qty", { min: 0 }),
      },
      viewer(ctx),
    );
    return ok(page);
  });

  r.add("GET", "/listings/{listing_id}", false, (ctx) =>
    ok(listingJson(store, listingOf(store, ctx.params["listing_id"] as string), viewer(ctx))),
  );

  r.add("GET", "/listings/{listing_id}/bids", false, (ctx) => {
    const l = listingOf(store, ctx.params["listing_id"] as string);
    return ok((l.auction?.bids ?? []).map((b) => bidJson(store, b)));
  });

  r.add("GET", "/listings/{listing_id}/similar", false, (ctx) =>
    ok(similar(store, listingOf(store, ctx.params["listing_id"] as string), viewer(ctx))),
  );

  r.add("GET", "/history/{market_hash_name}/graph", false, (ctx) =>
    ok(historyGraph(store, ctx.params["market_hash_name"] as string, qInt(ctx.query, "paint_index"))),
  );

  r.add("GET", "/history/{market_hash_name}/sales", false, (ctx) =>
    ok(historySales(store, ctx.params["market_hash_name"] as string, qInt(ctx.query, "paint_index"))),
  );

  r.add("GET", "/users/{platform_id}/stall", false, (ctx) => {
    const seller = store.users.get(ctx.params["platform_id"] as string);
    if (!seller || seller.kind === "synthetic") throw notFound("user");
    return ok(
      stall(
        store,
        seller,
        {
          cursor: qString(ctx.query, "cursor"),
          limit: qLimit(ctx.query, 40),
          filter: qEnum(ctx.query, "filter", ["unique", "sticker_combos"] as const),
        },
        viewer(ctx),
      ),
    );
  });

  // ---- 4.2 selling -----------------------------------------------------------------
  r.add("POST", "/listings", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(NewListingBody, ctx.body);
    return ok(listingJson(store, createListing(store, u, toNewListing(body), now()), u.platformId));
  });

  r.add("PATCH", "/listings/bulk-modify", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        modifications: z
          .array(z.object({ contract_id: IdField, ...PatchFields }))
          .min(1)
          .max(MAX_BATCH),
      }),
      ctx.body,
    );
    // All or nothing: every modification is checked before any is applied.
    for (const m of body.modifications) validatePatch(store, u, known(m.contract_id), m);
    const done = body.modifications.map((m) => updateListing(store, u, m.contract_id, m));
    return ok({ data: done.map((l) => listingJson(store, l, u.platformId)) });
  });

  r.add("PATCH", "/listings/bulk-delist", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ contract_ids: IdList }), ctx.body);
    if (new Set(body.contract_ids).size !== body.contract_ids.length)
      throw badRequest("contract_ids contains duplicates");
    for (const id of body.contract_ids) validateDelist(store, u, known(id));
    const at = now();
    const done = body.contract_ids.map((id) => delist(store, u, id, at));
    return ok({
      message: `${done.length} listing(s) delisted`,
      data: done.map((l) => listingJson(store, l, u.platformId)),
    });
  });

  r.add("PATCH", "/listings/{listing_id}", true, (ctx) => {
    const u = need(ctx);
    const patch = parseBody(ListingPatchBody, ctx.body);
    return ok(
      listingJson(store, updateListing(store, u, ctx.params["listing_id"] as string, patch), u.platformId),
    );
  });

  r.add("DELETE", "/listings/{listing_id}", true, (ctx) => {
    const u = need(ctx);
    const l = delist(store, u, ctx.params["listing_id"] as string, now());
    return ok({ message: "listing delisted", id: l.id, state: l.state });
  });

  r.add("POST", "/listings/bulk-list", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        items: z.array(NewListingBody).min(1).max(MAX_BATCH),
        notary_payload: z.unknown().optional(),
      }),
      ctx.body,
    );
    const inputs = body.items.map(toNewListing);
    if (new Set(inputs.map((i) => i.assetId)).size !== inputs.length)
      throw badRequest("items list an asset twice");
    for (const i of inputs) validateNewListing(u, i);
    const at = now();
    return ok({ data: inputs.map((i) => listingJson(store, createListing(store, u, i, at), u.platformId)) });
  });

  // ---- 4.3 buying ------------------------------------------------------------------
  r.add("POST", "/listings/buy", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ contract_ids: IdList, total_price: MoneyField }), ctx.body);
    const trades = buyListings(store, u, body.contract_ids, body.total_price, now());
    return ok({ data: trades.map((t) => tradeJson(store, t, u.platformId)) });
  });

  r.add("POST", "/listings/{listing_id}/bid", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ max_price: MoneyField }), ctx.body);
    const bid = placeBid(store, u, ctx.params["listing_id"] as string, body.max_price, now());
    return ok(bidReceiptJson(bid, body.max_price));
  });

  r.add("GET", "/listings/{listing_id}/buy-orders", false, (ctx) => {
    const l = listingOf(store, ctx.params["listing_id"] as string);
    return conditional(ctx, aggregate(ordersForItem(store, l.asset.item), qLimit(ctx.query, 10)));
  });

  r.add("GET", "/buy-orders/item", false, (ctx) => {
    const url = qString(ctx.query, "url");
    const name = qString(ctx.query, "market_hash_name");
    const sig = qString(ctx.query, "sig");
    const missing = [
      ["url", url],
      ["market_hash_name", name],
      ["sig", sig],
    ].filter(([, v]) => v === undefined);
    if (missing.length > 0) throw badRequest(`missing required query: ${missing.map(([k]) => k).join(", ")}`);
    const limit = qLimit(ctx.query, 3);
    const asset = store.assetsByInspect.get(url as string);
    if (asset && asset.item.gsSig !== sig) throw badRequest("sig does not match the inspect link");
    if (asset && asset.item.marketHashName !== name)
      throw badRequest("market_hash_name does not match the inspect link");
    const orders = asset
      ? ordersForItem(store, asset.item)
      : (store.buyOrdersByName.get(name as string) ?? []).filter((o) => o.bought < o.qty);
    return ok(orderPrices(orders, limit));
  });

  r.add("POST", "/buy-orders", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        market_hash_name: z.string().min(1).max(200),
        max_price: MoneyField.min(1),
        quantity: Quantity,
        hybrid_properties: Hybrid.nullish(),
      }),
      ctx.body,
    );
    const order = createBuyOrder(
      store,
      u,
      {
        marketHashName: body.market_hash_name,
        maxPrice: body.max_price,
        quantity: body.quantity,
        hybrid: normalizeHybrid(body.hybrid_properties ?? {}),
      },
      now(),
    );
    return ok(buyOrderJson(order));
  });

  r.add("POST", "/buy-orders/similar-orders", true, (ctx) => {
    need(ctx);
    const body = parseBody(
      z.object({ market_hash_name: z.string().min(1), hybrid_properties: Hybrid.nullish() }),
      ctx.body,
    );
    const hybrid = normalizeHybrid(body.hybrid_properties ?? {});
    return ok({
      data: aggregate(similarOrders(store, body.market_hash_name, hybrid), qLimit(ctx.query, 10)),
    });
  });

  r.add("PATCH", "/buy-orders/{order_id}", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({ max_price: MoneyField.min(1).optional(), quantity: Quantity.optional(), ...HybridFields }),
      ctx.body,
    );
    const order = updateBuyOrder(store, u, ctx.params["order_id"] as string, {
      maxPrice: body.max_price,
      quantity: body.quantity,
      hybrid: normalizeHybrid(body),
    });
    return ok(buyOrderJson(order));
  });

  r.add("DELETE", "/buy-orders/{order_id}", true, (ctx) => {
    const u = need(ctx);
    deleteBuyOrder(store, u, ctx.params["order_id"] as string);
    return ok({ message: "buy order removed" });
  });

  r.add("GET", "/me/buy-orders", true, (ctx) => {
    const u = need(ctx);
    return ok(
      myBuyOrders(store, u, {
        page: qPage(ctx.query),
        limit: qLimit(ctx.query, 50),
        order: qEnum(ctx.query, "order", ["asc", "desc"] as const) ?? "desc",
      }),
    );
  });

  // ---- 4.4 offers ------------------------------------------------------------------
  r.add("POST", "/offers", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        contract_id: IdField,
        price: MoneyField,
        cancel_previous_offer: z.boolean().default(false),
      }),
      ctx.body,
    );
    const offer = createOffer(
      store,
      u,
      { contractId: body.contract_id, price: body.price, cancelPrevious: body.cancel_previous_offer },
      now(),
    );
    return ok(offerJson(store, offer, u.platformId));
  });

  r.add("POST", "/offers/{offer_id}/counter-offer", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ price: MoneyField }), ctx.body);
    return ok(
      offerJson(
        store,
        counterOffer(store, u, ctx.params["offer_id"] as string, body.price, now()),
        u.platformId,
      ),
    );
  });

  r.add("GET", "/me/offers-timeline", true, (ctx) => {
    const u = need(ctx);
    // Repeat the parameter for several states; a comma-separated value is accepted too.
    const states = ctx.query
      .getAll("states")
      .flatMap((s) => s.split(","))
      .filter((s) => s !== "");
    const offers = offersTimeline(store, u, {
      page: qPage(ctx.query),
      limit: qLimit(ctx.query, 40),
      states: states.length > 0 ? states : undefined,
    });
    return ok({ offers: offers.map((o) => offerJson(store, o, u.platformId)) });
  });

  // ---- 4.5 trades ------------------------------------------------------------------
  r.add("GET", "/me/trades", true, (ctx) => {
    const u = need(ctx);
    const raw = qString(ctx.query, "state");
    const states = raw
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    for (const s of states ?? []) {
      if (!(TRADE_STATES as readonly string[]).includes(s)) {
        throw badRequest(`state must be among ${TRADE_STATES.join(", ")}`);
      }
    }
    const { trades, count } = myTrades(store, u.platformId, {
      states: states && states.length > 0 ? states : undefined,
      role: qEnum(ctx.query, "role", ["buyer", "seller"] as const),
      page: qPage(ctx.query),
      limit: qLimit(ctx.query, 50),
    });
    return ok({ trades: trades.map((t) => tradeJson(store, t, u.platformId)), count });
  });

  const visibleTrade = (u: UserRec, id: string) => {
    const t = store.trades.get(id);
    if (!t || (t.buyerId !== u.platformId && t.sellerId !== u.platformId)) throw notFound("trade");
    return t;
  };

  r.add("GET", "/trades/{trade_id}", true, (ctx) => {
    const u = need(ctx);
    return ok(tradeJson(store, visibleTrade(u, ctx.params["trade_id"] as string), u.platformId));
  });

  r.add("POST", "/trades/{trade_id}/accept", true, (ctx) => {
    const u = need(ctx);
    const t = visibleTrade(u, ctx.params["trade_id"] as string);
    if (t.sellerId !== u.platformId)
      throw badRequest("only the seller can accept a trade", ErrorCode.notOwner);
    acceptTrade(store, t, now());
    // The spec: the response body is empty; it does not return the trade.
    return { status: 200 };
  });

  const TradeIds = z.object({ trade_ids: IdList });

  // Each trade is evaluated on its own; the answer lists the caller's trades as they now stand.
  r.add("POST", "/trades/bulk/accept", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(TradeIds, ctx.body);
    const at = now();
    const ids = [...new Set(body.trade_ids)];
    // Live, one unknown or wrong-state id fails the whole batch (docs/live-service.md): nothing changes.
    const trades = ids.map((id) => store.trades.get(id));
    if (trades.some((t) => !t || t.sellerId !== u.platformId || t.state !== "queued")) {
      throw badRequest("invalid trade ids specified");
    }
    const out = [];
    for (const t of trades) {
      if (!t) continue;
      acceptTrade(store, t, at);
      out.push(tradeJson(store, t, u.platformId));
    }
    return ok({ data: out });
  });

  r.add("POST", "/trades/bulk/cancel", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(TradeIds, ctx.body);
    const at = now();
    const ids = [...new Set(body.trade_ids)];
    // Live, one unknown or wrong-state id fails the whole batch (docs/live-service.md): nothing changes.
    const trades = ids.map((id) => store.trades.get(id));
    const mine = (t: (typeof trades)[number]) =>
      t !== undefined && (t.buyerId === u.platformId || t.sellerId === u.platformId) && isCancellable(t);
    if (!trades.every(mine)) throw badRequest("invalid trade ids specified");
    const out = [];
    for (const t of trades) {
      if (!t) continue;
      cancelTrade(store, t, at, t.buyerId === u.platformId ? "cancelled by buyer" : "cancelled by seller");
      out.push(tradeJson(store, t, u.platformId));
    }
    return ok({ data: out });
  });

  // ---- 4.6 account -----------------------------------------------------------------
  r.add("GET", "/me/transactions", true, (ctx) => {
    const u = need(ctx);
    const type = qEnum(ctx.query, "type", TX_TYPES);
    const order = qEnum(ctx.query, "order", ["asc", "desc"] as const) ?? "desc";
    const page = qPage(ctx.query);
    const limit = qLimit(ctx.query, 50);
    const all = (store.txs.get(u.platformId) ?? []).filter((t) => type === undefined || t.type === type);
    const sorted = order === "asc" ? all : [...all].reverse();
    return ok({
      transactions: sorted.slice(page * limit, (page + 1) * limit).map(transactionJson),
      count: all.length,
    });
  });

  r.add("GET", "/me/watchlist", true, (ctx) => {
    const u = need(ctx);
    return ok(watchlist(store, u, { cursor: qString(ctx.query, "cursor"), limit: qLimit(ctx.query, 40) }));
  });

  r.add("POST", "/listings/{listing_id}/watchlist", true, (ctx) => {
    const u = need(ctx);
    const l = listingOf(store, ctx.params["listing_id"] as string);
    watch(l, u, store.nextId().seq);
    return ok({ message: "added to watchlist" });
  });

  r.add("DELETE", "/listings/{listing_id}/watchlist", true, (ctx) => {
    const u = need(ctx);
    unwatch(listingOf(store, ctx.params["listing_id"] as string), u);
    return ok({ message: "removed from watchlist" });
  });

  // Not in the spec; the live service has it and the bot shows the linked user's name from it.
  r.add("GET", "/me", true, (ctx) => {
    const u = need(ctx);
    return ok({ user: { ...userSummary(u), balance: u.balance, pending_balance: u.pending } });
  });

  return r;
}

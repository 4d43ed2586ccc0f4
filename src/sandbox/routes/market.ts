// Spec 4.1, market data: search, one listing, its bids and similar listings, price history, stalls.
import { badRequest, notFound } from "../errors.ts";
import { ok, qEnum, qInt, qLimit, qNumber, qString, type Router } from "../http.ts";
import { listingOf } from "../listings.ts";
import {
  historyGraph,
  historySales,
  parseStickerSelectors,
  searchListings,
  similar,
  stall,
  SORTS,
} from "../market.ts";
import { bidJson, listingJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { viewer } from "./common.ts";

export function addMarketDataRoutes(r: Router<UserRec>, store: Store): void {
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
}

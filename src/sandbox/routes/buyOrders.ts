// Spec 4.3, buy orders: place, change, remove and list them; what orders stand for a listing or an item.
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
} from "../buyOrders.ts";
import { badRequest } from "../errors.ts";
import {
  MoneyField,
  ok,
  parseBody,
  qEnum,
  qLimit,
  qPage,
  qString,
  type Reply,
  type Router,
} from "../http.ts";
import { listingOf } from "../listings.ts";
import { buyOrderJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { need, type Ctx } from "./common.ts";

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

export function addBuyOrderRoutes(r: Router<UserRec>, store: Store): void {
  const now = (): number => store.now();
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
    // As the live create reply was seen: a zero created_at, from then on in every answer.
    order.timeUnrecorded = true;
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
}

// Spec 4.5, trades: the caller's trades, one trade, accepting, and bulk accept and cancel (all or nothing).
import { z } from "zod";
import { badRequest, ErrorCode, notFound } from "../errors.ts";
import { ok, parseBody, qEnum, qLimit, qPage, qString, type Router } from "../http.ts";
import { tradeJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { acceptTrade, cancelTrade, isCancellable, myTrades } from "../trades.ts";
import { IdList, need } from "./common.ts";

const TRADE_STATES = ["queued", "pending", "verified", "failed", "cancelled"] as const;

export function addTradeRoutes(r: Router<UserRec>, store: Store): void {
  const now = (): number => store.now();
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
}

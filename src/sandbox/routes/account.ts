// Spec 4.6, account: the ledger, the watchlist, and GET /me (live, not in the spec).
import { ok, qEnum, qLimit, qPage, qString, type Router } from "../http.ts";
import { listingOf, unwatch, watch } from "../listings.ts";
import { watchlist } from "../market.ts";
import { transactionJson, userSummary } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { need } from "./common.ts";

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

export function addAccountRoutes(r: Router<UserRec>, store: Store): void {
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
}

// The spec's routes under /api/v1 (33 endpoints, plus DELETE /buy-orders/{id} and GET /me as live).
// One file per spec section in this folder; the table keeps the spec's order.
import { Router } from "../http.ts";
import { addAccountRoutes } from "./account.ts";
import { addBuyingRoutes } from "./buying.ts";
import { addBuyOrderRoutes } from "./buyOrders.ts";
import { addMarketDataRoutes } from "./market.ts";
import { addOfferRoutes } from "./offers.ts";
import { addSellingRoutes } from "./selling.ts";
import { addTradeRoutes } from "./trades.ts";
import type { Store, UserRec } from "../state/index.ts";

export function buildApiRouter(store: Store): Router<UserRec> {
  const r = new Router<UserRec>();
  addMarketDataRoutes(r, store); // 4.1
  addSellingRoutes(r, store); // 4.2
  addBuyingRoutes(r, store); // 4.3
  addBuyOrderRoutes(r, store); // 4.3
  addOfferRoutes(r, store); // 4.4
  addTradeRoutes(r, store); // 4.5
  addAccountRoutes(r, store); // 4.6
  return r;
}

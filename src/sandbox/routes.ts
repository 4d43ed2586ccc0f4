// The spec's routes under /api/v1 (33 endpoints, plus DELETE /buy-orders/{id} and GET /me as live).
// One file per spec section under routes/; the table keeps the spec's order.
import { Router } from "./http.ts";
import { addAccountRoutes } from "./routes/account.ts";
import { addBuyingRoutes } from "./routes/buying.ts";
import { addBuyOrderRoutes } from "./routes/buyOrders.ts";
import { addMarketDataRoutes } from "./routes/market.ts";
import { addOfferRoutes } from "./routes/offers.ts";
import { addSellingRoutes } from "./routes/selling.ts";
import { addTradeRoutes } from "./routes/trades.ts";
import type { Store, UserRec } from "./state.ts";

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

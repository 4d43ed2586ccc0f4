// Spec 4.3, buying and bidding: buy listings at their current total, bid on auctions.
import { z } from "zod";
import { MoneyField, ok, parseBody, type Router } from "../http.ts";
import { buyListings, placeBid } from "../listings.ts";
import { bidReceiptJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { IdList, need } from "./common.ts";

/** The live service's whole answer to a purchase that went through. */
export const PURCHASED = "all listings purchased";

export function addBuyingRoutes(r: Router<UserRec>, store: Store): void {
  const now = (): number => store.now();
  r.add("POST", "/listings/buy", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ contract_ids: IdList, total_price: MoneyField }), ctx.body);
    buyListings(store, u, body.contract_ids, body.total_price, now());
    // As live (a live-tested SDK): no trades, no ids; the buyer finds the trades in GET /me/trades.
    return ok({ message: PURCHASED });
  });

  r.add("POST", "/listings/{listing_id}/bid", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ max_price: MoneyField }), ctx.body);
    const bid = placeBid(store, u, ctx.params["listing_id"] as string, body.max_price, now());
    return ok(bidReceiptJson(bid, body.max_price));
  });
}

// Spec 4.4, offers: make one, counter one, and the caller's offers timeline.
import { z } from "zod";
import { IdField, MoneyField, ok, parseBody, qLimit, qPage, type Router } from "../http.ts";
import { counterOffer, createOffer, offersTimeline } from "../offers.ts";
import { offerJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { need } from "./common.ts";

export function addOfferRoutes(r: Router<UserRec>, store: Store): void {
  const now = (): number => store.now();
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
}

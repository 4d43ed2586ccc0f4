// The control surface: drive the sandbox from tests, benchmarks and the playground (methods and /_control HTTP).
// The methods live by subject in this folder (users, listings, trades, buy orders); this module
// composes them with the clock, faults and stats, and serves them over HTTP.
import { z } from "zod";
import { catalogItems } from "../catalog.ts";
import { badRequest } from "../errors.ts";
import { DriftSpec as DriftSpecBody, type DriftBook, type DriftSpec } from "../drift.ts";
import { FaultBook, FaultSpec } from "../faults.ts";
import { IdField, MoneyField, ok, parseBody, Router } from "../http.ts";
import { buyOrderControl, type BuyOrderControl } from "./buyOrders.ts";
import { ListingTemplate, listingControl, type ListingControl } from "./listings.ts";
import { tradeControl, type TradeControl } from "./trades.ts";
import { userControl, type UserControl } from "./users.ts";
import { iso } from "../render/index.ts";
import type { World } from "../seed.ts";
import type { Store } from "../state/index.ts";
import type { AnswerListener, Stats, WriteRecord } from "../stats.ts";

export { ListingTemplate } from "./listings.ts";
export type { InventoryAsset, UserInfo } from "./users.ts";

export interface SandboxControl extends ListingControl, BuyOrderControl, TradeControl, UserControl {
  /** Sandbox clock (ms since epoch): real time plus every advanceClock. */
  now(): number;
  /** Moves the sandbox clock forward; due expiries and settlements run at once. Returns the new now. */
  advanceClock(ms: number): number;
  injectFault(spec: FaultSpec): { id: number };
  clearFaults(): void;
  /** Answers drift from the contract (renamed or retyped fields, routes gone, the reset header's unit) until cleared. */
  setDrift(spec: DriftSpec): DriftSpec;
  drift(): DriftSpec;
  clearDrift(): void;
  stats(): Stats;
  /** Every write request (method, route, key, body) in order of arrival, since the last stats reset. */
  writes(): readonly WriteRecord[];
  resetStats(): void;
  /**
   * Tells `listener` of every request as it is answered (method and route template, status), in
   * this process: the benches time arrivals against the feed's polls. Returns the call that stops it.
   */
  onAnswer(listener: AnswerListener): () => void;
}

export function createControl(
  store: Store,
  world: World,
  faults: FaultBook,
  stats: {
    snapshot(): Stats;
    writes(): readonly WriteRecord[];
    reset(): void;
    onAnswer(listener: AnswerListener): () => void;
  },
  drift: DriftBook,
): SandboxControl {
  return {
    now: () => store.now(),

    advanceClock(ms) {
      if (!Number.isFinite(ms) || ms < 0)
        throw badRequest("advanceMs must be a non-negative number of milliseconds");
      return store.advance(ms);
    },

    ...listingControl(store, world),
    ...buyOrderControl(store, world),
    ...tradeControl(store, world),
    ...userControl(store),
    injectFault: (spec) => ({ id: faults.add(spec).id }),
    clearFaults: () => faults.clear(),
    setDrift: (spec) => drift.set(spec),
    drift: () => drift.current(),
    clearDrift: () => drift.clear(),
    stats: () => stats.snapshot(),
    writes: () => stats.writes(),
    resetStats: () => stats.reset(),
    onAnswer: (listener) => stats.onAnswer(listener),
  };
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
  r.add("GET", "/drift", false, () => ok({ drift: control.drift() }));
  r.add("POST", "/drift", false, (ctx) =>
    ok({ drift: control.setDrift(parseBody(DriftSpecBody, ctx.body)) }),
  );
  r.add("DELETE", "/drift", false, () => {
    control.clearDrift();
    return ok({ drift: control.drift() });
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

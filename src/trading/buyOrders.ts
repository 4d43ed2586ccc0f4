// Standing buy orders: create (after a confirmation of its exposure), list, cancel, and see which
// orders a listing or an item would meet; editing is in buyOrderEdit.ts. Orders made on the
// website may be "advanced": they carry the site's filter expression instead of an item name; we
// show them and change their price and quantity, never their expression.
import { releaseStandingOn } from "../db/repos/purchases.ts";
import { withWriteLock, type HeldWriteLock } from "../db/writeLocks.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { snowflakeTime } from "../market/ids.ts";
import type { BuyOrder, BuyOrderAggregate } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import {
  capsOf,
  checkWithinCaps,
  commitmentFailed,
  commitmentStands,
  reserveOrRefuse,
  type CapsView,
} from "../spending/guard.ts";
import {
  fromHybridProperties,
  toHybridProperties,
  validateConstraints,
  type BuyOrderConstraints,
} from "./constraints.ts";
import type { MarketDeps, TradingDeps } from "./deps.ts";
import { requireCents, requireId, requireInt, requirePage } from "../input/validate.ts";

export const MIN_PRICE: Cents = 3;
export const MAX_QUANTITY = 10_000;
const PAGE_SIZE = 10;
/** Page size when scanning for one order: the service's default and largest known page. */
const SCAN_PAGE_SIZE = 50;
/** Bound on the scan so a service that ignores `page` cannot keep us looping. */
const SCAN_MAX_PAGES = 20;

export interface BuyOrderView {
  orderId: string;
  /** The item's market name; absent on advanced orders. */
  itemName: string | undefined;
  /** An advanced order's filter, exactly as the marketplace sent it (may be long). */
  expression: string | undefined;
  maxPriceCents: Cents;
  quantity: number;
  boughtCount: number | undefined;
  constraints: BuyOrderConstraints;
  createdAt: Date | undefined;
}

export interface BuyOrderAggregateView {
  itemName: string | undefined;
  expression: string | undefined;
  maxPriceCents: Cents;
  quantity: number;
  constraints: BuyOrderConstraints;
}

export function toView(order: BuyOrder): BuyOrderView {
  const stated = order.created_at ? new Date(order.created_at) : undefined;
  // A zero created_at (0001-01-01, seen live) says nothing: the id's own time does.
  const created = stated !== undefined && stated.getTime() > 0 ? stated : snowflakeTime(order.id);
  return {
    orderId: order.id,
    itemName: order.market_hash_name,
    expression: order.expression,
    maxPriceCents: order.price,
    quantity: order.qty,
    boughtCount: order.bought_item_count,
    constraints: fromHybridProperties(order.hybrid_properties),
    createdAt: created && !Number.isNaN(created.getTime()) ? created : undefined,
  };
}

function toAggregateView(a: BuyOrderAggregate): BuyOrderAggregateView {
  return {
    itemName: a.market_hash_name,
    expression: a.expression,
    maxPriceCents: a.price,
    quantity: a.qty,
    constraints: fromHybridProperties(a.hybrid_properties),
  };
}

function requireItemName(value: string): string {
  const name = value.trim();
  if (name === "" || name.length > 200) throw invalidOption("item", "give the item's full market name");
  return name;
}

export interface NewBuyOrderInput {
  itemName: string;
  maxPriceCents: Cents;
  quantity?: number | undefined;
  constraints?: BuyOrderConstraints | undefined;
}

/** What a new order would commit, checked against the caps: shown for confirmation, nothing sent. */
export interface BuyOrderQuote {
  itemName: string;
  maxPriceCents: Cents;
  quantity: number;
  constraints: BuyOrderConstraints;
  /** Price x quantity: what the order holds against the daily cap while it is open. */
  exposureCents: Cents;
  caps: CapsView;
}

function validNewOrder(input: NewBuyOrderInput) {
  return {
    itemName: requireItemName(input.itemName),
    maxPrice: requireCents("max_price", input.maxPriceCents, MIN_PRICE),
    quantity: input.quantity === undefined ? 1 : requireInt("quantity", input.quantity, 1, MAX_QUANTITY),
    constraints: validateConstraints(input.constraints ?? {}),
  };
}

export async function quoteBuyOrder(
  deps: TradingDeps,
  input: NewBuyOrderInput & { userId: number },
): Promise<BuyOrderQuote> {
  const v = validNewOrder(input);
  const exposureCents = v.maxPrice * v.quantity;
  const caps = await capsOf(deps.prisma, input.userId);
  checkWithinCaps(caps, { kind: "buy_order", unitPriceCents: v.maxPrice, totalCents: exposureCents });
  return {
    itemName: v.itemName,
    maxPriceCents: v.maxPrice,
    quantity: v.quantity,
    constraints: v.constraints,
    exposureCents,
    caps,
  };
}

/**
 * Places the order. Its whole exposure (price x quantity) is reserved under the caps first and
 * stays committed while the order is open; fills turn it into spend, cancelling releases it.
 */
export async function createBuyOrder(
  deps: TradingDeps,
  input: NewBuyOrderInput & { userId: number; idempotencyKey: string },
): Promise<BuyOrderView> {
  const v = validNewOrder(input);
  const hybrid = toHybridProperties(v.constraints);
  const commitment = await reserveOrRefuse(deps.prisma, {
    userId: input.userId,
    kind: "buy_order",
    idempotencyKey: input.idempotencyKey,
    unitPriceCents: v.maxPrice,
    totalCents: v.maxPrice * v.quantity,
  });
  let order: BuyOrder;
  try {
    order = await deps.market.createBuyOrder({
      market_hash_name: v.itemName,
      max_price: v.maxPrice,
      quantity: v.quantity,
      ...(Object.keys(hybrid).length > 0 ? { hybrid_properties: hybrid } : {}),
    });
  } catch (error) {
    await commitmentFailed(deps.prisma, commitment, error);
    throw error;
  }
  await commitmentStands(deps.prisma, commitment, { subjectId: order.id });
  deps.logger.info({ orderId: order.id, maxPrice: v.maxPrice, quantity: v.quantity }, "buy order created");
  return toView(order);
}

export interface BuyOrdersPage {
  orders: BuyOrderView[];
  page: number;
  total: number | undefined;
  hasMore: boolean;
}

export async function listBuyOrders(
  deps: MarketDeps,
  input: { page?: number | undefined } = {},
): Promise<BuyOrdersPage> {
  const page = requirePage(input.page);
  const result = await deps.market.getMyBuyOrders({ page, limit: PAGE_SIZE });
  const total = result.count;
  const hasMore = total === undefined ? result.orders.length >= PAGE_SIZE : (page + 1) * PAGE_SIZE < total;
  return { orders: result.orders.map(toView), page, total, hasMore };
}

/** Finds one of the user's orders by id; there is no single-order read endpoint. */
export async function findMyOrder(deps: MarketDeps, orderId: string): Promise<BuyOrder> {
  let seen = 0;
  for (let page = 0; page < SCAN_MAX_PAGES; page++) {
    const result = await deps.market.getMyBuyOrders({ page, limit: SCAN_PAGE_SIZE });
    const found = result.orders.find((o) => o.id === orderId);
    if (found) return found;
    seen += result.orders.length;
    // Stop on the count, not on a short page: the service may cap pages below our limit.
    if (result.orders.length === 0 || (result.count !== undefined && seen >= result.count)) break;
  }
  throw new UserFacingError("not_found", "You have no open buy order with that id; see /buyorder list.", {
    orderId,
  });
}

/**
 * Runs a user's change of an order holding the order's write lock, after any write of it in
 * flight (its guard's raise, another edit) has its answer: every change is made from the order as
 * it then is, and none is overwritten by one read before it (ADR 045).
 */
export async function withOrderLock<T>(
  deps: TradingDeps,
  orderId: string,
  fn: (lock: HeldWriteLock) => Promise<T>,
): Promise<T> {
  const done = await withWriteLock(deps.prisma, { kind: "buy_order", id: orderId }, "wait", fn);
  if (!done.ok) {
    throw new UserFacingError(
      "conflict",
      "This buy order is still being changed (by its guard or another edit of yours); nothing was changed. Try again in a moment.",
      { orderId },
    );
  }
  return done.value;
}

export async function cancelBuyOrder(
  deps: TradingDeps,
  input: { userId: number; orderId: string },
): Promise<{ orderId: string }> {
  const orderId = requireId("order", input.orderId);
  await withOrderLock(deps, orderId, async () => {
    await deps.market.deleteBuyOrder(orderId);
    // What the order still held stops counting against the caps at once.
    await releaseStandingOn(deps.prisma, {
      userId: input.userId,
      kind: "buy_order",
      subjectId: orderId,
      reason: "cancelled",
    });
  });
  deps.logger.info({ orderId }, "buy order cancelled");
  return { orderId };
}

/** Standing orders this listing would meet: what a seller could sell into right now. */
export async function matchesForListing(
  deps: MarketDeps,
  input: { listingId: string; limit?: number | undefined },
): Promise<BuyOrderAggregateView[]> {
  const listingId = requireId("listing", input.listingId);
  const limit = input.limit === undefined ? 10 : requireInt("limit", input.limit, 1, 50);
  const orders = await deps.market.getListingBuyOrders(listingId, { limit });
  return orders.map(toAggregateView);
}

/** Other buyers' orders for the same item and constraints: the competition for a new order. */
export async function similarOrders(
  deps: MarketDeps,
  input: { itemName: string; constraints?: BuyOrderConstraints | undefined; limit?: number | undefined },
): Promise<BuyOrderAggregateView[]> {
  const itemName = requireItemName(input.itemName);
  const limit = input.limit === undefined ? 10 : requireInt("limit", input.limit, 1, 50);
  const hybrid = toHybridProperties(validateConstraints(input.constraints ?? {}));
  const result = await deps.market.getSimilarBuyOrders(
    { market_hash_name: itemName, hybrid_properties: hybrid },
    { limit },
  );
  return result.map(toAggregateView);
}

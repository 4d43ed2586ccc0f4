// Standing buy orders: create, list, edit without losing constraints, cancel, and see which
// orders a listing or an item would meet. Orders made on the website may be "advanced": they
// carry the site's filter expression instead of an item name; we show them and change their
// price and quantity, never their expression.
import { invalidOption, UserFacingError } from "../errors.ts";
import type { BuyOrder, BuyOrderAggregate } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import {
  fromHybridProperties,
  isConstraintName,
  mergeConstraints,
  toFlatConstraints,
  toHybridProperties,
  validateConstraints,
  type BuyOrderConstraints,
  type ConstraintName,
} from "./constraints.ts";
import type { MarketDeps } from "./deps.ts";
import { requireCents, requireId, requireInt, requirePage } from "./validate.ts";

const MIN_PRICE: Cents = 3;
const MAX_QUANTITY = 10_000;
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

function toView(order: BuyOrder): BuyOrderView {
  const created = order.created_at ? new Date(order.created_at) : undefined;
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

export async function createBuyOrder(
  deps: MarketDeps,
  input: {
    itemName: string;
    maxPriceCents: Cents;
    quantity?: number | undefined;
    constraints?: BuyOrderConstraints | undefined;
  },
): Promise<BuyOrderView> {
  const itemName = requireItemName(input.itemName);
  const maxPrice = requireCents("max_price", input.maxPriceCents, MIN_PRICE);
  const quantity = input.quantity === undefined ? 1 : requireInt("quantity", input.quantity, 1, MAX_QUANTITY);
  const constraints = validateConstraints(input.constraints ?? {});
  const hybrid = toHybridProperties(constraints);
  const order = await deps.market.createBuyOrder({
    market_hash_name: itemName,
    max_price: maxPrice,
    quantity,
    ...(Object.keys(hybrid).length > 0 ? { hybrid_properties: hybrid } : {}),
  });
  deps.logger.info({ orderId: order.id, maxPrice, quantity }, "buy order created");
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
async function findMyOrder(deps: MarketDeps, orderId: string): Promise<BuyOrder> {
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

export interface EditBuyOrderInput {
  orderId: string;
  maxPriceCents?: Cents | undefined;
  quantity?: number | undefined;
  /** Constraints to set or change; those not named keep their current values. */
  constraints?: BuyOrderConstraints | undefined;
  /** Constraints to remove. Only these are removed. */
  clear?: readonly string[] | undefined;
}

/**
 * Changes an order. The service's update is absolute (an omitted constraint is cleared), so a
 * naive "send what changed" would silently drop the user's float range when they only change
 * the price. Instead: read the order, keep every constraint not touched, apply the changes,
 * clear exactly those named in `clear`, and send the complete state.
 *
 * An advanced order takes a new price and quantity only: its filter is the website's expression,
 * which we can neither express as constraints nor send back, so constraint changes are refused
 * before anything is sent.
 */
export async function editBuyOrder(deps: MarketDeps, input: EditBuyOrderInput): Promise<BuyOrderView> {
  const orderId = requireId("order", input.orderId);
  const clear: ConstraintName[] = [];
  for (const name of input.clear ?? []) {
    if (!isConstraintName(name)) throw invalidOption("clear", `unknown constraint ${name}`);
    clear.push(name);
  }
  const changes = validateConstraints(input.constraints ?? {});
  const maxPrice =
    input.maxPriceCents === undefined ? undefined : requireCents("max_price", input.maxPriceCents, MIN_PRICE);
  const quantity =
    input.quantity === undefined ? undefined : requireInt("quantity", input.quantity, 1, MAX_QUANTITY);
  if (
    maxPrice === undefined &&
    quantity === undefined &&
    Object.keys(changes).length === 0 &&
    clear.length === 0
  ) {
    throw invalidOption("changes", "say what to change: a price, a quantity or a constraint");
  }

  const current = await findMyOrder(deps, orderId);
  if (current.expression !== undefined && (Object.keys(changes).length > 0 || clear.length > 0)) {
    throw new UserFacingError(
      "invalid_input",
      "This order was made on the website with a filter expression, which can only be edited on the " +
        "website. Here you can change its `max_price` and `quantity`.",
      { orderId, advanced: true },
    );
  }
  // Re-validate the merged whole: a new max_float below the kept min_float is a user mistake.
  const merged = validateConstraints(
    mergeConstraints(fromHybridProperties(current.hybrid_properties), changes, clear),
  );
  const updated = await deps.market.updateBuyOrder(orderId, {
    max_price: maxPrice ?? current.price,
    quantity: quantity ?? current.qty,
    constraints: toFlatConstraints(merged),
  });
  deps.logger.info(
    {
      orderId,
      advanced: current.expression !== undefined,
      maxPrice: updated.price,
      quantity: updated.qty,
      cleared: clear,
      changed: Object.keys(changes),
    },
    "buy order edited",
  );
  if (updated.market_hash_name === undefined && updated.expression === undefined) {
    // The answer names no target; show the one the user edited rather than a nameless order.
    if (current.expression !== undefined)
      deps.logger.warn({ orderId }, "advanced buy order answered without its expression after an edit");
    return toView({ ...updated, market_hash_name: current.market_hash_name, expression: current.expression });
  }
  return toView(updated);
}

export async function cancelBuyOrder(
  deps: MarketDeps,
  input: { orderId: string },
): Promise<{ orderId: string }> {
  const orderId = requireId("order", input.orderId);
  await deps.market.deleteBuyOrder(orderId);
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

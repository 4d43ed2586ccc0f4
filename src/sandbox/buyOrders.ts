// Buy orders: standing quantity-based orders with item constraints, their aggregates and fills.
import { badRequest, ErrorCode, notFound } from "./errors.ts";
import { buyOrderJson, type BuyOrderAggregateJson, type BuyOrderJson } from "./render/index.ts";
import {
  pushTo,
  type BuyOrderRec,
  type HybridRec,
  type ItemRec,
  type Store,
  type UserRec,
} from "./state/index.ts";

export const HYBRID_KEYS = [
  "min_float",
  "max_float",
  "paint_index",
  "paint_seeds",
  "applied_stickers",
  "applied_keychains",
  "min_keychain_pattern",
  "max_keychain_pattern",
] as const;

/** Copies only the constraints that are set: null and absent both mean "no constraint". */
export function normalizeHybrid(input: {
  [K in keyof HybridRec]?: HybridRec[K] | null | undefined;
}): HybridRec {
  const out: HybridRec = {};
  if (input.min_float != null) out.min_float = input.min_float;
  if (input.max_float != null) out.max_float = input.max_float;
  if (input.paint_index != null) out.paint_index = input.paint_index;
  if (input.paint_seeds != null) out.paint_seeds = [...input.paint_seeds];
  if (input.applied_stickers != null)
    out.applied_stickers = input.applied_stickers.map((s) => ({ sId: s.sId }));
  if (input.applied_keychains != null)
    out.applied_keychains = input.applied_keychains.map((s) => ({ sId: s.sId }));
  if (input.min_keychain_pattern != null) out.min_keychain_pattern = input.min_keychain_pattern;
  if (input.max_keychain_pattern != null) out.max_keychain_pattern = input.max_keychain_pattern;
  if (out.min_float !== undefined && out.max_float !== undefined && out.min_float > out.max_float) {
    throw badRequest("min_float must not exceed max_float");
  }
  return out;
}

export const isOpen = (o: BuyOrderRec): boolean => o.bought < o.qty;

export function createBuyOrder(
  store: Store,
  user: UserRec,
  input: {
    marketHashName: string;
    maxPrice: number;
    quantity: number;
    hybrid: HybridRec;
    expression?: string | undefined;
  },
  at: number,
): BuyOrderRec {
  const { id, seq } = store.nextId(at);
  const o: BuyOrderRec = {
    id,
    seq,
    userId: user.platformId,
    marketHashName: input.marketHashName,
    price: input.maxPrice,
    qty: input.quantity,
    bought: 0,
    hybrid: input.hybrid,
    createdAt: at,
    ...(input.expression === undefined ? {} : { expression: input.expression }),
  };
  store.buyOrders.set(id, o);
  pushTo(store.buyOrdersByName, o.marketHashName, o);
  return o;
}

export function ownOrder(store: Store, user: UserRec, id: string): BuyOrderRec {
  const o = store.buyOrders.get(id);
  if (!o || o.userId !== user.platformId) throw notFound("buy order");
  return o;
}

/**
 * Absolute update: price and quantity when given, and the constraint set replaced as a whole
 * (an omitted or null constraint is cleared). Items already bought stay counted.
 */
export function updateBuyOrder(
  store: Store,
  user: UserRec,
  id: string,
  input: { maxPrice: number | undefined; quantity: number | undefined; hybrid: HybridRec },
): BuyOrderRec {
  const o = ownOrder(store, user, id);
  if (!isOpen(o)) throw badRequest(`buy order ${id} is already filled`, ErrorCode.invalidState);
  if (input.quantity !== undefined && input.quantity < o.bought) {
    throw badRequest(`quantity cannot go below the ${o.bought} items already bought`);
  }
  if (input.maxPrice !== undefined) o.price = input.maxPrice;
  if (input.quantity !== undefined) o.qty = input.quantity;
  // An advanced order's filter is its expression: only the website edits it.
  if (o.expression === undefined) o.hybrid = input.hybrid;
  return o;
}

export function deleteBuyOrder(store: Store, user: UserRec, id: string): void {
  const o = ownOrder(store, user, id);
  store.buyOrders.delete(id);
  const list = store.buyOrdersByName.get(o.marketHashName);
  if (list) {
    const i = list.indexOf(o);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) store.buyOrdersByName.delete(o.marketHashName);
  }
}

export function myBuyOrders(
  store: Store,
  user: UserRec,
  opts: { page: number; limit: number; order: "asc" | "desc" },
): { orders: BuyOrderJson[]; count: number } {
  const mine = [...store.buyOrders.values()].filter((o) => o.userId === user.platformId);
  mine.sort((a, b) => (opts.order === "asc" ? a.seq - b.seq : b.seq - a.seq));
  return {
    orders: mine.slice(opts.page * opts.limit, (opts.page + 1) * opts.limit).map(buyOrderJson),
    count: mine.length,
  };
}

/** Whether an item satisfies an order's constraints. */
export function satisfies(h: HybridRec, it: ItemRec): boolean {
  if (h.min_float !== undefined && it.floatValue < h.min_float) return false;
  if (h.max_float !== undefined && it.floatValue > h.max_float) return false;
  if (h.paint_index !== undefined && it.paintIndex !== h.paint_index) return false;
  if (h.paint_seeds !== undefined && h.paint_seeds.length > 0 && !h.paint_seeds.includes(it.paintSeed))
    return false;
  if (h.applied_stickers?.some((s) => !it.stickers.some((x) => x.stickerId === s.sId))) return false;
  if (h.applied_keychains?.some((s) => !it.keychains.some((x) => x.stickerId === s.sId))) return false;
  const pattern = it.keychains[0]?.pattern;
  if (h.min_keychain_pattern !== undefined && (pattern === undefined || pattern < h.min_keychain_pattern))
    return false;
  if (h.max_keychain_pattern !== undefined && (pattern === undefined || pattern > h.max_keychain_pattern))
    return false;
  return true;
}

/** Groups open orders by price and constraints; qty is what is still wanted. Highest price first. */
export function aggregate(orders: readonly BuyOrderRec[], limit: number): BuyOrderAggregateJson[] {
  const groups = new Map<string, BuyOrderAggregateJson>();
  for (const o of orders) {
    if (!isOpen(o)) continue;
    const key =
      o.expression === undefined
        ? `${o.marketHashName}\u0000${o.price}\u0000${JSON.stringify(o.hybrid)}`
        : `x\u0000${o.expression}\u0000${o.price}`;
    const g = groups.get(key);
    if (g) g.qty += o.qty - o.bought;
    else if (o.expression !== undefined) {
      // As live: `{ expression, qty, price }` for advanced orders.
      groups.set(key, { expression: o.expression, qty: o.qty - o.bought, price: o.price });
    } else {
      groups.set(key, {
        market_hash_name: o.marketHashName,
        price: o.price,
        qty: o.qty - o.bought,
        hybrid_properties: { ...o.hybrid },
      });
    }
  }
  return [...groups.values()].sort((a, b) => b.price - a.price).slice(0, limit);
}

export function ordersForItem(store: Store, it: ItemRec): BuyOrderRec[] {
  return (store.buyOrdersByName.get(it.marketHashName) ?? []).filter(
    (o) => isOpen(o) && satisfies(o.hybrid, it),
  );
}

/** Open orders on the same item name whose constraints overlap the given ones. */
export function similarOrders(store: Store, name: string, h: HybridRec): BuyOrderRec[] {
  return (store.buyOrdersByName.get(name) ?? []).filter((o) => {
    if (!isOpen(o)) return false;
    const lo = Math.max(o.hybrid.min_float ?? 0, h.min_float ?? 0);
    const hi = Math.min(o.hybrid.max_float ?? 1, h.max_float ?? 1);
    if (lo > hi) return false;
    if (
      o.hybrid.paint_index !== undefined &&
      h.paint_index !== undefined &&
      o.hybrid.paint_index !== h.paint_index
    ) {
      return false;
    }
    return true;
  });
}

export function orderPrices(
  orders: readonly BuyOrderRec[],
  limit: number,
): (BuyOrderJson | { expression: string; qty: number; price: number })[] {
  return [...orders]
    .sort((a, b) => b.price - a.price || a.seq - b.seq)
    .slice(0, limit)
    .map((o) =>
      // As live (three clients model it): advanced orders answer `{ expression, qty, price }`.
      o.expression === undefined
        ? buyOrderJson(o)
        : { expression: o.expression, qty: o.qty - o.bought, price: o.price },
    );
}

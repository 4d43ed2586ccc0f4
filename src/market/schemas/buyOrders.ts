// Schemas of buy orders (spec section 2): an order, its hybrid property constraints, the
// aggregated price points of a listing or an item, and their lists and pages.
import { z } from "zod";
import { Cents, Id, LooseInt, LooseNumber, Timestamp, lenient, opt, tolerantArray } from "./primitives.ts";

export const HybridProperties = z.object({
  min_float: opt(LooseNumber),
  max_float: opt(LooseNumber),
  paint_index: opt(LooseInt),
  paint_seeds: opt(z.array(LooseInt)),
  applied_stickers: opt(z.array(z.object({ sId: LooseInt }))),
  applied_keychains: opt(z.array(z.object({ sId: LooseInt }))),
  min_keychain_pattern: opt(LooseInt),
  max_keychain_pattern: opt(LooseInt),
});
export type HybridProperties = z.infer<typeof HybridProperties>;

/**
 * A buy order. Orders made on the website can be "advanced": they carry an `expression` (a
 * filter in the site's own language, shown as is) and no market_hash_name.
 */
export const BuyOrder = z.object({
  id: Id,
  created_at: opt(Timestamp),
  market_hash_name: opt(z.string().min(1)),
  expression: opt(z.string().min(1)),
  price: Cents,
  qty: LooseInt,
  bought_item_count: opt(LooseInt),
  hybrid_properties: lenient(HybridProperties, "hybrid_properties"),
});
export type BuyOrder = z.infer<typeof BuyOrder>;

export const BuyOrderAggregate = z.object({
  market_hash_name: opt(z.string().min(1)),
  expression: opt(z.string().min(1)),
  price: Cents,
  qty: LooseInt,
  hybrid_properties: lenient(HybridProperties, "hybrid_properties"),
});
export type BuyOrderAggregate = z.infer<typeof BuyOrderAggregate>;

export const BuyOrderAggregatesEnvelope = z.object({
  data: tolerantArray(BuyOrderAggregate, "buy order aggregate"),
});

export const MyBuyOrdersPage = z.object({
  orders: tolerantArray(BuyOrder, "buy order"),
  count: opt(LooseInt),
});
export type MyBuyOrdersPage = z.infer<typeof MyBuyOrdersPage>;
export const BuyOrders = tolerantArray(BuyOrder, "buy order");
/**
 * GET /buy-orders/item: the spec says Buy orders; for website orders the live service answers
 * `{ expression, qty, price }` (three clients), with no id: a price point, so the id is optional.
 */
export const ItemBuyOrder = BuyOrder.extend({ id: opt(Id) });
export type ItemBuyOrder = z.infer<typeof ItemBuyOrder>;
export const ItemBuyOrders = tolerantArray(ItemBuyOrder, "buy order");
export const BuyOrderAggregates = tolerantArray(BuyOrderAggregate, "buy order aggregate");

// Buy orders: the API's own (item name and constraints) and the website's (a filter expression only).
import type { BuyOrderRec, HybridRec } from "../state/index.ts";
import { iso } from "./common.ts";

export interface BuyOrderJson {
  id: string;
  created_at: string;
  /** Absent on advanced orders made on the website, which carry `expression` instead. */
  market_hash_name?: string;
  expression?: string;
  price: number;
  qty: number;
  bought_item_count: number;
  hybrid_properties?: HybridRec;
}

export interface BuyOrderAggregateJson {
  market_hash_name?: string;
  expression?: string;
  price: number;
  qty: number;
  hybrid_properties?: HybridRec;
}

/** The zero time live answers carry for some buy orders (docs/live-service.md). */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

const createdAtOf = (o: BuyOrderRec): string => (o.timeUnrecorded ? ZERO_TIME : iso(o.createdAt));

export function buyOrderJson(o: BuyOrderRec): BuyOrderJson {
  if (o.expression !== undefined) {
    // As live: the expression, no item name, no constraints.
    return {
      id: o.id,
      created_at: createdAtOf(o),
      expression: o.expression,
      price: o.price,
      qty: o.qty,
      bought_item_count: o.bought,
    };
  }
  return {
    id: o.id,
    created_at: createdAtOf(o),
    market_hash_name: o.marketHashName,
    price: o.price,
    qty: o.qty,
    bought_item_count: o.bought,
    hybrid_properties: { ...o.hybrid },
  };
}

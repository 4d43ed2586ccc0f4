// What every rendered resource embeds: ISO times, the user summary and an item name's reference price.
import type { ReferenceRec, Store, UserRec } from "../state/index.ts";

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface UserSummaryJson {
  platform_id: string;
  obfuscated_id: string;
  username: string;
  avatar: string;
  flags: number;
  online: boolean;
  away: boolean;
  stall_public: boolean;
  statistics: {
    median_trade_time: number;
    total_avoided_trades: number;
    total_failed_trades: number;
    total_trades: number;
    total_verified_trades: number;
  };
}

export interface ReferenceJson {
  base_price: number;
  predicted_price: number;
  float_factor: number;
  quantity: number;
  last_updated: string;
  buy_order?: { max_price: number; quantity: number };
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function userSummary(u: UserRec): UserSummaryJson {
  return {
    platform_id: u.platformId,
    obfuscated_id: u.obfuscatedId,
    username: u.name,
    avatar: u.avatar,
    flags: 0,
    online: u.online,
    away: u.away,
    stall_public: u.stallPublic,
    statistics: {
      median_trade_time: 1800,
      total_avoided_trades: 0,
      total_failed_trades: u.failedTrades,
      total_trades: u.totalTrades,
      total_verified_trades: u.verifiedTrades,
    },
  };
}

export function referenceJson(store: Store, name: string, floatValue?: number): ReferenceJson | undefined {
  const r: ReferenceRec | undefined = store.references.get(name);
  if (!r) return undefined;
  const out: ReferenceJson = {
    base_price: r.basePrice,
    predicted_price: r.predictedPrice,
    float_factor: floatValue === undefined ? 1 : Math.round((1 + (0.5 - floatValue) * 0.04) * 1000) / 1000,
    quantity: r.quantity,
    last_updated: iso(r.lastUpdated),
  };
  const top = topBuyOrder(store, name);
  if (top) out.buy_order = top;
  return out;
}

function topBuyOrder(store: Store, name: string): { max_price: number; quantity: number } | undefined {
  const orders = store.buyOrdersByName.get(name);
  if (!orders) return undefined;
  let best: { max_price: number; quantity: number } | undefined;
  for (const o of orders) {
    const left = o.qty - o.bought;
    if (left <= 0) continue;
    if (!best || o.price > best.max_price) best = { max_price: o.price, quantity: left };
    else if (o.price === best.max_price) best.quantity += left;
  }
  return best;
}

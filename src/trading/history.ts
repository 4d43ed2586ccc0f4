// Price history for /history: the daily average graph and the most recent individual sales.
import { invalidOption } from "../errors.ts";
import type { Cents } from "../money.ts";
import type { MarketDeps } from "./deps.ts";
import { requireInt } from "./validate.ts";
import { toDate } from "./views.ts";

export interface DailyPoint {
  /** The day as the service states it (a date, no time). */
  day: string;
  sales: number;
  /** Rounded: the service may send fractional cents. */
  avgPriceCents: Cents;
}

export interface RecentSale {
  listingId: string;
  priceCents: Cents;
  soldAt: Date | undefined;
  floatValue: number | undefined;
  paintSeed: number | undefined;
}

export interface PriceHistory {
  itemName: string;
  paintIndex: number | undefined;
  /** Oldest first, ready to plot. */
  points: DailyPoint[];
  /** Newest first. */
  recentSales: RecentSale[];
}

const MAX_SALES = 10;

export async function priceHistory(
  deps: MarketDeps,
  input: { itemName: string; paintIndex?: number | undefined },
): Promise<PriceHistory> {
  const itemName = input.itemName.trim();
  if (itemName === "" || itemName.length > 200)
    throw invalidOption("item", "give the item's full market name");
  const paintIndex =
    input.paintIndex === undefined ? undefined : requireInt("paint_index", input.paintIndex, 0, 1_000_000);
  const opts = paintIndex === undefined ? {} : { paint_index: paintIndex };
  // Both reads are public and independent: ask at once, answer within Discord's few seconds.
  const [graph, sales] = await Promise.all([
    deps.market.getHistoryGraph(itemName, opts),
    deps.market.getHistorySales(itemName, opts),
  ]);
  const points = graph
    .map((p) => ({ day: p.day, sales: p.count, avgPriceCents: Math.round(p.avg_price) }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const recentSales = sales
    .map((l) => ({
      listingId: l.id,
      priceCents: l.price,
      soldAt: toDate(l.sold_at),
      floatValue: l.item.float_value,
      paintSeed: l.item.paint_seed,
    }))
    .sort((a, b) => (b.soldAt?.getTime() ?? 0) - (a.soldAt?.getTime() ?? 0))
    .slice(0, MAX_SALES);
  return { itemName, paintIndex, points, recentSales };
}

// Price history for /history: the daily average graph and the most recent individual sales.
import { invalidOption } from "../errors.ts";
import type { Cents } from "../money.ts";
import type { MarketDeps } from "./deps.ts";
import { requireInt } from "../input/validate.ts";
import { toDate } from "../util/dates.ts";

export interface DailyPoint {
  /** The day as the service states it (a date, no time). */
  day: string;
  sales: number;
  /** Rounded: the service may send fractional cents. */
  avgPriceCents: Cents;
}

export interface RecentSale {
  /** Live sales entries carry no listing id (`{ price, sold_at, item, reference }`). */
  listingId: string | undefined;
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
  /** The sales could not be read (the graph still came): say so instead of "none recorded". */
  salesUnavailable: boolean;
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
  // Both reads are public and independent: ask at once, answer within Discord's few seconds. The
  // sales are a side dish: when they fail, the graph is still worth showing.
  const [graph, salesRead] = await Promise.all([
    deps.market.getHistoryGraph(itemName, opts),
    deps.market.getHistorySales(itemName, opts).then(
      (sales) => ({ ok: true as const, sales }),
      (error: unknown) => {
        deps.logger.warn({ err: error, itemName }, "sales history unreadable; showing the graph alone");
        return { ok: false as const, sales: [] };
      },
    ),
  ]);
  const sales = salesRead.sales;
  const points = graph
    .map((p) => ({ day: p.day, sales: p.count, avgPriceCents: Math.round(p.avg_price) }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const recentSales = sales
    .map((l) => ({
      listingId: l.id,
      priceCents: l.price,
      soldAt: toDate(l.sold_at),
      floatValue: l.item?.float_value,
      paintSeed: l.item?.paint_seed,
    }))
    .sort((a, b) => (b.soldAt?.getTime() ?? 0) - (a.soldAt?.getTime() ?? 0))
    .slice(0, MAX_SALES);
  return { itemName, paintIndex, points, recentSales, salesUnavailable: !salesRead.ok };
}

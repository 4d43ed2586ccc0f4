// How often an item sells (sales per day over the last 7 days, from the price-history graph), read at most once per item per hour.
import type { Logger } from "../log.ts";
import type { HistoryPoint } from "../market/schemas.ts";

const DAY_MS = 86_400_000;
export const SALES_WINDOW_DAYS = 7;
const DEFAULT_TTL_MS = 3_600_000;
/** Past this many cached items, expired entries go first, then the oldest. */
const MAX_ENTRIES = 5_000;

export interface SalesRateDeps {
  /** The daily graph of an item (GET /history/{name}/graph), the read /history uses. */
  readGraph(marketHashName: string): Promise<readonly HistoryPoint[]>;
  logger: Logger;
  now: () => Date;
  /** How long a read (or a failed read) stands for the item; default one hour. */
  ttlMs?: number;
}

export interface SalesRate {
  /** Sales per day over the last 7 days; undefined when the history cannot be read. */
  perDay(marketHashName: string): Promise<number | undefined>;
}

/**
 * Sales per day over the `SALES_WINDOW_DAYS` days ending `now` (today included): the counts of
 * those days' points, divided by the window (a day without a point sold nothing).
 */
export function salesPerDay(points: readonly HistoryPoint[], now: Date): number {
  const first = new Date(now.getTime() - (SALES_WINDOW_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const today = now.toISOString().slice(0, 10);
  let sales = 0;
  for (const p of points) {
    const day = p.day.slice(0, 10);
    if (day >= first && day <= today && Number.isFinite(p.count) && p.count > 0) sales += p.count;
  }
  return sales / SALES_WINDOW_DAYS;
}

/**
 * One read per item per `ttlMs`, shared by every rule and listing of that item (concurrent asks
 * wait on the same read). A failed read stands for the same time, so a broken item costs one
 * request and one debug line an hour, and its rules do not match meanwhile.
 */
export function createSalesRate(deps: SalesRateDeps): SalesRate {
  const ttl = deps.ttlMs ?? DEFAULT_TTL_MS;
  const log = deps.logger.child({ module: "alerts.salesRate" });
  const cache = new Map<string, { until: number; rate: Promise<number | undefined> }>();

  function prune(now: number): void {
    if (cache.size < MAX_ENTRIES) return;
    for (const [name, entry] of cache) if (entry.until <= now) cache.delete(name);
    for (const name of cache.keys()) {
      if (cache.size < MAX_ENTRIES) break;
      cache.delete(name);
    }
  }

  return {
    perDay(marketHashName) {
      const now = deps.now().getTime();
      const cached = cache.get(marketHashName);
      if (cached !== undefined && cached.until > now) return cached.rate;
      prune(now);
      const rate = deps.readGraph(marketHashName).then(
        (points) => salesPerDay(points, deps.now()),
        (error: unknown) => {
          log.debug(
            { err: error, itemName: marketHashName },
            "price history unreadable; sales-rate rules skip the item for now",
          );
          return undefined;
        },
      );
      cache.set(marketHashName, { until: now + ttl, rate });
      return rate;
    },
  };
}

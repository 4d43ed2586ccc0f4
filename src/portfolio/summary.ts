// A book's figures for one period (today, 7 days, 30 days, all), per item, the cumulative P&L
// series for the chart, and open positions valued at the reference price.
import type { FeeModel } from "../market/fees.ts";
import type { Cents } from "../money.ts";
import type { Book, PnlEvent } from "./book.ts";

export const PERIODS = ["today", "7d", "30d", "all"] as const;
export type Period = (typeof PERIODS)[number];

export const PERIOD_LABEL: Readonly<Record<Period, string>> = {
  today: "Today (UTC)",
  "7d": "Last 7 days",
  "30d": "Last 30 days",
  all: "All time",
};

const DAY_MS = 86_400_000;

/** Where a period starts; undefined for all time. "today" starts at midnight UTC. */
export function periodStart(period: Period, now: Date): Date | undefined {
  switch (period) {
    case "today":
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    case "7d":
      return new Date(now.getTime() - 7 * DAY_MS);
    case "30d":
      return new Date(now.getTime() - 30 * DAY_MS);
    case "all":
      return undefined;
  }
}

export interface ItemRow {
  readonly item: string;
  readonly bought: number;
  readonly spentCents: Cents;
  /** Sales in the period less those refunded or reversed in it. */
  readonly sold: number;
  readonly netSalesCents: Cents;
  readonly feesCents: Cents;
  readonly pnlCents: Cents;
  readonly reversals: number;
  /** Net proceeds of sales whose cost is unknown (not in pnlCents). */
  readonly unknownCostCents: Cents;
}

export interface PeriodSummary {
  readonly period: Period;
  readonly from: Date | undefined;
  readonly to: Date;
  readonly pnlCents: Cents;
  readonly feesCents: Cents;
  readonly netSalesCents: Cents;
  readonly spentCents: Cents;
  readonly reversals: number;
  readonly unknownCostSales: number;
  readonly unknownCostCents: Cents;
  /** Most profit first, then by name; rows with any activity in the period. */
  readonly items: readonly ItemRow[];
  /** The period's P&L events, oldest first (the CSV export's rows). */
  readonly events: readonly PnlEvent[];
  /** Cumulative P&L after each event in the period, starting at 0. */
  readonly series: readonly { readonly at: Date; readonly cumulativeCents: Cents }[];
}

/** From the period's start on; an entry dated ahead of our clock (skew) still counts. */
const inPeriod = (at: Date | undefined, from: Date | undefined) =>
  from === undefined || (at !== undefined && at >= from);

type MutableRow = { -readonly [K in keyof ItemRow]: ItemRow[K] };

export function summarize(
  book: Book,
  input: { readonly period: Period; readonly now: Date; readonly item?: string | undefined },
): PeriodSummary {
  const from = periodStart(input.period, input.now);
  const to = input.now;
  const wanted = (item: string) => input.item === undefined || item === input.item;
  const rows = new Map<string, MutableRow>();
  const row = (item: string): MutableRow => {
    let r = rows.get(item);
    if (!r) {
      r = {
        item,
        bought: 0,
        spentCents: 0,
        sold: 0,
        netSalesCents: 0,
        feesCents: 0,
        pnlCents: 0,
        reversals: 0,
        unknownCostCents: 0,
      };
      rows.set(item, r);
    }
    return r;
  };
  for (const p of book.purchases) {
    if (p.undone || !wanted(p.lot.item) || !inPeriod(p.lot.boughtAt, from)) continue;
    const r = row(p.lot.item);
    r.bought += 1;
    r.spentCents += p.lot.costCents;
  }
  const events = book.events.filter((e) => wanted(e.item) && inPeriod(e.at, from));
  let cumulative = 0;
  const series: { at: Date; cumulativeCents: Cents }[] = [];
  for (const e of events) {
    apply(row(e.item), e);
    if (!e.costKnown) continue;
    cumulative += e.pnlCents;
    if (e.at) series.push({ at: e.at, cumulativeCents: cumulative });
  }
  const items = [...rows.values()].sort((a, b) => b.pnlCents - a.pnlCents || a.item.localeCompare(b.item));
  const sum = (f: (r: ItemRow) => number) => items.reduce((s, r) => s + f(r), 0);
  return {
    period: input.period,
    from,
    to,
    pnlCents: sum((r) => r.pnlCents),
    feesCents: sum((r) => r.feesCents),
    netSalesCents: sum((r) => r.netSalesCents),
    spentCents: sum((r) => r.spentCents),
    reversals: sum((r) => r.reversals),
    unknownCostSales: events.reduce((n, e) => n + (e.costKnown ? 0 : Math.sign(e.netCents)), 0),
    unknownCostCents: sum((r) => r.unknownCostCents),
    items,
    events,
    series,
  };
}

function apply(r: MutableRow, e: PnlEvent): void {
  switch (e.kind) {
    case "sale":
      r.sold += 1;
      break;
    case "sale_refunded":
      r.sold -= 1;
      break;
    case "sale_reversed":
      r.sold -= 1;
      r.reversals += 1;
      break;
    case "purchase_reversed":
    case "other_reversal":
      r.reversals += 1;
      break;
    case "fine":
      break;
  }
  r.netSalesCents += e.netCents;
  r.feesCents += e.feeCents;
  if (e.costKnown) r.pnlCents += e.pnlCents;
  else r.unknownCostCents += e.netCents;
}

export interface Position {
  readonly item: string;
  readonly quantity: number;
  readonly costCents: Cents;
  /** The item's reference price per unit, when the marketplace gave one. */
  readonly referenceCents: Cents | undefined;
  /** What selling every unit at the reference would credit after the seller fee (an estimate). */
  readonly valueCents: Cents | undefined;
  readonly unrealisedCents: Cents | undefined;
}

/** Open lots grouped by item, most cost first. */
export function positionsOf(
  book: Book,
  input: {
    readonly references: ReadonlyMap<string, Cents | undefined>;
    readonly fees: FeeModel;
    readonly item?: string | undefined;
  },
): Position[] {
  const byItem = new Map<string, { quantity: number; costCents: Cents }>();
  for (const lot of book.open) {
    if (input.item !== undefined && lot.item !== input.item) continue;
    const p = byItem.get(lot.item) ?? { quantity: 0, costCents: 0 };
    p.quantity += 1;
    p.costCents += lot.costCents;
    byItem.set(lot.item, p);
  }
  return [...byItem.entries()]
    .map(([item, p]) => {
      const ref = input.references.get(item);
      const value = ref === undefined ? undefined : input.fees.netOfSale(ref) * p.quantity;
      return {
        item,
        quantity: p.quantity,
        costCents: p.costCents,
        referenceCents: ref,
        valueCents: value,
        unrealisedCents: value === undefined ? undefined : value - p.costCents,
      };
    })
    .sort((a, b) => b.costCents - a.costCents || a.item.localeCompare(b.item));
}

// The CSV export: one row per P&L event of the period, then one per open position, in dollars
// (people open it in a spreadsheet). Text from the marketplace is quoted and defused against
// spreadsheet formulas.
import type { Cents } from "../money.ts";
import type { PnlEventKind } from "./book.ts";
import type { PeriodSummary, Position } from "./summary.ts";

export const CSV_HEADER = [
  "date",
  "kind",
  "item",
  "listing_id",
  "net_proceeds_usd",
  "fee_usd",
  "cost_usd",
  "pnl_usd",
  "cost_known",
] as const;

const KIND: Readonly<Record<PnlEventKind, string>> = {
  sale: "sale",
  sale_refunded: "sale refunded",
  sale_reversed: "sale reversed",
  purchase_reversed: "purchase reversed",
  fine: "fine",
  other_reversal: "reversal",
};

/** "12.34", "-0.05": plain dollars, no symbol or grouping, so spreadsheets read a number. */
export function dollars(cents: Cents): string {
  const abs = Math.abs(Math.round(cents));
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * RFC 4180 quoting; text (not a plain number) starting with =, +, - or @ is defused with an
 * apostrophe, so a spreadsheet never runs an item name as a formula.
 */
export function csvField(value: string): string {
  const numeric = /^-?\d+(\.\d+)?$/.test(value);
  const safe = !numeric && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const line = (fields: readonly string[]) => fields.map(csvField).join(",");

export function portfolioCsv(summary: PeriodSummary, positions: readonly Position[]): string {
  const rows = [line(CSV_HEADER)];
  for (const e of summary.events) {
    rows.push(
      line([
        e.at?.toISOString() ?? "",
        KIND[e.kind],
        e.item,
        e.contractId ?? "",
        dollars(e.netCents),
        dollars(e.feeCents),
        e.costCents === undefined ? "" : dollars(e.costCents),
        e.costKnown ? dollars(e.pnlCents) : "",
        e.costKnown ? "yes" : "no",
      ]),
    );
  }
  for (const p of positions) {
    rows.push(
      line([
        "",
        `open position x${p.quantity}`,
        p.item,
        "",
        p.valueCents === undefined ? "" : dollars(p.valueCents),
        "",
        dollars(p.costCents),
        p.unrealisedCents === undefined ? "" : dollars(p.unrealisedCents),
        "estimate",
      ]),
    );
  }
  return `${rows.join("\r\n")}\r\n`;
}

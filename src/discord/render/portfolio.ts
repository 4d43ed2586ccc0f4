// /portfolio as Discord shows it: the period's P&L after fees, a page of items, open positions
// valued at the reference price (an estimate), and what the figures leave out.
import type { APIEmbed } from "discord.js";
import type { Portfolio } from "../../portfolio/readPortfolio.ts";
import { PERIOD_LABEL, type ItemRow, type Position } from "../../portfolio/summary.ts";
import { embed } from "./embeds.ts";
import { money, truncate } from "./format.ts";
import { pagingRow, type ActionRow, type Paging } from "./button.ts";
import { itemName } from "./listing.ts";

export const PORTFOLIO_PAGE_SIZE = 8;
const POSITIONS_SHOWN = 8;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const name = (item: string) => itemName(item, 70);

function itemLine(r: ItemRow, position: number): string {
  const bits = [`\`${position}.\` **${name(r.item)}**`, `P&L **${money(r.pnlCents, { sign: true })}**`];
  if (r.sold !== 0) bits.push(`sold ${r.sold} for ${money(r.netSalesCents)}`);
  if (r.feesCents !== 0) bits.push(`fees ${money(r.feesCents)}`);
  if (r.bought !== 0) bits.push(`bought ${r.bought} for ${money(r.spentCents)}`);
  if (r.reversals !== 0) bits.push(`⚠️ ${plural(r.reversals, "reversal")}`);
  if (r.unknownCostCents !== 0) bits.push(`${money(r.unknownCostCents)} of sales with no known cost`);
  return bits.join(" · ");
}

function positionLine(p: Position): string {
  const bits = [`**${name(p.item)}** ×${p.quantity}`, `cost ${money(p.costCents)}`];
  if (p.referenceCents === undefined) bits.push("no reference price");
  else {
    bits.push(`reference ${money(p.referenceCents)}`);
    if (p.unrealisedCents !== undefined) bits.push(`est. ${money(p.unrealisedCents, { sign: true })}`);
  }
  return bits.join(" · ");
}

export function portfolioMessage(
  p: Portfolio,
  view: { readonly page: number; readonly paging: Paging },
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const s = p.summary;
  const first = view.page * PORTFOLIO_PAGE_SIZE;
  const rows = s.items.slice(first, first + PORTFOLIO_PAGE_SIZE);
  const pages = Math.max(1, Math.ceil(s.items.length / PORTFOLIO_PAGE_SIZE));
  const lines = [
    `**P&L after fees: ${money(s.pnlCents, { sign: true })}**`,
    `Sales credited ${money(s.netSalesCents)} · fees ${money(s.feesCents)} · bought ${money(s.spentCents)}` +
      (s.reversals > 0 ? ` · ⚠️ ${plural(s.reversals, "reversal")}` : ""),
  ];
  if (p.unreadableAmounts > 0)
    lines.push(
      `⚠️ ${p.unreadableAmounts} ledger ${p.unreadableAmounts === 1 ? "entry" : "entries"} came with an amount the bot cannot read (not in whole cents): left out of these figures rather than guessed.`,
    );
  if (s.unknownCostSales > 0)
    lines.push(
      `${plural(s.unknownCostSales, "sale")} (${money(s.unknownCostCents)}) of items with no purchase in your ledger are left out of the P&L: their cost is unknown.`,
    );
  const fields: { name: string; value: string }[] = [
    {
      name: `By item · page ${Math.min(view.page + 1, pages)} of ${pages}`,
      value: truncate(
        rows.length > 0
          ? rows.map((r, i) => itemLine(r, first + i + 1)).join("\n")
          : view.page === 0
            ? "Nothing bought or sold in this period."
            : "No more items.",
        1024,
      ),
    },
  ];
  if (view.page === 0) {
    const shown = p.positions.slice(0, POSITIONS_SHOWN);
    const valued = p.positions.filter((x) => x.unrealisedCents !== undefined);
    const unrealised = valued.reduce((sum, x) => sum + (x.unrealisedCents ?? 0), 0);
    const head =
      valued.length > 0
        ? `Estimated ${money(unrealised, { sign: true })} if sold at the reference price after the ${(p.feeBps / 100).toFixed(1)}% fee.\n`
        : "";
    const more =
      p.positions.length > shown.length ? `\n…and ${p.positions.length - shown.length} more in the CSV.` : "";
    fields.push({
      name: `Open positions (${p.positions.reduce((n, x) => n + x.quantity, 0)})`,
      value: truncate(
        shown.length > 0 ? `${head}${shown.map(positionLine).join("\n")}${more}` : "None.",
        1024,
      ),
    });
  }
  const notes = [`${p.entriesRead} ledger ${p.entriesRead === 1 ? "entry" : "entries"} read`];
  if (p.truncated) notes.push("older entries not read");
  if (p.unnamed > 0) notes.push(`${plural(p.unnamed, "listing")} without an item name`);
  notes.push("/portfolio export for the CSV, /portfolio chart for the graph");
  return {
    embeds: [
      embed({
        tone: s.pnlCents < 0 ? "warning" : "success",
        title: truncate(`Portfolio · ${PERIOD_LABEL[s.period]}${p.item ? ` · ${name(p.item)}` : ""}`, 256),
        description: lines.join("\n"),
        fields,
        footer: truncate(notes.join(" · "), 2048),
      }),
    ],
    components: pagingRow(view.paging),
  };
}

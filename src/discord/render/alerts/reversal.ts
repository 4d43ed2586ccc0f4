// Reversal alerts: a sale's proceeds taken back, or a purchase refunded, by a `rollback` entry.
import type { APIEmbed } from "discord.js";
import type { ReversalAlert } from "../../../outbox/payload.ts";
import { safeUserText } from "../../../input/parse.ts";
import { embed } from "../embeds.ts";
import { money, relativeTime } from "../format.ts";

const what = (a: ReversalAlert) =>
  a.itemName === undefined
    ? a.tradeId === undefined
      ? "an entry"
      : `trade ${a.tradeId}`
    : safeUserText(a.itemName, 120);

const UNREADABLE =
  "Its ledger entry came with an amount the bot cannot read (not in whole cents), so none is shown here: check your balance on the marketplace.";

export function reversalTitle(a: ReversalAlert): string {
  if (a.amountCents === undefined) return `Trade reversed: ${what(a)}`;
  if (a.amountCents < 0) return `Sale reversed: ${what(a)}`;
  return `Purchase reversed: ${what(a)}`;
}

/** One line for digests and /alerts recent. */
export function reversalLine(a: ReversalAlert): string {
  const amount =
    a.amountCents === undefined
      ? "amount unreadable"
      : a.amountCents < 0
        ? `${money(-a.amountCents)} taken back`
        : `${money(a.amountCents)} refunded`;
  return `⚠️ ${reversalTitle(a)}: ${amount}${a.tradeId === undefined ? "" : ` · trade ${a.tradeId}`}`;
}

export function reversalEmbed(a: ReversalAlert): APIEmbed {
  const description =
    a.amountCents === undefined
      ? `The marketplace reversed this trade. ${UNREADABLE}`
      : a.amountCents < 0
        ? `The marketplace reversed this trade and took **${money(-a.amountCents)}** back from your balance. The item is returned to your inventory on the platform.`
        : `The marketplace reversed this purchase and refunded **${money(a.amountCents)}** to your balance. The item goes back to its seller.`;
  const fields: { name: string; value: string; inline?: boolean }[] = [
    {
      name: "Amount",
      value: a.amountCents === undefined ? "unreadable" : money(a.amountCents, { sign: true }),
      inline: true,
    },
  ];
  if (a.tradeId !== undefined) fields.push({ name: "Trade", value: a.tradeId, inline: true });
  if (a.listingId !== undefined) fields.push({ name: "Listing", value: a.listingId, inline: true });
  if (a.reason !== undefined) fields.push({ name: "Reason", value: safeUserText(a.reason, 200) });
  if (a.at !== undefined) fields.push({ name: "When", value: relativeTime(new Date(a.at)), inline: true });
  return embed({
    tone: "error",
    title: reversalTitle(a),
    description,
    fields,
    footer: `Ledger entry ${a.transactionId} · /portfolio summary shows what it does to your P&L`,
  });
}

// Account pages as Discord shows them: the settings card and the balance ledger.
import type { APIEmbed } from "discord.js";
import type { SettingsView } from "../../accounts/settings.ts";
import type { TransactionsPage, TransactionView } from "../../accounts/transactions.ts";
import { safeUserText } from "../../input/parse.ts";
import { timeZoneLabel } from "../../input/settings.ts";
import { embed } from "./embeds.ts";
import { money, relativeTime, truncate } from "./format.ts";
import { pagingRow, type ActionRow, type Paging } from "./button.ts";

const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

const onOff = (on: boolean, label: string) => `${on ? "✅" : "❌"} ${label}`;

export function settingsEmbed(s: SettingsView, opts: { changed: boolean }): APIEmbed {
  const destination =
    s.defaultDestination === "channel" && s.defaultChannelId !== null
      ? `<#${s.defaultChannelId}>`
      : "Direct messages";
  const quiet =
    s.quietHours === null
      ? "off"
      : `${hhmm(s.quietHours.startMinute)}–${hhmm(s.quietHours.endMinute)} (${timeZoneLabel(s.timezone)})`;
  return embed({
    tone: opts.changed ? "success" : "info",
    title: opts.changed ? "Settings saved" : "Your settings",
    fields: [
      { name: "Listing alerts go to", value: destination, inline: true },
      {
        name: "Per-purchase cap",
        value: s.perPurchaseCapCents === null ? "none" : money(s.perPurchaseCapCents),
        inline: true,
      },
      { name: "Daily cap", value: s.dailyCapCents === null ? "none" : money(s.dailyCapCents), inline: true },
      {
        name: "Committed now",
        value:
          s.dailyCapCents === null
            ? money(s.committedCents)
            : `${money(s.committedCents)} (${money(Math.max(0, s.dailyCapCents - s.committedCents))} left today)`,
        inline: true,
      },
      {
        name: "Alerts",
        value: [
          onOff(s.alerts.listing, "listings"),
          onOff(s.alerts.outbid, "outbid"),
          onOff(s.alerts.trade, "trades"),
          onOff(s.alerts.buyOrder, "buy orders"),
        ].join("\n"),
        inline: true,
      },
      { name: "Quiet hours", value: quiet, inline: true },
      { name: "Time zone", value: timeZoneLabel(s.timezone), inline: true },
    ],
    footer:
      "Caps bound every purchase, bid, buy order and offer: the daily cap counts open bids, orders and offers and what was spent in the last 24 hours. Trade, bid and buy-order alerts always come by DM.",
  });
}

const TYPE_LABELS: Readonly<Record<string, string>> = {
  deposit: "Deposit",
  withdrawal: "Withdrawal",
  fine: "Fine",
  bid_posted: "Bid hold",
  trade_verified: "Sale paid out",
  contract_purchased: "Purchase",
  contract_sold: "Sale",
  contract_purchase_refund: "Purchase refund",
  contract_sale_refund: "Sale reversed",
  rollback: "Hold released",
};

export const transactionTypeLabel = (type: string): string => TYPE_LABELS[type] ?? safeUserText(type, 30);

function transactionLine(t: TransactionView): string {
  const bits = [`**${transactionTypeLabel(t.type)}**`];
  if (t.balanceCents === undefined || t.pendingCents === undefined)
    bits.push("⚠️ amount unreadable (not in whole cents; not shown)");
  if (t.balanceCents !== undefined && t.balanceCents !== 0)
    bits.push(`balance ${money(t.balanceCents, { sign: true })}`);
  if (t.pendingCents !== undefined && t.pendingCents !== 0)
    bits.push(`pending ${money(t.pendingCents, { sign: true })}`);
  if (t.listingId) bits.push(`listing \`${t.listingId}\``);
  if (t.tradeId) bits.push(`trade \`${t.tradeId}\``);
  if (t.createdAt) bits.push(relativeTime(t.createdAt));
  return bits.join(" · ");
}

export function transactionsPageMessage(
  p: TransactionsPage,
  type: string | undefined,
  paging: Paging,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const body =
    p.transactions.length > 0
      ? p.transactions.map(transactionLine).join("\n")
      : p.page === 0
        ? "No transactions yet."
        : "No more transactions.";
  const filter = type ? `${transactionTypeLabel(type)} only · ` : "";
  const total = p.total === undefined ? "" : ` · ${p.total} in all`;
  return {
    embeds: [
      embed({
        tone: "info",
        title: "Balance history",
        description: truncate(body, 4096),
        footer: `${filter}page ${p.page + 1}${total} · newest first`,
      }),
    ],
    components: pagingRow(paging),
  };
}

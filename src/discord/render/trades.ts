// Trades as Discord shows them: one trade with what to do next, a page of trades with Accept and
// an "open" menu, and the results of a bulk accept or cancel. The caller makes the custom ids.
import { ButtonStyle, ComponentType, type APIButtonComponentWithCustomId, type APIEmbed } from "discord.js";
import { safeUserText } from "../../input/parse.ts";
import type { TradeOutcome, TradesPage } from "../../trading/trades.ts";
import { reversalWindowEnd, type TradeView } from "../../trading/views.ts";
import { embed } from "./embeds.ts";
import { deadlineTime, money, relativeTime, truncate } from "./format.ts";
import { button, pagingRow, row, type ActionRow, type Paging } from "./button.ts";
import { itemName } from "./listing.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

const TRADE_STATE: Record<string, string> = {
  queued: "waiting for the seller to accept",
  pending: "accepted: waiting for the item transfer",
  verified: "complete",
  failed: "failed",
  cancelled: "cancelled",
};

export const tradeStateText = (state: string): string => TRADE_STATE[state] ?? safeUserText(state, 30);

/** The state as the reader should read it: a queued sale waits on *them* when they sell. */
const stateFor = (state: string, role: TradeRole): string =>
  state === "queued" && role === "seller" ? "waiting for you to accept" : tradeStateText(state);

export type TradeRole = "buyer" | "seller" | undefined;

/** The caller's side of a trade, from the platform ids (undefined when it cannot be told). */
export function roleIn(t: TradeView, platformId: string | null): TradeRole {
  if (platformId === null) return undefined;
  if (t.sellerId === platformId) return "seller";
  if (t.buyerId === platformId) return "buyer";
  return undefined;
}

/** What the reader should do next, with the deadline as a Discord timestamp. */
function nextStep(t: TradeView, role: TradeRole): string | undefined {
  if (t.state === "queued") {
    const by = t.expiresAt ? ` by ${deadlineTime(t.expiresAt)}` : "";
    return role === "seller" ? `Accept this sale${by}, then send the item.` : `The seller must accept${by}.`;
  }
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    const by = deadline ? ` by ${deadlineTime(deadline)}` : "";
    return role === "seller"
      ? `Send the item transfer offer on the platform${by}, or the trade is cancelled and counted against you.`
      : `The seller sends the item${by}.`;
  }
  return undefined;
}

export function tradeEmbed(t: TradeView, role: TradeRole, title?: string): APIEmbed {
  const name = t.itemName ? itemName(t.itemName) : `Trade ${t.tradeId}`;
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "State", value: stateFor(t.state, role), inline: true },
  ];
  if (t.priceCents !== undefined) fields.push({ name: "Price", value: money(t.priceCents), inline: true });
  if (role) fields.push({ name: "You are", value: role, inline: true });
  const counterpart = role === "seller" ? t.buyerName : role === "buyer" ? t.sellerName : undefined;
  if (counterpart)
    fields.push({
      name: role === "seller" ? "Buyer" : "Seller",
      value: safeUserText(counterpart, 40),
      inline: true,
    });
  if (t.state === "queued" && t.expiresAt)
    fields.push({ name: "Accept by", value: deadlineTime(t.expiresAt), inline: true });
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    if (deadline) fields.push({ name: "Transfer deadline", value: deadlineTime(deadline), inline: true });
  }
  if (t.tradeProtectionEndsAt && (t.state === "pending" || t.state === "verified")) {
    fields.push({ name: "Protection ends", value: relativeTime(t.tradeProtectionEndsAt), inline: true });
  }
  const step = nextStep(t, role);
  const tone =
    t.state === "failed" || t.state === "cancelled" ? "error" : t.state === "verified" ? "success" : "trade";
  return embed({
    tone,
    title: truncate(title ? `${title}: ${t.itemName ?? `trade ${t.tradeId}`}` : name, 256),
    ...(step ? { description: step } : {}),
    fields,
    footer: t.listingId ? `Trade ${t.tradeId} · listing ${t.listingId}` : `Trade ${t.tradeId}`,
    ...(t.createdAt ? { timestamp: t.createdAt } : {}),
  });
}

export interface TradeButtonIds {
  readonly acceptId: (tradeId: string) => string;
  readonly cancelId: (tradeId: string) => string;
}

/** A trade can be cancelled while it is open: queued (not accepted yet) or pending (accepted). */
export const canCancel = (t: TradeView): boolean => t.state === "queued" || t.state === "pending";

/** Accept only for the seller of a queued trade; Cancel trade while the trade is still open. */
export function tradeButtons(t: TradeView, role: TradeRole, ids: TradeButtonIds): ActionRow[] {
  const buttons: APIButtonComponentWithCustomId[] = [];
  if (t.state === "queued" && role === "seller")
    buttons.push(button("Accept", ButtonStyle.Success, ids.acceptId(t.tradeId)));
  if (canCancel(t) && role !== undefined) {
    buttons.push(button("Cancel trade", ButtonStyle.Danger, ids.cancelId(t.tradeId)));
  }
  return row(buttons);
}

/** Where /trades shows the reversal window left on verified trades: the time now and the default. */
export interface ReversalWindow {
  readonly now: Date;
  readonly fallbackMs: number;
}

function tradeLine(t: TradeView, role: TradeRole, position: number, reversal?: ReversalWindow): string {
  const bits = [t.itemName ? itemName(t.itemName, 70) : `trade ${t.tradeId}`];
  if (t.priceCents !== undefined) bits.push(`**${money(t.priceCents)}**`);
  if (role) bits.push(role === "seller" ? "selling" : "buying");
  bits.push(stateFor(t.state, role));
  if (t.state === "queued" && t.expiresAt) bits.push(`accept by ${deadlineTime(t.expiresAt)}`);
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    if (deadline) bits.push(`transfer by ${deadlineTime(deadline)}`);
  }
  const reversibleUntil = reversal ? reversalWindowEnd(t, reversal.fallbackMs) : undefined;
  if (reversibleUntil && reversal && reversibleUntil > reversal.now)
    bits.push(`⏳ reversible until ${relativeTime(reversibleUntil)}`);
  bits.push(`\`${t.tradeId}\``);
  return `\`${position}.\` ${bits.join(" · ")}`;
}

export interface TradesPageIds extends TradeButtonIds {
  /** Accept every trade waiting on the reader; shown when two or more wait. */
  readonly acceptAllId: string;
  /** Select menu opening one trade (values: trade ids). */
  readonly openId: string;
  readonly paging: Paging;
}

export const TRADES_PAGE_SIZE = 10;

/** `roleFilter` stands in for the reader's role when their platform id is unknown. */
export function tradesPageMessage(
  p: TradesPage,
  reader: {
    readonly platformId: string | null;
    readonly roleFilter: TradeRole;
    readonly reversal?: ReversalWindow;
  },
  filter: string,
  ids: TradesPageIds,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const first = p.page * TRADES_PAGE_SIZE + 1;
  const roles = p.trades.map((t) => roleIn(t, reader.platformId) ?? reader.roleFilter);
  const lines = p.trades.map((t, i) => tradeLine(t, roles[i], first + i, reader.reversal));
  const waiting = p.trades.filter((t, i) => t.state === "queued" && roles[i] === "seller");
  const body = lines.length > 0 ? lines.join("\n") : p.page === 0 ? "No trades match." : "No more trades.";
  const header =
    waiting.length > 0 ? `**${plural(waiting.length, "sale")} waiting for you to accept.**\n\n` : "";
  const components: ActionRow[] = [];
  if (p.trades.length > 0) {
    components.push({
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.StringSelect,
          custom_id: ids.openId,
          placeholder: "Open a trade…",
          min_values: 1,
          max_values: 1,
          options: p.trades.slice(0, 25).map((t, i) => ({
            label: truncate(`${first + i}. ${t.itemName ?? `Trade ${t.tradeId}`}`, 100),
            description: truncate(`${stateFor(t.state, roles[i])} · id ${t.tradeId}`, 100),
            value: t.tradeId,
          })),
        },
      ],
    });
  }
  const accepts = waiting
    .slice(0, 4)
    .map((t) =>
      button(`Accept #${first + p.trades.indexOf(t)}`, ButtonStyle.Success, ids.acceptId(t.tradeId)),
    );
  if (waiting.length >= 2)
    accepts.push(button(`Accept all (${waiting.length})`, ButtonStyle.Primary, ids.acceptAllId));
  components.push(...row(accepts), ...pagingRow(ids.paging));
  const total = p.total === undefined ? "" : ` · ${plural(p.total, "trade")}`;
  return {
    embeds: [
      embed({
        tone: waiting.length > 0 ? "warning" : "trade",
        title: "Your trades",
        description: truncate(`${header}${body}`, 4096),
        footer: `${filter} · page ${p.page + 1}${total}`,
      }),
    ],
    components,
  };
}

/** Per-trade results of a bulk accept or cancel: done, already so, not found, or why not. */
export function tradeOutcomesEmbed(
  outcomes: readonly TradeOutcome[],
  verb: "accepted" | "cancelled",
  note?: string,
): APIEmbed {
  const ok = outcomes.filter((o) => o.ok).length;
  const lines = outcomes.map((o) => {
    const name = o.trade?.itemName ? ` ${itemName(o.trade.itemName, 60)}` : "";
    const deadline = o.trade?.transferDeadlineAt ?? o.trade?.expiresAt;
    const by =
      verb === "accepted" && o.state === "pending" && deadline
        ? `; send the item by ${deadlineTime(deadline)}`
        : "";
    switch (o.result) {
      case "done":
        return `✅ \`${o.tradeId}\`${name} ${verb}${by}`;
      case "already":
        return `☑️ \`${o.tradeId}\`${name} already ${o.state === "verified" ? "complete" : verb}${by}`;
      case "not_found":
        return `❌ \`${o.tradeId}\`: not found among your trades`;
      case "not_eligible":
      case "failed": {
        const why = o.error ?? (o.state ? tradeStateText(o.state) : "not changed");
        const failed = o.result === "failed" ? "failed: " : "";
        return `❌ \`${o.tradeId}\`${name}: ${failed}${truncate(safeUserText(why, 200), 200)}`;
      }
    }
  });
  return embed({
    tone: ok === outcomes.length ? "success" : ok === 0 ? "error" : "warning",
    title: `${ok} of ${plural(outcomes.length, "trade")} ${verb}`,
    description: truncate(lines.length > 0 ? lines.join("\n") : "No trades were waiting.", 3800),
    ...(note ? { footer: note } : {}),
  });
}

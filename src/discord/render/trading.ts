// Trading as Discord shows it: purchase quotes and receipts, bids, offers, one's own listings and
// trades (buy orders: ./buyOrders.ts). Plain data in (views from src/trading), embeds and button
// rows out; the caller makes the custom ids, so ownership and expiry stay with the command module.
import { ButtonStyle, ComponentType, type APIButtonComponentWithCustomId, type APIEmbed } from "discord.js";
import { safeUserText } from "../../input/parse.ts";
import type { BidResult } from "../../trading/bid.ts";
import type { BuyQuote, BuyResult } from "../../trading/buy.ts";
import type { OffersPage } from "../../trading/offers.ts";
import type { DelistOutcome } from "../../trading/selling.ts";
import type { TradeOutcome, TradesPage } from "../../trading/trades.ts";
import type { ListingSummary, OfferView, TradeView } from "../../trading/views.ts";
import { embed } from "./embeds.ts";
import { money, relativeTime, truncate } from "./format.ts";
import { itemName, type ActionRow } from "./listing.ts";

type Style = ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Success | ButtonStyle.Danger;

export function button(
  label: string,
  style: Style,
  customId: string,
  disabled = false,
): APIButtonComponentWithCustomId {
  return { type: ComponentType.Button, style, label, custom_id: customId, ...(disabled ? { disabled } : {}) };
}

export function row(buttons: readonly APIButtonComponentWithCustomId[]): ActionRow[] {
  return buttons.length === 0 ? [] : [{ type: ComponentType.ActionRow, components: buttons.slice(0, 5) }];
}

export interface Paging {
  readonly previousId: string;
  readonly nextId: string;
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
}

/** Previous/Next, or nothing when everything fits on one page. */
export function pagingRow(p: Paging | undefined): ActionRow[] {
  if (!p || (!p.hasPrevious && !p.hasNext)) return [];
  return row([
    button("◀ Previous", ButtonStyle.Secondary, p.previousId, !p.hasPrevious),
    button("Next ▶", ButtonStyle.Secondary, p.nextId, !p.hasNext),
  ]);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

// ---- buying ---------------------------------------------------------------------------------

export interface QuoteButtons {
  readonly confirmId: string;
  readonly cancelId: string;
  readonly expiresAt: Date;
}

/** The confirmation asked before any money moves: price, item, caps, and two buttons. */
export function buyQuoteMessage(
  q: BuyQuote,
  b: QuoteButtons,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "Price", value: `**${money(q.priceCents)}**`, inline: true },
  ];
  if (q.referencePriceCents !== undefined) {
    fields.push({ name: "Reference", value: money(q.referencePriceCents), inline: true });
  }
  if (q.floatValue !== undefined)
    fields.push({ name: "Float", value: q.floatValue.toFixed(6), inline: true });
  if (q.paintSeed !== undefined) fields.push({ name: "Seed", value: String(q.paintSeed), inline: true });
  if (q.sellerName !== undefined)
    fields.push({ name: "Seller", value: safeUserText(q.sellerName, 40), inline: true });
  const caps: string[] = [];
  if (q.perPurchaseCapCents !== null) caps.push(`per purchase ${money(q.perPurchaseCapCents)}`);
  if (q.dailyCapCents !== null) {
    const left = Math.max(0, q.dailyCapCents - q.spentTodayCents);
    caps.push(`${money(left)} of ${money(q.dailyCapCents)} left today`);
  }
  if (caps.length > 0) fields.push({ name: "Your caps", value: caps.join("\n") });
  return {
    embeds: [
      embed({
        tone: "deal",
        title: truncate(`Buy ${q.itemName}?`, 256),
        description:
          `You pay **${money(q.priceCents)}** from your marketplace balance, only if the price is still ` +
          `${money(q.priceCents)} when you confirm. This confirmation expires ${relativeTime(b.expiresAt)}.`,
        fields,
        footer: `Listing ${q.listingId}`,
      }),
    ],
    components: row([
      button("Confirm purchase", ButtonStyle.Success, b.confirmId),
      button("Cancel", ButtonStyle.Secondary, b.cancelId),
    ]),
  };
}

export function buyDoneEmbed(r: BuyResult): APIEmbed {
  const name = r.itemName === undefined ? `listing ${r.listingId}` : itemName(r.itemName);
  const lines = [`✅ Bought **${name}** for **${money(r.priceCents)}**.`];
  if (r.trade) {
    lines.push(
      r.trade.expiresAt
        ? `The seller has until ${relativeTime(r.trade.expiresAt)} to accept; then the item transfer follows.`
        : "The seller now accepts the trade; then the item transfer follows.",
    );
  }
  lines.push("Follow it with `/trades list`.");
  return embed({
    tone: "success",
    title: "Purchase complete",
    description: lines.join("\n"),
    footer: r.trade ? `Listing ${r.listingId} · trade ${r.trade.tradeId}` : `Listing ${r.listingId}`,
  });
}

// ---- bidding --------------------------------------------------------------------------------

export function bidEmbed(r: BidResult): APIEmbed {
  const lead = r.youAreTop
    ? "✅ You are the top bidder."
    : r.topBidCents === undefined
      ? "Your bid is placed."
      : "⚠️ Another bidder is ahead of your ceiling.";
  const fields: { name: string; value: string; inline?: boolean }[] = [
    {
      name: "Top bid",
      value: r.topBidCents === undefined ? "no bids yet" : money(r.topBidCents),
      inline: true,
    },
    {
      name: "Next bid from",
      value: r.minNextBidCents === undefined ? "—" : money(r.minNextBidCents),
      inline: true,
    },
    { name: "Your ceiling", value: money(r.maxPriceCents), inline: true },
  ];
  if (r.expiresAt) fields.push({ name: "Ends", value: relativeTime(r.expiresAt), inline: true });
  return embed({
    tone: r.youAreTop ? "success" : "warning",
    title: r.youAreTop ? "Bid placed: you lead" : "Bid placed",
    description: `${lead}\nYour bid rises automatically up to your ceiling; you get a message if you are outbid.`,
    fields,
    footer: `Listing ${r.listingId}`,
  });
}

// ---- offers ---------------------------------------------------------------------------------

function offerLine(o: OfferView): string {
  const bits = [`**${money(o.priceCents)}**`];
  if (o.listingPriceCents !== undefined) bits.push(`asking ${money(o.listingPriceCents)}`);
  if (o.itemName) bits.push(itemName(o.itemName, 60));
  if (o.state) bits.push(safeUserText(o.state, 20));
  if (o.state === "active" && o.expiresAt) bits.push(`expires ${relativeTime(o.expiresAt)}`);
  bits.push(`offer \`${o.offerId}\` on \`${o.listingId}\``);
  return bits.join(" · ");
}

export function offerEmbed(o: OfferView, title: string): APIEmbed {
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "Offer", value: `**${money(o.priceCents)}**`, inline: true },
  ];
  if (o.listingPriceCents !== undefined)
    fields.push({ name: "Asking", value: money(o.listingPriceCents), inline: true });
  if (o.state) fields.push({ name: "State", value: safeUserText(o.state, 20), inline: true });
  if (o.expiresAt) fields.push({ name: "Expires", value: relativeTime(o.expiresAt), inline: true });
  return embed({
    tone: "trade",
    title: o.itemName ? truncate(`${title}: ${o.itemName}`, 256) : title,
    fields,
    footer: `Offer ${o.offerId} · listing ${o.listingId}`,
  });
}

export function offersPageMessage(
  p: OffersPage,
  paging: Paging,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const body =
    p.offers.length > 0
      ? p.offers.map(offerLine).join("\n")
      : p.page === 0
        ? "No offers yet. Make one with `/offer make`."
        : "No more offers.";
  return {
    embeds: [embed({ tone: "trade", title: "Your offers", description: body, footer: `Page ${p.page + 1}` })],
    components: pagingRow(paging),
  };
}

// ---- selling --------------------------------------------------------------------------------

export function listingResultEmbed(l: ListingSummary, title: string): APIEmbed {
  const fields: { name: string; value: string; inline?: boolean }[] = [];
  if (l.type === "auction") {
    fields.push({
      name: "Starting price",
      value: `**${money(l.auction?.reservePriceCents ?? l.priceCents)}**`,
      inline: true,
    });
    if (l.auction?.expiresAt)
      fields.push({ name: "Ends", value: relativeTime(l.auction.expiresAt), inline: true });
  } else {
    fields.push({ name: "Price", value: `**${money(l.priceCents)}**`, inline: true });
    if (l.maxOfferDiscountBps !== undefined) {
      fields.push({
        name: "Offers",
        value:
          l.maxOfferDiscountBps > 0 ? `up to ${(l.maxOfferDiscountBps / 100).toFixed(1)}% off` : "disabled",
        inline: true,
      });
    }
  }
  if (l.referencePriceCents !== undefined)
    fields.push({ name: "Reference", value: money(l.referencePriceCents), inline: true });
  if (l.floatValue !== undefined)
    fields.push({ name: "Float", value: l.floatValue.toFixed(6), inline: true });
  return embed({
    tone: "success",
    title: truncate(`${title}: ${l.itemName}`, 256),
    fields,
    footer: `Listing ${l.listingId} · ${l.type === "auction" ? "auction" : "buy now"}`,
  });
}

export function delistEmbed(outcomes: readonly DelistOutcome[]): APIEmbed {
  const removed = outcomes.filter((o) => o.removed).length;
  const lines = outcomes.map((o) =>
    o.removed
      ? `✅ \`${o.listingId}\` removed`
      : `❌ \`${o.listingId}\`: ${safeUserText(o.problem ?? "not removed", 120)}`,
  );
  return embed({
    tone: removed === outcomes.length ? "success" : removed === 0 ? "error" : "warning",
    title: `Removed ${removed} of ${plural(outcomes.length, "listing")}`,
    description: truncate(lines.join("\n"), 4000),
    footer: "Removed items return to your inventory.",
  });
}

// ---- trades ---------------------------------------------------------------------------------

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
    const by = t.expiresAt ? ` by ${relativeTime(t.expiresAt)}` : "";
    return role === "seller" ? `Accept this sale${by}, then send the item.` : `The seller must accept${by}.`;
  }
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    const by = deadline ? ` by ${relativeTime(deadline)}` : "";
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
    fields.push({ name: "Accept by", value: relativeTime(t.expiresAt), inline: true });
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    if (deadline) fields.push({ name: "Transfer deadline", value: relativeTime(deadline), inline: true });
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

function tradeLine(t: TradeView, role: TradeRole, position: number): string {
  const bits = [t.itemName ? itemName(t.itemName, 70) : `trade ${t.tradeId}`];
  if (t.priceCents !== undefined) bits.push(`**${money(t.priceCents)}**`);
  if (role) bits.push(role === "seller" ? "selling" : "buying");
  bits.push(stateFor(t.state, role));
  if (t.state === "queued" && t.expiresAt) bits.push(`accept by ${relativeTime(t.expiresAt)}`);
  if (t.state === "pending") {
    const deadline = t.transferDeadlineAt ?? t.expiresAt;
    if (deadline) bits.push(`transfer by ${relativeTime(deadline)}`);
  }
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
  reader: { readonly platformId: string | null; readonly roleFilter: TradeRole },
  filter: string,
  ids: TradesPageIds,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const first = p.page * TRADES_PAGE_SIZE + 1;
  const roles = p.trades.map((t) => roleIn(t, reader.platformId) ?? reader.roleFilter);
  const lines = p.trades.map((t, i) => tradeLine(t, roles[i], first + i));
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
      button(`Accept ${first + p.trades.indexOf(t)}.`, ButtonStyle.Success, ids.acceptId(t.tradeId)),
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

/** Per-trade results of a bulk accept or cancel. */
export function tradeOutcomesEmbed(
  outcomes: readonly TradeOutcome[],
  verb: "accepted" | "cancelled",
  note?: string,
): APIEmbed {
  const ok = outcomes.filter((o) => o.ok).length;
  const lines = outcomes.map((o) => {
    const name = o.trade?.itemName ? ` ${itemName(o.trade.itemName, 60)}` : "";
    if (o.ok) {
      const deadline = o.trade?.transferDeadlineAt ?? o.trade?.expiresAt;
      const by = verb === "accepted" && deadline ? `; send the item by ${relativeTime(deadline)}` : "";
      return `✅ \`${o.tradeId}\`${name} ${verb}${by}`;
    }
    return `❌ \`${o.tradeId}\`${name}: ${o.state ? tradeStateText(o.state) : "not changed"}`;
  });
  return embed({
    tone: ok === outcomes.length ? "success" : ok === 0 ? "error" : "warning",
    title: `${ok} of ${plural(outcomes.length, "trade")} ${verb}`,
    description: truncate(lines.length > 0 ? lines.join("\n") : "No trades were waiting.", 3800),
    ...(note ? { footer: note } : {}),
  });
}

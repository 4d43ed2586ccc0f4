// Trading as Discord shows it: purchase quotes and receipts, bids, offers and one's own listings
// (buy orders: ./buyOrders.ts, trades: ./trades.ts). Plain data in (views from src/trading), embeds
// and button rows out; the caller makes the custom ids, so ownership and expiry stay with the
// command module.
import { ButtonStyle, type APIEmbed } from "discord.js";
import { safeUserText } from "../../input/parse.ts";
import type { BidResult } from "../../trading/bid.ts";
import type { BuyQuote, BuyResult } from "../../trading/buy.ts";
import type { OffersPage } from "../../trading/offers.ts";
import type { DelistOutcome } from "../../trading/selling.ts";
import type { ListingSummary, OfferView } from "../../trading/views.ts";
import { embed } from "./embeds.ts";
import { deadlineTime, money, relativeTime, truncate } from "./format.ts";
import { button, pagingRow, row, type ActionRow, type Paging } from "./button.ts";
import { itemName } from "./listing.ts";

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
        ? `The seller has until ${deadlineTime(r.trade.expiresAt)} to accept; then the item transfer follows.`
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

/** Who leads, as far as the marketplace told; a tie at the ceiling goes to the earlier bid. */
function bidLeadLine(r: BidResult): string {
  const tied = r.topBidCents === r.maxPriceCents;
  if (r.youAreTop === true) return "✅ You are the top bidder.";
  if (r.topBidCents === undefined) return "Your bid is placed.";
  if (r.youAreTop === false) {
    return tied
      ? "⚠️ Another bidder set the same ceiling first, and with equal ceilings the earlier bid leads. Raise your ceiling to lead."
      : "⚠️ Another bidder is ahead of your ceiling.";
  }
  return tied
    ? "Your ceiling equals the top bid. With equal ceilings the earlier bid leads, and the marketplace did not say whose that is: your ceiling stays held until the auction ends."
    : "The marketplace did not confirm who leads yet: your ceiling stays held until it does.";
}

export function bidEmbed(r: BidResult): APIEmbed {
  const lead = bidLeadLine(r);
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

/** A listing just made or changed; `durationDays` is what a new auction was listed for. */
export function listingResultEmbed(
  l: ListingSummary & { durationDays?: number | undefined },
  title: string,
): APIEmbed {
  const fields: { name: string; value: string; inline?: boolean }[] = [];
  if (l.type === "auction") {
    fields.push({
      name: "Starting price",
      value: `**${money(l.auction?.reservePriceCents ?? l.priceCents)}**`,
      inline: true,
    });
    if (l.durationDays !== undefined) {
      fields.push({
        name: "Duration",
        value: `${l.durationDays} day${l.durationDays === 1 ? "" : "s"}`,
        inline: true,
      });
    }
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

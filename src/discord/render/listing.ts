// Listings as Discord shows them: the detailed embed with its action buttons, the one-line form used
// in every list (search, stall, watchlist, similar), the "open one" select menu and bid history.
// Reusable by any command or alert: buttons take an id factory, so the caller decides the owner.
import {
  ButtonStyle,
  ComponentType,
  type APIButtonComponentWithCustomId,
  type APIEmbed,
  type APISelectMenuOption,
} from "discord.js";
import { safeUserText } from "../../input/parse.ts";
import { discountPercent, type Cents } from "../../money.ts";
import type { ListingBids, ListingDetail } from "../../trading/listing.ts";
import type { ListingSummary } from "../../trading/views.ts";
import {
  BID_ACTIONS,
  BUY_ACTIONS,
  LISTING_ACTIONS,
  OFFER_ACTIONS,
  WATCH_ACTIONS,
  WATCHLIST_ACTIONS,
} from "../actions.ts";
import { button, type ActionRow, type IdFor } from "./button.ts";
import { embed } from "./embeds.ts";
import { compactDuration, money, relativeTime, truncate } from "./format.ts";
import type { Tone } from "./theme.ts";

/** Item names come from the marketplace: shown literally (markdown and mentions defused). */
export const itemName = (name: string, max = 120): string => safeUserText(name, max);

/** Text for places without markdown (select labels): controls removed, bounded. */
export function plainText(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return truncate(text.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+/g, " ").trim(), max);
}

export function formatFloat(value: number): string {
  return value.toFixed(6);
}

/** "12.3% below ref" / "4.0% above ref" / "at ref"; undefined without a reference. */
export function discountText(price: Cents, reference: Cents | undefined): string | undefined {
  const d = discountPercent(price, reference);
  if (d === undefined) return undefined;
  if (Math.abs(d) < 0.05) return "at ref";
  return d > 0 ? `${d.toFixed(1)}% below ref` : `${(-d).toFixed(1)}% above ref`;
}

const STATE_TEXT: Record<string, string> = {
  listed: "Listed",
  sold: "Sold",
  delisted: "No longer listed",
  refunded: "Refunded (the sale was cancelled)",
};

export function stateText(state: string): string {
  return STATE_TEXT[state] ?? safeUserText(state, 40);
}

function toneOf(l: ListingSummary): Tone {
  if (l.state !== "listed") return "neutral";
  if (l.type === "auction") return "trade";
  const d = discountPercent(l.priceCents, l.referencePriceCents);
  return d !== undefined && d >= 5 ? "deal" : "info";
}

/** Discord only shows https images; the service may send an icon token instead of a URL. */
function thumbnail(url: string | undefined): string | undefined {
  return url !== undefined && /^https:\/\/\S+$/.test(url) ? url : undefined;
}

/** One compact line for lists: "`3.` **$12.50** · Name · 0.152300 · 12.0% below ref · `id`". */
export function listingLine(l: ListingSummary, position: number): string {
  const parts = [`\`${position}.\` **${money(l.priceCents)}**`, itemName(l.itemName, 80)];
  if (l.floatValue !== undefined) parts.push(formatFloat(l.floatValue));
  const discount = discountText(l.priceCents, l.referencePriceCents);
  if (discount) parts.push(discount);
  if (l.type === "auction") {
    const ends = l.auction?.expiresAt;
    parts.push(ends ? `🔨 ends ${relativeTime(ends)}` : "🔨 auction");
  }
  if (l.state !== "listed") parts.push(stateText(l.state).toLowerCase());
  parts.push(`\`${l.listingId}\``);
  return parts.join(" · ");
}

/** A select menu opening one listing of a list (values are listing ids). */
export function listingSelect(
  listings: readonly ListingSummary[],
  firstPosition: number,
  customId: string,
): ActionRow | undefined {
  if (listings.length === 0) return undefined;
  const options: APISelectMenuOption[] = listings.slice(0, 25).map((l, i) => {
    const bits = [money(l.priceCents)];
    if (l.floatValue !== undefined) bits.push(`float ${formatFloat(l.floatValue)}`);
    if (l.type === "auction") bits.push("auction");
    bits.push(`id ${l.listingId}`);
    return {
      label: plainText(`${firstPosition + i}. ${l.itemName}`, 100),
      description: truncate(bits.join(" · "), 100),
      value: l.listingId,
    };
  });
  return {
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.StringSelect,
        custom_id: customId,
        placeholder: "Open a listing…",
        min_values: 1,
        max_values: 1,
        options,
      },
    ],
  };
}

/**
 * The item's screenshot and inspect links as one field value. Discord links only http(s): the
 * game's inspect link (its own scheme) is shown as text to copy.
 */
export function itemLinksText(links: {
  inspectLink?: string | undefined;
  screenshotUrl?: string | undefined;
}): string | undefined {
  const parts: string[] = [];
  if (links.screenshotUrl !== undefined && /^https:\/\/\S+$/.test(links.screenshotUrl))
    parts.push(`[Screenshot](${links.screenshotUrl})`);
  if (links.inspectLink !== undefined) {
    parts.push(
      /^https:\/\/\S+$/.test(links.inspectLink)
        ? `[Inspect in game](${links.inspectLink})`
        : `Inspect: \`${links.inspectLink.replaceAll("`", "")}\``,
    );
  }
  return parts.length === 0 ? undefined : truncate(parts.join("\n"), 1024);
}

/** The full view of one listing. */
export function listingEmbed(d: ListingDetail): APIEmbed {
  const fields: { name: string; value: string; inline?: boolean }[] = [];
  const isAuction = d.type === "auction";
  fields.push({ name: isAuction ? "Price now" : "Price", value: money(d.priceCents), inline: true });
  if (d.referencePriceCents !== undefined) {
    const discount = discountText(d.priceCents, d.referencePriceCents);
    fields.push({
      name: "Reference",
      value: discount ? `${money(d.referencePriceCents)}\n${discount}` : money(d.referencePriceCents),
      inline: true,
    });
  } else {
    fields.push({ name: "Reference", value: "—", inline: true });
  }
  fields.push({ name: "Type", value: isAuction ? "🔨 Auction" : "Buy now", inline: true });

  fields.push({ name: "Wear", value: d.wearName ? safeUserText(d.wearName, 40) : "—", inline: true });
  fields.push({
    name: "Float",
    value: d.floatValue === undefined ? "—" : formatFloat(d.floatValue),
    inline: true,
  });
  fields.push({ name: "Seed", value: d.paintSeed === undefined ? "—" : String(d.paintSeed), inline: true });

  const extras: { name: string; value: string; inline: boolean }[] = [];
  if (d.paintIndex !== undefined)
    extras.push({ name: "Paint index", value: String(d.paintIndex), inline: true });
  if (d.rarityName) extras.push({ name: "Rarity", value: safeUserText(d.rarityName, 40), inline: true });
  if (d.phase) extras.push({ name: "Phase", value: safeUserText(d.phase, 40), inline: true });
  if (d.isStatcounter || d.isSouvenir) {
    extras.push({ name: "Category", value: d.isStatcounter ? "Statcounter" : "Souvenir", inline: true });
  }
  fields.push(...extras.slice(0, 3));

  if (isAuction && d.auction) {
    const a = d.auction;
    fields.push(
      {
        name: "Top bid",
        value: a.topBidCents === undefined ? "no bids yet" : money(a.topBidCents),
        inline: true,
      },
      {
        name: "Next bid from",
        value: a.minNextBidCents === undefined ? "—" : money(a.minNextBidCents),
        inline: true,
      },
      {
        name: d.state === "listed" ? "Ends" : "Ended",
        value: a.expiresAt === undefined ? "—" : relativeTime(a.expiresAt),
        inline: true,
      },
    );
  }

  if (d.stickers.length > 0) {
    const lines = d.stickers.map((s) => {
      const name = itemName(s.name ?? `Sticker ${s.stickerId}`, 60);
      const bits = [];
      if (s.slot !== undefined) bits.push(`slot ${s.slot}`);
      if (s.wear !== undefined && s.wear > 0) bits.push(`${Math.round(s.wear * 100)}% worn`);
      if (s.referencePriceCents !== undefined) bits.push(money(s.referencePriceCents));
      return bits.length > 0 ? `${name} (${bits.join(", ")})` : name;
    });
    fields.push({ name: "Stickers", value: truncate(lines.join("\n"), 1000) });
  }
  if (d.keychains.length > 0) {
    const lines = d.keychains.map((k) => {
      const name = itemName(k.name ?? `Charm ${k.stickerId}`, 60);
      return k.pattern === undefined ? name : `${name} (pattern ${k.pattern})`;
    });
    fields.push({ name: "Keychains", value: truncate(lines.join("\n"), 1000) });
  }

  if (d.seller) {
    const s = d.seller;
    const bits = [s.name ? `**${safeUserText(s.name, 40)}**` : "Seller"];
    if (s.verifiedTrades !== undefined) bits.push(`${s.verifiedTrades} verified trades`);
    if (s.medianTradeTimeSeconds !== undefined)
      bits.push(`median trade ${compactDuration(s.medianTradeTimeSeconds * 1000)}`);
    if (s.online === true) bits.push("online");
    fields.push({ name: "Seller", value: bits.join(" · ") });
  }

  const links = itemLinksText(d.links);
  if (links !== undefined) fields.push({ name: "Links", value: links });

  const description: string[] = [];
  if (d.state !== "listed") {
    const when = d.state === "sold" && d.soldAt ? ` ${relativeTime(d.soldAt)}` : "";
    description.push(`**${stateText(d.state)}**${when}`);
  }
  if (d.isSeller) description.push("This is your listing.");
  if (d.description) description.push(`> ${safeUserText(d.description, 180)}`);

  const footer = [`Listing ${d.listingId}`];
  if (d.seller?.platformId) footer.push(`seller ${d.seller.platformId}`);
  if (d.watchers !== undefined && d.watchers > 0) footer.push(`${d.watchers} watching`);
  if (d.isWatchlisted) footer.push("on your watchlist");

  const thumb = thumbnail(d.iconUrl);
  return embed({
    tone: toneOf(d),
    title: truncate(d.itemName, 256),
    ...(description.length > 0 ? { description: description.join("\n") } : {}),
    fields,
    ...(thumb ? { thumbnailUrl: thumb } : {}),
    footer: footer.join(" · "),
    ...(d.createdAt ? { timestamp: d.createdAt } : {}),
  });
}

/** Whether the seller takes offers: a positive maximum discount, or a minimum offer below the price. */
export function acceptsOffers(l: ListingSummary): boolean {
  if (l.maxOfferDiscountBps !== undefined) return l.maxOfferDiscountBps > 0;
  return l.minOfferPriceCents !== undefined && l.minOfferPriceCents < l.priceCents;
}

/**
 * The buttons that fit the listing's type and state: buying, bidding and offering only on a listed
 * item that is not the reader's own; watching only while listed; similar always; bids on auctions.
 */
export function listingButtons(d: ListingDetail, idFor: IdFor): ActionRow[] {
  const id = d.listingId;
  const listed = d.state === "listed";
  const canAct = listed && !d.isSeller;
  const buttons: APIButtonComponentWithCustomId[] = [];
  if (canAct && d.type === "buy_now")
    buttons.push(button("Buy", ButtonStyle.Success, idFor(BUY_ACTIONS.start, id)));
  if (canAct && d.type === "auction")
    buttons.push(button("Bid", ButtonStyle.Primary, idFor(BID_ACTIONS.open, id)));
  if (canAct && d.type === "buy_now" && acceptsOffers(d)) {
    buttons.push(button("Make offer", ButtonStyle.Secondary, idFor(OFFER_ACTIONS.open, id)));
  }
  if (listed) {
    buttons.push(
      d.isWatchlisted
        ? button("Unwatch", ButtonStyle.Secondary, idFor(WATCHLIST_ACTIONS.remove, id))
        : button("Watch", ButtonStyle.Secondary, idFor(WATCHLIST_ACTIONS.add, id)),
    );
  }
  buttons.push(button("Similar", ButtonStyle.Secondary, idFor(LISTING_ACTIONS.similar, id)));
  if (d.type === "auction")
    buttons.push(button("Bids", ButtonStyle.Secondary, idFor(LISTING_ACTIONS.bids, id)));
  // A rule like this listing: on a row of its own, so the listing's own actions keep their places.
  const watch = button("Watch similar", ButtonStyle.Secondary, idFor(WATCH_ACTIONS.similar, id));
  return [
    { type: ComponentType.ActionRow, components: buttons.slice(0, 5) },
    { type: ComponentType.ActionRow, components: [watch] },
  ];
}

/** Bid history of an auction, most recent first. */
export function bidsEmbed({ listing, bids }: ListingBids, max = 15): APIEmbed {
  const title = truncate(`Bids: ${listing.itemName}`, 256);
  const footer = `Listing ${listing.listingId}`;
  if (listing.type !== "auction") {
    return embed({
      tone: "info",
      title,
      description: "This is a buy-now listing; it takes no bids.",
      footer,
    });
  }
  const a = listing.auction;
  const summary: string[] = [];
  if (a?.topBidCents !== undefined) summary.push(`Top bid **${money(a.topBidCents)}**`);
  if (a?.minNextBidCents !== undefined && listing.state === "listed")
    summary.push(`next bid from ${money(a.minNextBidCents)}`);
  if (a?.expiresAt)
    summary.push(`${listing.state === "listed" ? "ends" : "ended"} ${relativeTime(a.expiresAt)}`);
  const lines = bids.slice(0, max).map((b) => {
    const bits = [`**${money(b.priceCents)}**`];
    if (b.bidder) bits.push(`bidder ${safeUserText(b.bidder, 24)}`);
    if (b.state) bits.push(safeUserText(b.state, 16));
    if (b.createdAt) bits.push(relativeTime(b.createdAt));
    return bits.join(" · ");
  });
  if (bids.length > max) lines.push(`…and ${bids.length - max} earlier bids.`);
  const body = lines.length > 0 ? lines.join("\n") : "No bids yet.";
  return embed({
    tone: listing.state === "listed" ? "trade" : "neutral",
    title,
    description: summary.length > 0 ? `${summary.join(" · ")}\n\n${body}` : body,
    footer: `${footer} · ${bids.length} bid${bids.length === 1 ? "" : "s"}`,
  });
}

// Pages of listings (search results, stalls, the watchlist, similar listings): one line per listing,
// a select menu to open one, and Previous/Next buttons when there is more than one page.
import type { APIEmbed } from "discord.js";
import type { SortBy } from "../../market/schemas.ts";
import type { SearchFilters } from "../../trading/search.ts";
import type { ListingSummary } from "../../trading/views.ts";
import { embed } from "./embeds.ts";
import { money, truncate } from "./format.ts";
import { pagingRow, type ActionRow, type Paging } from "./button.ts";
import { formatFloat, itemName, listingLine, listingSelect } from "./listing.ts";
import type { Tone } from "./theme.ts";

export const PAGE_SIZE = 10;

/** Friendly names of the marketplace's sort orders (also the /search `sort` choices). */
export const SORT_NAMES: Readonly<Record<SortBy, string>> = {
  best_deal: "Best deal",
  lowest_price: "Lowest price",
  highest_price: "Highest price",
  most_recent: "Newest",
  expires_soon: "Ending soonest",
  lowest_float: "Lowest float",
  highest_float: "Highest float",
  highest_discount: "Biggest discount",
  float_rank: "Float rank",
  num_bids: "Most bids",
};

export interface ListingPageView {
  readonly title: string;
  readonly tone?: Tone;
  /** Lines above the results (filters, totals). */
  readonly header?: string;
  readonly listings: readonly ListingSummary[];
  /** Zero-based page number. */
  readonly page: number;
  /** Text shown instead of results on an empty page. */
  readonly empty: string;
  readonly footer?: string;
  /** Custom id of the "open a listing" select menu. */
  readonly openId: string;
  /** Paging buttons; absent when the results fit on one page. */
  readonly paging?: Paging;
}

export interface ListingPageMessage {
  embeds: APIEmbed[];
  components: ActionRow[];
}

export function listingPageMessage(v: ListingPageView): ListingPageMessage {
  const first = v.page * PAGE_SIZE + 1;
  const lines = v.listings.map((l, i) => listingLine(l, first + i));
  const body = lines.length > 0 ? lines.join("\n") : v.empty;
  const description = v.header ? `${v.header}\n\n${body}` : body;
  const pageText =
    v.listings.length > 0
      ? `Page ${v.page + 1} · ${first}–${first + v.listings.length - 1}`
      : `Page ${v.page + 1}`;
  const components: ActionRow[] = [];
  const select = listingSelect(v.listings, first, v.openId);
  if (select) components.push(select);
  components.push(...pagingRow(v.paging));
  return {
    embeds: [
      embed({
        tone: v.tone ?? "info",
        title: truncate(v.title, 256),
        description: truncate(description, 4096),
        footer: v.footer ? `${pageText} · ${v.footer}` : pageText,
      }),
    ],
    components,
  };
}

/** "item Rifle | Skin · $5.00–$20.00 · float ≤ 0.07 · buy now" — what the search asked for. */
export function filtersSummary(f: SearchFilters): string {
  const parts: string[] = [];
  if (f.itemName) parts.push(`**${itemName(f.itemName, 100)}**`);
  if (f.minPriceCents !== undefined || f.maxPriceCents !== undefined) {
    parts.push(range(f.minPriceCents, f.maxPriceCents, money));
  }
  if (f.minFloat !== undefined || f.maxFloat !== undefined) {
    parts.push(`float ${range(f.minFloat, f.maxFloat, (x) => trimFloat(x))}`);
  }
  if (f.type) parts.push(f.type === "auction" ? "auctions" : "buy now");
  if (f.category && f.category !== "any") parts.push(f.category);
  if (f.paintSeed !== undefined) parts.push(`seed ${f.paintSeed}`);
  if (f.paintIndex !== undefined) parts.push(`paint index ${f.paintIndex}`);
  if (f.defIndex !== undefined) parts.push(`def index ${f.defIndex}`);
  if (f.rarity !== undefined) parts.push(`rarity ${f.rarity}`);
  if (f.collection) parts.push(`collection ${itemName(f.collection, 60)}`);
  if (f.stickers && f.stickers.length > 0) {
    parts.push(
      `stickers ${f.stickers.map((s) => (s.slot === undefined ? `${s.stickerId}` : `${s.stickerId} in slot ${s.slot}`)).join(", ")}`,
    );
  }
  if (f.sellerId) parts.push(`seller ${f.sellerId}`);
  if (f.minReferenceQuantity !== undefined) parts.push(`≥ ${f.minReferenceQuantity} reference sales`);
  return parts.length > 0 ? parts.join(" · ") : "All listings";
}

function range<T>(min: T | undefined, max: T | undefined, fmt: (v: T) => string): string {
  if (min !== undefined && max !== undefined) return `${fmt(min)}–${fmt(max)}`;
  if (min !== undefined) return `≥ ${fmt(min)}`;
  return `≤ ${fmt(max as T)}`;
}

/** 0.070000 -> "0.07": filters read as typed. */
function trimFloat(value: number): string {
  return formatFloat(value).replace(/\.?0+$/, "") || "0";
}

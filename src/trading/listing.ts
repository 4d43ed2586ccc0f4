// One listing in detail (item, stickers, seller, auction), its bid history and similar listings.
import type { Cents } from "../money.ts";
import type { Listing } from "../market/schemas.ts";
import { itemLinksOf, type ItemLinks } from "../market/links.ts";
import type { MarketDeps } from "./deps.ts";
import { requireId } from "../input/validate.ts";
import { toBidView, toListingSummary, type BidView, type ListingSummary } from "./views.ts";

export interface StickerView {
  stickerId: number;
  name: string | undefined;
  slot: number | undefined;
  /** 0 (new) to 1 (scraped off), as the service states it. */
  wear: number | undefined;
  referencePriceCents: Cents | undefined;
}

export interface KeychainView {
  stickerId: number;
  name: string | undefined;
  pattern: number | undefined;
}

export interface SellerView {
  platformId: string | undefined;
  name: string | undefined;
  verifiedTrades: number | undefined;
  totalTrades: number | undefined;
  failedTrades: number | undefined;
  /** Seconds from sale to verified trade, median over the seller's trades. */
  medianTradeTimeSeconds: number | undefined;
  online: boolean | undefined;
  stallPublic: boolean | undefined;
}

export interface ListingDetail extends ListingSummary {
  wearName: string | undefined;
  rarityName: string | undefined;
  collection: string | undefined;
  phase: string | undefined;
  isStatcounter: boolean;
  isSouvenir: boolean;
  /** As the service sends it; not necessarily a URL. */
  iconUrl: string | undefined;
  description: string | undefined;
  stickers: StickerView[];
  keychains: KeychainView[];
  seller: SellerView | undefined;
  /** Number of sales behind the reference price. */
  referenceQuantity: number | undefined;
  /** Whether the caller watches it (only known when asked with a key). */
  isWatchlisted: boolean | undefined;
  watchers: number | undefined;
  /** The game's inspect link and the item's screenshot, when the listing has them. */
  links: ItemLinks;
}

const round = (v: number | undefined): Cents | undefined => (v === undefined ? undefined : Math.round(v));

export function toListingDetail(listing: Listing, screenshotTemplate?: string): ListingDetail {
  const item = listing.item;
  const seller = listing.seller;
  const stats = seller?.statistics;
  return {
    ...toListingSummary(listing),
    wearName: item.wear_name,
    rarityName: item.rarity_name,
    collection: item.collection,
    phase: item.phase,
    isStatcounter: item.is_statcounter === true,
    isSouvenir: item.is_souvenir === true,
    iconUrl: item.icon_url,
    description: listing.description,
    stickers: (item.stickers ?? []).map((s) => ({
      stickerId: s.stickerId,
      name: s.name,
      slot: s.slot,
      wear: s.wear,
      referencePriceCents: round(s.reference?.price),
    })),
    keychains: (item.keychains ?? []).map((k) => ({
      stickerId: k.stickerId,
      name: k.name,
      pattern: k.pattern,
    })),
    seller: seller && {
      platformId: seller.platform_id,
      name: seller.username,
      verifiedTrades: stats?.total_verified_trades,
      totalTrades: stats?.total_trades,
      failedTrades: stats?.total_failed_trades,
      medianTradeTimeSeconds: stats?.median_trade_time,
      online: seller.online,
      stallPublic: seller.stall_public,
    },
    referenceQuantity: (listing.reference ?? item.reference)?.quantity,
    isWatchlisted: listing.is_watchlisted,
    watchers: listing.watchers,
    links: itemLinksOf(listing, screenshotTemplate),
  };
}

export async function viewListing(
  deps: MarketDeps,
  input: { listingId: string; screenshotTemplate?: string | undefined },
): Promise<ListingDetail> {
  const listingId = requireId("id", input.listingId);
  return toListingDetail(await deps.market.getListing(listingId), input.screenshotTemplate);
}

export interface ListingBids {
  listing: ListingSummary;
  /** Most recent first. */
  bids: BidView[];
}

export async function listingBids(deps: MarketDeps, input: { listingId: string }): Promise<ListingBids> {
  const listingId = requireId("id", input.listingId);
  // Independent public reads: ask at once.
  const [listing, bids] = await Promise.all([
    deps.market.getListing(listingId),
    deps.market.getListingBids(listingId),
  ]);
  const views = bids.map(toBidView);
  views.sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
  return { listing: toListingSummary(listing), bids: views };
}

export async function similarListings(
  deps: MarketDeps,
  input: { listingId: string },
): Promise<ListingSummary[]> {
  const listingId = requireId("id", input.listingId);
  const similar = await deps.market.getSimilarListings(listingId);
  // The service may include the listing itself; it is not "similar" to the reader.
  return similar.filter((l) => l.id !== listingId).map(toListingSummary);
}

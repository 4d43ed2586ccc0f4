// Listings as one caller sees them (is_seller, is_watchlisted), with the auction's details.
import type { ListingRec, Store } from "../state/index.ts";
import { minNextBid, minOfferPrice } from "../state/index.ts";
import { bidJson, type BidJson } from "./bids.ts";
import { iso, referenceJson, userSummary, type ReferenceJson, type UserSummaryJson } from "./common.ts";
import { itemJson, type ItemJson } from "./items.ts";
import { withQuirk } from "./quirks.ts";

export interface ListingJson {
  id: string;
  created_at: string;
  sold_at?: string;
  type: "buy_now" | "auction";
  price: number;
  state: string;
  description: string;
  seller: UserSummaryJson;
  item: ItemJson;
  reference?: ReferenceJson;
  is_seller: boolean;
  min_offer_price: number;
  max_offer_discount: number;
  is_watchlisted: boolean;
  watchers: number;
  private: boolean;
  auction_details?: {
    expires_at: string;
    reserve_price: number;
    min_next_bid: number;
    top_bid?: BidJson;
  };
}

export function listingJson(store: Store, l: ListingRec, viewerId?: string): ListingJson {
  const seller = store.user(l.sellerId);
  const out: ListingJson = {
    id: l.id,
    created_at: iso(l.createdAt),
    type: l.type,
    price: l.price,
    state: l.state,
    description: l.description,
    seller: userSummary(seller),
    item: itemJson(store, l),
    is_seller: viewerId === l.sellerId,
    min_offer_price: minOfferPrice(l),
    max_offer_discount: l.maxOfferDiscount,
    is_watchlisted: viewerId !== undefined && l.watchers.has(viewerId),
    watchers: l.watchers.size,
    private: l.private,
  };
  if (l.soldAt !== undefined) out.sold_at = iso(l.soldAt);
  const ref = referenceJson(store, l.asset.item.marketHashName, l.asset.item.floatValue);
  if (ref) out.reference = ref;
  const a = l.auction;
  if (a) {
    const top = a.bids.find((b) => b.state !== "outbid" && b.state !== "replaced");
    out.auction_details = {
      expires_at: iso(a.expiresAt),
      reserve_price: a.reservePrice,
      min_next_bid: minNextBid(a, l.price),
      ...(top ? { top_bid: bidJson(store, top) } : {}),
    };
  }
  return l.quirk === undefined ? out : withQuirk(out, l.quirk);
}

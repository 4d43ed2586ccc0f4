// Offers on a buy-now listing, with the listing they are for.
import type { OfferRec, Store } from "../state/index.ts";
import { iso, userSummary, type UserSummaryJson } from "./common.ts";
import { listingJson, type ListingJson } from "./listings.ts";

export interface OfferJson {
  id: string;
  contract_id: string;
  buyer_id: string;
  message_id: string;
  created_at: string;
  expires_at: string;
  contract_price: number;
  price: number;
  type: string;
  state: string;
  buyer: UserSummaryJson;
  contract: ListingJson;
}

export function offerJson(store: Store, o: OfferRec, viewerId?: string): OfferJson {
  const listing = store.listings.get(o.listingId);
  if (!listing) throw new Error(`offer ${o.id} lost its listing`);
  return {
    id: o.id,
    contract_id: o.listingId,
    buyer_id: o.buyerId,
    message_id: o.messageId,
    created_at: iso(o.createdAt),
    expires_at: iso(o.expiresAt),
    contract_price: o.contractPrice,
    price: o.price,
    type: o.type,
    state: o.state,
    buyer: userSummary(store.user(o.buyerId)),
    contract: listingJson(store, listing, viewerId),
  };
}

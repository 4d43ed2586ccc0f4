// Bids as the spec shows them, and the bare receipt the live service answers to placing one.
import type { BidRec, Store } from "../state/index.ts";
import { iso } from "./common.ts";

export interface BidJson {
  id: string;
  contract_id: string;
  obfuscated_buyer_id: string;
  price: number;
  state: string;
  created_at: string;
}

export interface BidReceiptJson {
  id: string;
  created_at: string;
  max_price: number;
  contract_id: string;
}

/**
 * The answer to placing a bid, as the live service sends it: `{ id, created_at, max_price,
 * contract_id }`, with no price and no state (a live-tested SDK and a typed client agree).
 */
export function bidReceiptJson(b: BidRec, maxPrice: number): BidReceiptJson {
  return { id: b.id, created_at: iso(b.createdAt), max_price: maxPrice, contract_id: b.listingId };
}

export function bidJson(store: Store, b: BidRec): BidJson {
  const bidder = store.users.get(b.bidderId);
  return {
    id: b.id,
    contract_id: b.listingId,
    obfuscated_buyer_id: bidder?.obfuscatedId ?? "0",
    price: b.price,
    state: b.state,
    created_at: iso(b.createdAt),
  };
}

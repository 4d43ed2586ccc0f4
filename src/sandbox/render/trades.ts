// Trades as buyer or seller see them: states, the platform offer, the trade link and protection end.
import type { Store, TradeRec, UserRec } from "../state/index.ts";
import { HOUR } from "../state/index.ts";
import { protectionEndsAt } from "../trades.ts";
import { iso, userSummary, type UserSummaryJson } from "./common.ts";
import { listingJson, type ListingJson } from "./listings.ts";

export interface TradeJson {
  id: string;
  buyer_id: string;
  seller_id: string;
  contract_id: string;
  created_at: string;
  accepted_at?: string;
  verified_at?: string;
  expires_at: string;
  buyer: UserSummaryJson;
  seller: UserSummaryJson;
  contract: ListingJson;
  state: string;
  verification_mode: string;
  trade_token: string;
  trade_url: string;
  platform_offer?: {
    id: string;
    state: number;
    is_from_seller: boolean;
    sent_at: string;
    updated_at: string;
    deadline_at: string;
    can_cancel_at: string;
  };
  inventory_check_status: number;
  verify_sale_at?: string;
  trade_protection_ends_at?: string;
  wait_for_cancel_ping: boolean;
  is_settlement_period: boolean;
}

/** The trade link the seller sends the item to: the buyer's, carrying the secret token. */
export function tradeUrl(buyer: UserRec, token: string): string {
  return `https://platform.invalid/tradeoffer/new/?partner=${buyer.platformId}&token=${token}`;
}

export function tradeJson(store: Store, t: TradeRec, viewerId?: string): TradeJson {
  const buyer = store.user(t.buyerId);
  const seller = store.user(t.sellerId);
  const listing = store.listings.get(t.listingId);
  if (!listing) throw new Error(`trade ${t.id} lost its listing`);
  const out: TradeJson = {
    id: t.id,
    buyer_id: t.buyerId,
    seller_id: t.sellerId,
    contract_id: t.listingId,
    created_at: iso(t.createdAt),
    expires_at: iso(t.expiresAt),
    buyer: userSummary(buyer),
    seller: userSummary(seller),
    contract: listingJson(store, listing, viewerId),
    state: t.state,
    verification_mode: "inventory",
    trade_token: t.tradeToken,
    trade_url: tradeUrl(buyer, t.tradeToken),
    inventory_check_status: t.state === "verified" ? 2 : 1,
    wait_for_cancel_ping: false,
    is_settlement_period: t.state === "pending",
  };
  if (t.acceptedAt !== undefined) {
    out.accepted_at = iso(t.acceptedAt);
    out.platform_offer = {
      id: t.platformOfferId ?? "0",
      state: t.state === "verified" ? 3 : t.state === "pending" ? 2 : 7,
      is_from_seller: true,
      sent_at: iso(t.acceptedAt),
      updated_at: iso(t.verifiedAt ?? t.closedAt ?? t.acceptedAt),
      deadline_at: iso(t.expiresAt),
      can_cancel_at: iso(t.acceptedAt + HOUR / 2),
    };
  }
  if (t.verifyAt !== undefined) out.verify_sale_at = iso(t.verifyAt);
  if (t.verifiedAt !== undefined) {
    out.verified_at = iso(t.verifiedAt);
    out.trade_protection_ends_at = iso(protectionEndsAt(t) ?? t.verifiedAt);
  }
  return out;
}

// Turns sandbox records into the spec's JSON resources, as seen by one caller (is_seller, is_watchlisted).
// One file per resource in this folder; this module is the one the rest of the sandbox imports.
export {
  iso,
  referenceJson,
  userSummary,
  type Json,
  type ReferenceJson,
  type UserSummaryJson,
} from "./common.ts";
export { bidJson, bidReceiptJson, type BidJson, type BidReceiptJson } from "./bids.ts";
export { itemJson, type ItemJson, type KeychainJson, type StickerJson } from "./items.ts";
export { listingJson, type ListingJson } from "./listings.ts";
export { tradeJson, tradeUrl, type TradeJson } from "./trades.ts";
export { offerJson, type OfferJson } from "./offers.ts";
export { buyOrderJson, type BuyOrderAggregateJson, type BuyOrderJson } from "./buyOrders.ts";
export { transactionJson, type TransactionJson } from "./ledger.ts";

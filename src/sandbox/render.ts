// Turns sandbox records into the spec's JSON resources, as seen by one caller (is_seller, is_watchlisted).
// One file per resource under render/; this module is the one the rest of the sandbox imports.
export {
  iso,
  referenceJson,
  userSummary,
  type Json,
  type ReferenceJson,
  type UserSummaryJson,
} from "./render/common.ts";
export { bidJson, bidReceiptJson, type BidJson, type BidReceiptJson } from "./render/bids.ts";
export { itemJson, type ItemJson, type KeychainJson, type StickerJson } from "./render/items.ts";
export { listingJson, type ListingJson } from "./render/listings.ts";
export { tradeJson, tradeUrl, type TradeJson } from "./render/trades.ts";
export { offerJson, type OfferJson } from "./render/offers.ts";
export { buyOrderJson, type BuyOrderAggregateJson, type BuyOrderJson } from "./render/buyOrders.ts";
export { transactionJson, type TransactionJson } from "./render/ledger.ts";

// What callers may send: zod schemas of query parameters and request bodies (spec section 4,
// field names the spec leaves "not shown" from docs/live-service.md), checked before any request leaves.
import { z } from "zod";
import { Cents, Id, ListingType, SortBy, TransactionType } from "./schemas.ts";

const PositiveInt = z.number().int().min(1);
const PageIndex = z.number().int().min(0);
const Order = z.enum(["asc", "desc"]);
const Float01 = z.number().min(0).max(1);
const NonEmpty = z.string().min(1);
const IdList = z.array(Id).min(1);

/** One sticker filter selector: a sticker id, optionally pinned to a slot. */
export const StickerSelector = z.object({
  id: z.number().int().min(0),
  slot: z.number().int().min(0).optional(),
});
export type StickerSelector = z.input<typeof StickerSelector>;

/**
 * The single place that encodes the stickers filter. The spec documents `id|slot`, but the live
 * service ignores that form (two clients, one tested live) and honours the JSON form
 * `[{"i":id,"s":slot}]`, slot left out when not pinned (docs/live-service.md, "Listings").
 */
export function encodeStickerSelectors(selectors: readonly StickerSelector[]): string {
  return JSON.stringify(selectors.map((s) => (s.slot === undefined ? { i: s.id } : { i: s.id, s: s.slot })));
}

export const SearchListingsQuery = z.object({
  cursor: NonEmpty.optional(),
  limit: z.number().int().min(1).max(50).optional(),
  sort_by: SortBy.optional(),
  /** 0 any, 1 normal, 2 statcounter, 3 souvenir (see CATEGORY). */
  category: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional(),
  def_index: z.number().int().optional(),
  paint_index: z.number().int().optional(),
  paint_seed: z.number().int().optional(),
  rarity: z.number().int().optional(),
  min_float: Float01.optional(),
  max_float: Float01.optional(),
  user_id: Id.optional(),
  collection: NonEmpty.optional(),
  market_hash_name: NonEmpty.optional(),
  min_price: Cents.optional(),
  max_price: Cents.optional(),
  type: ListingType.optional(),
  stickers: z.array(StickerSelector).min(1).optional(),
  min_ref_qty: z.number().int().min(0).optional(),
});
export type SearchListingsQuery = z.input<typeof SearchListingsQuery>;

export const HistoryQuery = z.object({ paint_index: z.number().int().optional() });
export type HistoryQuery = z.input<typeof HistoryQuery>;

export const StallQuery = z.object({
  cursor: NonEmpty.optional(),
  limit: PositiveInt.optional(),
  filter: z.enum(["unique", "sticker_combos"]).optional(),
});
export type StallQuery = z.input<typeof StallQuery>;

/** Fields of one new listing (docs/live-service.md). Buy-now listings need a price. */
const NewListingFields = z.object({
  asset_id: NonEmpty,
  type: ListingType.optional(),
  price: Cents.optional(),
  /** Basis points: 1500 = 15%. */
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  /** Auction starting price. */
  reserve_price: Cents.optional(),
  duration_days: z.union([z.literal(1), z.literal(3), z.literal(5), z.literal(7), z.literal(14)]).optional(),
  description: z.string().max(180).optional(),
  private: z.boolean().optional(),
});
export const NewListing = NewListingFields.refine((l) => l.type === "auction" || l.price !== undefined, {
  message: "a buy-now listing needs a price",
  path: ["price"],
}).refine((l) => l.type !== "auction" || l.duration_days !== undefined, {
  // The live service refuses an auction without it (its own docs): never let one leave without.
  message: "an auction needs duration_days",
  path: ["duration_days"],
});
export type NewListing = z.input<typeof NewListing>;

const ListingChangeFields = z.object({
  price: Cents.optional(),
  description: z.string().max(180).optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  private: z.boolean().optional(),
});
const hasAChange = (c: z.infer<typeof ListingChangeFields>) =>
  c.price !== undefined ||
  c.description !== undefined ||
  c.max_offer_discount !== undefined ||
  c.private !== undefined;

export const ListingPatch = ListingChangeFields.refine(hasAChange, {
  message: "at least one property is required",
});
export type ListingPatch = z.input<typeof ListingPatch>;

export const ListingModification = ListingChangeFields.extend({ contract_id: Id }).refine(hasAChange, {
  message: "at least one property besides contract_id is required",
});
export type ListingModification = z.input<typeof ListingModification>;

export const BulkListBody = z.object({
  items: z.array(NewListing).min(1),
  /** Sent once per batch, never per item (spec 4.2). */
  notary_payload: z.string().min(1).optional(),
});
export const BulkModifyBody = z.object({ modifications: z.array(ListingModification).min(1) });
export const BulkDelistBody = z.object({ contract_ids: IdList });

export const BuyBody = z.object({
  contract_ids: IdList,
  /** Sum of the current prices; any mismatch fails the whole purchase. */
  total_price: Cents,
});
export type BuyBody = z.input<typeof BuyBody>;

export const BidBody = z.object({ max_price: Cents });

export const ListingBuyOrdersQuery = z.object({ limit: PositiveInt.optional() });
export type ListingBuyOrdersQuery = z.input<typeof ListingBuyOrdersQuery>;

export const BuyOrdersForItemQuery = z.object({
  url: NonEmpty,
  market_hash_name: NonEmpty,
  sig: NonEmpty,
  limit: PositiveInt.optional(),
});
export type BuyOrdersForItemQuery = z.input<typeof BuyOrdersForItemQuery>;

const SelectorId = z.object({ sId: z.number().int() });

/** Item constraints of a buy order (spec 2.5). */
export const BuyOrderConstraints = z.object({
  min_float: Float01.nullish(),
  max_float: Float01.nullish(),
  paint_index: z.number().int().nullish(),
  paint_seeds: z.array(z.number().int()).nullish(),
  applied_stickers: z.array(SelectorId).nullish(),
  applied_keychains: z.array(SelectorId).nullish(),
  min_keychain_pattern: z.number().int().nullish(),
  max_keychain_pattern: z.number().int().nullish(),
});
export type BuyOrderConstraints = z.input<typeof BuyOrderConstraints>;

/** Every constraint field, in the order the flat PATCH body carries them. */
export const CONSTRAINT_FIELDS = [
  "min_float",
  "max_float",
  "paint_index",
  "paint_seeds",
  "applied_stickers",
  "applied_keychains",
  "min_keychain_pattern",
  "max_keychain_pattern",
] as const satisfies readonly (keyof BuyOrderConstraints)[];

export const NewBuyOrder = z.object({
  market_hash_name: NonEmpty,
  max_price: Cents,
  quantity: PositiveInt,
  hybrid_properties: BuyOrderConstraints.optional(),
});
export type NewBuyOrder = z.input<typeof NewBuyOrder>;

/**
 * The complete desired state of a buy order. The service's update is absolute: a constraint
 * missing here is cleared, so pass the order's current constraints with your changes applied.
 */
export const BuyOrderState = z.object({
  max_price: Cents,
  quantity: PositiveInt,
  constraints: BuyOrderConstraints,
});
export type BuyOrderState = z.input<typeof BuyOrderState>;

export const SimilarBuyOrdersBody = z.object({
  market_hash_name: NonEmpty,
  hybrid_properties: BuyOrderConstraints.optional(),
});
export type SimilarBuyOrdersBody = z.input<typeof SimilarBuyOrdersBody>;

export const LimitQuery = z.object({ limit: PositiveInt.optional() });
export type LimitQuery = z.input<typeof LimitQuery>;

export const MyBuyOrdersQuery = z.object({
  page: PageIndex.optional(),
  limit: PositiveInt.optional(),
  order: Order.optional(),
});
export type MyBuyOrdersQuery = z.input<typeof MyBuyOrdersQuery>;

export const NewOffer = z.object({
  contract_id: Id,
  price: Cents,
  cancel_previous_offer: z.boolean().optional(),
});
export type NewOffer = z.input<typeof NewOffer>;

export const PriceBody = z.object({ price: Cents });

export const OffersTimelineQuery = z.object({
  page: PageIndex.optional(),
  limit: PositiveInt.optional(),
  /** Repeated as `states=a&states=b`. */
  states: z.array(NonEmpty).min(1).optional(),
});
export type OffersTimelineQuery = z.input<typeof OffersTimelineQuery>;

export const MyTradesQuery = z.object({
  /** One state or several; sent comma-separated. */
  state: z.union([NonEmpty, z.array(NonEmpty).min(1)]).optional(),
  role: z.enum(["buyer", "seller"]).optional(),
  page: PageIndex.optional(),
  limit: PositiveInt.optional(),
});
export type MyTradesQuery = z.input<typeof MyTradesQuery>;

export const TradeIdsBody = z.object({ trade_ids: IdList });

export const TransactionsQuery = z.object({
  page: PageIndex.optional(),
  limit: PositiveInt.optional(),
  order: Order.optional(),
  type: TransactionType.optional(),
});
export type TransactionsQuery = z.input<typeof TransactionsQuery>;

export const WatchlistQuery = z.object({ cursor: NonEmpty.optional(), limit: PositiveInt.optional() });
export type WatchlistQuery = z.input<typeof WatchlistQuery>;

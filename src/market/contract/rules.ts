// What the bot reads of each answer: per read-only route, the objects it walks and, per object, the
// fields it relies on with their expected type. Known field names come from the zod schemas, so a
// field the schemas list is never reported as unknown.
import type { z } from "zod";
import type { RouteName } from "../routes.ts";
import { BuyOrder, BuyOrderAggregate, HybridProperties } from "../schemas/buyOrders.ts";
import { AuctionDetails, Bid, Item, Listing, UserSummary } from "../schemas/listings.ts";
import { HistoryPoint, SaleEntry, Transaction } from "../schemas/account.ts";
import { Offer, Trade } from "../schemas/trades.ts";

/**
 * id: a numeric string. cents: integer cents (a money amount the bot acts on); signedCents: the same,
 * signed (ledger offsets). A money field in another form (a string, a fraction, a decimal point) is
 * drift: its unit may have changed. number/int: a number or a numeric string (tolerated: several
 * live clients see strings, e.g. the ledger's money-like detail fields). The rest are JSON types.
 */
export type FieldType =
  "id" | "cents" | "signedCents" | "number" | "int" | "string" | "boolean" | "timestamp" | "list" | "object";

/**
 * always: every object must carry it. usually: at least one of a sample of many objects must carry
 * it (a float is absent on a sticker, but not on a whole page). optional: checked when present.
 */
export type Need = "always" | "usually" | "optional";

/** The money actions a changed amount must stop: auto-buy goes through "buy". */
export type MoneyAction = "buy" | "bid" | "buyOrder" | "offer";
export const MONEY_ACTIONS: readonly MoneyAction[] = ["buy", "bid", "buyOrder", "offer"];
/**
 * What an amount that is no longer integer cents holds: every action that spends. A service that
 * changes how it writes money does not do it one route at a time, and a buy order's max_price is
 * read in the same unit as the listing prices it is compared with.
 */
const SPENDS = MONEY_ACTIONS;

export interface FieldRule {
  readonly type: FieldType;
  readonly need: Need;
  /** Set on amounts the bot spends from: a type change here holds these actions. */
  readonly money?: readonly MoneyAction[];
}

export interface ObjectContract {
  /** Where the objects are: "" the root, "[]" the root list's elements, "data[].item" and so on. */
  readonly at: string;
  /** Every field name the bot's schemas know here (the rest is reported as unknown). */
  readonly known: readonly string[];
  readonly fields: Readonly<Record<string, FieldRule>>;
}

export interface RouteContract {
  readonly route: RouteName;
  /** The root: an object, a list, or either (GET /listings: a bare array from older versions). */
  readonly root: "object" | "list" | "page";
  readonly objects: readonly ObjectContract[];
}

const keys = (schema: z.ZodObject) => Object.keys(schema.shape);
const always = (type: FieldType, money?: readonly MoneyAction[]): FieldRule =>
  money === undefined ? { type, need: "always" } : { type, need: "always", money };
const usually = (type: FieldType, money?: readonly MoneyAction[]): FieldRule =>
  money === undefined ? { type, need: "usually" } : { type, need: "usually", money };
const optional = (type: FieldType, money?: readonly MoneyAction[]): FieldRule =>
  money === undefined ? { type, need: "optional" } : { type, need: "optional", money };

/** Query fields that narrow a search to some items: its answer is then no sample of the market. */
export const ITEM_FILTERS = [
  "market_hash_name",
  "def_index",
  "paint_index",
  "paint_seed",
  "collection",
  "rarity",
  "category",
  "min_float",
  "max_float",
  "stickers",
  "user_id",
] as const;

/** The path of a field or object below `at` ("" is the root). */
const below = (at: string, name: string) => (at === "" ? name : `${at}.${name}`);

/** A listing at `at` with its item, seller and auction details. */
function listingObjects(at: string): ObjectContract[] {
  return [
    {
      at,
      // `private` is a listing's own flag (set when selling); the bot does not read it.
      known: [...keys(Listing), "private"],
      fields: {
        id: always("id"),
        type: always("string"),
        price: always("cents", SPENDS),
        state: always("string"),
        item: always("object"),
        seller: optional("object"),
        created_at: usually("timestamp"),
        min_offer_price: optional("cents", SPENDS),
        max_offer_discount: optional("number"),
        auction_details: optional("object"),
      },
    },
    {
      at: below(at, "item"),
      known: keys(Item),
      fields: {
        market_hash_name: always("string"),
        // What rules and searches filter on: a broad sample of the market shows each of them.
        float_value: usually("number"),
        paint_seed: usually("int"),
        def_index: usually("int"),
        paint_index: usually("int"),
        is_statcounter: usually("boolean"),
        stickers: usually("list"),
        // In the spec, but absent from the items public clients report from the live service.
        wear_name: optional("string"),
        rarity: optional("int"),
        collection: optional("string"),
        is_souvenir: optional("boolean"),
        keychains: optional("list"),
        inspect_link: optional("string"),
        phase: optional("string"),
        icon_url: optional("string"),
      },
    },
    { at: below(at, "seller"), known: keys(UserSummary), fields: { platform_id: optional("id") } },
    {
      at: below(at, "auction_details"),
      known: keys(AuctionDetails),
      fields: {
        expires_at: usually("timestamp"),
        min_next_bid: usually("cents", SPENDS),
        reserve_price: optional("cents", SPENDS),
        top_bid: optional("object"),
      },
    },
    {
      at: below(at, "auction_details.top_bid"),
      known: keys(Bid),
      fields: { id: always("id"), price: always("cents", SPENDS) },
    },
  ];
}

const aggregate = (at: string): ObjectContract[] => [
  {
    at,
    known: keys(BuyOrderAggregate),
    fields: {
      price: always("cents", SPENDS),
      qty: always("int"),
      market_hash_name: optional("string"),
      expression: optional("string"),
      hybrid_properties: optional("object"),
    },
  },
  { at: below(at, "hybrid_properties"), known: keys(HybridProperties), fields: {} },
];

const buyOrder = (at: string): ObjectContract[] => [
  {
    at,
    known: keys(BuyOrder),
    fields: {
      id: always("id"),
      price: always("cents", SPENDS),
      qty: always("int"),
      market_hash_name: optional("string"),
      expression: optional("string"),
      hybrid_properties: optional("object"),
    },
  },
  { at: below(at, "hybrid_properties"), known: keys(HybridProperties), fields: {} },
];

const trade = (at: string): ObjectContract[] => [
  {
    at,
    known: keys(Trade),
    fields: {
      id: always("id"),
      state: always("string"),
      contract: usually("object"),
      created_at: optional("timestamp"),
      accepted_at: optional("timestamp"),
      platform_offer: optional("object"),
    },
  },
  ...listingObjects(below(at, "contract")),
];

/** Every read-only route the bot calls, in the order the doctor probes them. */
export const CONTRACTS: readonly RouteContract[] = [
  {
    route: "getMe",
    root: "object",
    objects: [
      // The balance is cents shown to the user: a dollar amount would read a hundred times too small.
      { at: "", known: ["user", "balance", ...keys(UserSummary)], fields: { balance: optional("cents") } },
    ],
  },
  {
    route: "searchListings",
    root: "page",
    objects: [
      { at: "", known: ["data", "cursor"], fields: { data: always("list"), cursor: optional("string") } },
      ...listingObjects("data[]"),
    ],
  },
  { route: "getListing", root: "object", objects: listingObjects("") },
  {
    route: "getListingBids",
    root: "list",
    objects: [
      {
        at: "[]",
        known: keys(Bid),
        fields: { id: always("id"), price: always("cents", SPENDS), created_at: optional("timestamp") },
      },
    ],
  },
  { route: "getSimilarListings", root: "list", objects: listingObjects("[]") },
  {
    route: "getHistoryGraph",
    root: "list",
    objects: [
      {
        at: "[]",
        known: keys(HistoryPoint),
        fields: { day: always("string"), count: always("number"), avg_price: always("number") },
      },
    ],
  },
  {
    route: "getHistorySales",
    root: "list",
    objects: [
      {
        at: "[]",
        known: keys(SaleEntry),
        fields: { price: always("cents"), sold_at: usually("timestamp"), item: usually("object") },
      },
      { at: "[].item", known: keys(Item), fields: { market_hash_name: optional("string") } },
    ],
  },
  {
    route: "getStall",
    root: "object",
    objects: [
      {
        at: "",
        known: ["data", "cursor", "total_count", "total_price"],
        // Totals may be absent (an SDK types them optional); when there, the price is integer cents.
        fields: { data: always("list"), total_count: optional("int"), total_price: optional("cents") },
      },
      ...listingObjects("data[]"),
    ],
  },
  { route: "getListingBuyOrders", root: "list", objects: aggregate("[]") },
  { route: "getBuyOrdersForItem", root: "list", objects: buyOrder("[]").map((o) => withOptionalId(o)) },
  {
    route: "getSimilarBuyOrders",
    root: "object",
    objects: [{ at: "", known: ["data"], fields: { data: always("list") } }, ...aggregate("data[]")],
  },
  {
    route: "getMyBuyOrders",
    root: "object",
    objects: [
      { at: "", known: ["orders", "count"], fields: { orders: always("list"), count: optional("int") } },
      ...buyOrder("orders[]"),
    ],
  },
  {
    route: "getOffersTimeline",
    root: "object",
    objects: [
      { at: "", known: ["offers"], fields: { offers: always("list") } },
      {
        at: "offers[]",
        known: keys(Offer),
        fields: {
          id: always("id"),
          contract_id: always("id"),
          price: always("cents", SPENDS),
          state: optional("string"),
          contract_price: optional("cents", SPENDS),
        },
      },
    ],
  },
  {
    route: "getMyTrades",
    root: "object",
    objects: [
      { at: "", known: ["trades", "count"], fields: { trades: always("list"), count: optional("int") } },
      ...trade("trades[]"),
    ],
  },
  { route: "getTrade", root: "object", objects: trade("") },
  {
    route: "getTransactions",
    root: "object",
    objects: [
      {
        at: "",
        known: ["transactions", "count"],
        fields: { transactions: always("list"), count: optional("int") },
      },
      {
        at: "transactions[]",
        known: keys(Transaction),
        fields: {
          type: always("string"),
          balance_offset: optional("signedCents"),
          pending_offset: optional("signedCents"),
        },
      },
    ],
  },
  {
    route: "getWatchlist",
    root: "page",
    objects: [
      { at: "", known: ["data", "cursor"], fields: { data: always("list"), cursor: optional("string") } },
      ...listingObjects("data[]"),
    ],
  },
];

/** GET /buy-orders/item: advanced orders carry no id there. */
function withOptionalId(o: ObjectContract): ObjectContract {
  if (!("id" in o.fields)) return o;
  return { ...o, fields: { ...o.fields, id: optional("id") } };
}

const BY_ROUTE = new Map<RouteName, RouteContract>(CONTRACTS.map((c) => [c.route, c]));

export function contractOf(route: RouteName): RouteContract | undefined {
  return BY_ROUTE.get(route);
}

// What autocomplete can offer for an id option: the user's open buy orders, trades, the assets the
// bot can see they own, auctions they bid on and recent auctions. Each is one read of the market
// (plus the database for bids), shaped as plain facts; labels are the Discord side's business.
import { listBidsForUser } from "../db/repos/bids.ts";
import type { Db } from "../db/types.ts";
import type { MarketApi } from "../market/client.ts";
import type { Trade } from "../market/schemas.ts";

export interface OrderChoice {
  readonly id: string;
  /** The item, or an advanced order's expression. */
  readonly itemName: string;
  readonly priceCents: number;
  readonly quantity: number;
  readonly bought: number;
}

export interface TradeChoice {
  readonly id: string;
  readonly itemName: string | undefined;
  readonly priceCents: number | undefined;
  readonly state: string;
  /** Whether the user sells or buys in it; undefined when the trade does not say. */
  readonly role: "seller" | "buyer" | undefined;
}

export interface AssetChoice {
  readonly assetId: string;
  readonly itemName: string;
  readonly floatValue: number | undefined;
}

export interface AuctionChoice {
  readonly id: string;
  readonly itemName: string | undefined;
  /** The current price (top bid, else the start price); undefined for a bid whose listing was not read. */
  readonly priceCents: number | undefined;
  readonly endsAt: string | undefined;
  /** The user's ceiling, when they bid on it through the bot. */
  readonly ceilingCents: number | undefined;
}

const PAGE = 50;

/** The user's buy orders, newest first (one page). */
export async function orderChoices(market: MarketApi): Promise<OrderChoice[]> {
  const page = await market.getMyBuyOrders({ limit: PAGE });
  return page.orders.map((o) => ({
    id: o.id,
    itemName: o.market_hash_name ?? o.expression ?? "advanced order",
    priceCents: o.price,
    quantity: o.qty,
    bought: o.bought_item_count ?? 0,
  }));
}

function roleIn(t: Trade, platformId: string | null): TradeChoice["role"] {
  if (platformId === null) return undefined;
  if (t.seller_id === platformId || t.seller?.platform_id === platformId) return "seller";
  if (t.buyer_id === platformId || t.buyer?.platform_id === platformId) return "buyer";
  return undefined;
}

/** The user's trades, newest first (one page); `states` narrows them (e.g. the cancellable ones). */
export async function tradeChoices(
  market: MarketApi,
  platformId: string | null,
  states?: readonly string[],
): Promise<TradeChoice[]> {
  const page = await market.getMyTrades({
    limit: PAGE,
    ...(states === undefined ? {} : { state: [...states] }),
  });
  return page.trades.map((t) => ({
    id: t.id,
    itemName: t.contract?.item.market_hash_name,
    priceCents: t.contract?.price,
    state: t.state,
    role: roleIn(t, platformId),
  }));
}

/**
 * Assets the bot can see the user owns. The marketplace publishes no inventory route (the spec
 * shows none), so this is what its trades tell: items bought in verified trades. Items held
 * before, or received elsewhere, are not known to the bot.
 */
export async function assetChoices(market: MarketApi): Promise<AssetChoice[]> {
  const page = await market.getMyTrades({ role: "buyer", state: "verified", limit: PAGE });
  const seen = new Map<string, AssetChoice>();
  for (const t of page.trades) {
    const item = t.contract?.item;
    const assetId = item?.asset_id;
    if (item === undefined || assetId === undefined || seen.has(assetId)) continue;
    seen.set(assetId, {
      assetId,
      itemName: item.market_hash_name,
      floatValue: item.float_value,
    });
  }
  return [...seen.values()];
}

/** Auctions the user bid on through the bot (still open), then the newest auctions on the market. */
export async function auctionChoices(db: Db, market: MarketApi, userId: number): Promise<AuctionChoice[]> {
  const [bids, page] = await Promise.all([
    listBidsForUser(db, userId),
    market.searchListings({ type: "auction", sort_by: "most_recent", limit: PAGE }),
  ]);
  const recent = page.data.filter((l) => l.type === "auction");
  const byId = new Map(recent.map((l) => [l.id, l]));
  const current = (l: (typeof recent)[number]) =>
    l.auction_details?.top_bid?.price ?? l.auction_details?.min_next_bid ?? l.price;
  const mine: AuctionChoice[] = bids
    .filter((b) => b.status === "active" || b.status === "outbid")
    .reverse()
    .map((b) => {
      const l = byId.get(b.listingId);
      return {
        id: b.listingId,
        itemName: l?.item.market_hash_name,
        priceCents: l === undefined ? undefined : current(l),
        endsAt: l?.auction_details?.expires_at ?? b.expiresAt?.toISOString(),
        ceilingCents: b.maxPriceCents,
      };
    });
  const taken = new Set(mine.map((c) => c.id));
  const others: AuctionChoice[] = recent
    .filter((l) => !taken.has(l.id))
    .map((l) => ({
      id: l.id,
      itemName: l.item.market_hash_name,
      priceCents: current(l),
      endsAt: l.auction_details?.expires_at,
      ceilingCents: undefined,
    }));
  return [...mine, ...others];
}

/** Whether a choice fits what the user typed: an id prefix, or every word in its text. */
export function fitsTyped(typed: string, id: string, text: string | undefined): boolean {
  const t = typed.trim().toLowerCase();
  if (t === "" || id.startsWith(t)) return true;
  const lower = (text ?? "").toLowerCase();
  return t.split(/\s+/).every((w) => lower.includes(w));
}

// Deal quality of a listing: profit after the seller fee (resale at the reference, instant exit to the best buy order) and its special values.
import type { FeeModel } from "../market/fees.ts";
import type { Listing, Sticker } from "../market/schemas.ts";
import type { Cents } from "../money.ts";

/** The reference price a discount is measured against; see referencePriceOf in src/market/reference.ts. */
type ReferenceOf = (listing: Listing) => number | undefined;

/**
 * What the applied stickers are worth: each sticker's reference price discounted by its wear,
 * price × (1 − wear), wear absent = 0 (a fresh sticker), clamped to [0, 1]. A sticker without a
 * reference price counts as nothing, so the total is a lower bound: a minimum it clears is
 * cleared for real. Undefined when the item does not say which stickers it carries.
 */
export function stickerValueCents(stickers: readonly Sticker[] | undefined): Cents | undefined {
  if (stickers === undefined) return undefined;
  let total = 0;
  for (const s of stickers) {
    const price = s.reference?.price;
    if (price === undefined || !Number.isFinite(price) || price <= 0) continue;
    const wear = Math.min(1, Math.max(0, s.wear ?? 0));
    total += price * (1 - wear);
  }
  return Math.round(total);
}

/** The highest standing buy order for the item: the listing's reference first, then the item's. */
export function buyOrderPriceOf(listing: Listing): Cents | undefined {
  const price =
    listing.reference?.buy_order?.max_price ?? listing.item.reference?.buy_order?.max_price ?? undefined;
  return price !== undefined && Number.isFinite(price) && price > 0 ? Math.round(price) : undefined;
}

/** Everything a deal filter or an alert may show; a field is absent when its input is. */
export interface DealFacts {
  /** Profit of buying at the listing price and selling at the reference, after the seller fee. */
  netResaleCents?: Cents;
  /** netResaleCents as a percent of the listing price. */
  netResalePercent?: number;
  /** Profit of selling at once to the highest buy order, after the seller fee. */
  exitCents?: Cents;
  /** That buy order's price. */
  exitBuyOrderCents?: Cents;
  fadePercent?: number;
  fadeRank?: number;
  playsideBlue?: number;
  backsideBlue?: number;
  /** item.low_rank: 1 is the lowest float of its kind. */
  floatRank?: number;
  stickerValueCents?: Cents;
  /** stickerValueCents as a percent of the listing price. */
  stickerPercent?: number;
}

const finite = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
const percentOf = (part: number, price: Cents): number | undefined =>
  price > 0 ? (part / price) * 100 : undefined;

export function dealOf(listing: Listing, fees: FeeModel, referenceOf: ReferenceOf): DealFacts {
  const d: DealFacts = {};
  const item = listing.item;
  const price = listing.price;
  const ref = referenceOf(listing);
  if (ref !== undefined) {
    d.netResaleCents = fees.profit(price, Math.round(ref));
    const pct = percentOf(d.netResaleCents, price);
    if (pct !== undefined) d.netResalePercent = pct;
  }
  const buyOrder = buyOrderPriceOf(listing);
  if (buyOrder !== undefined) {
    d.exitCents = fees.profit(price, buyOrder);
    d.exitBuyOrderCents = buyOrder;
  }
  if (finite(item.fade?.percentage)) d.fadePercent = item.fade.percentage;
  if (finite(item.fade?.rank)) d.fadeRank = item.fade.rank;
  if (finite(item.blue_gem?.["playside_blue"])) d.playsideBlue = item.blue_gem["playside_blue"];
  if (finite(item.blue_gem?.["backside_blue"])) d.backsideBlue = item.blue_gem["backside_blue"];
  if (finite(item.low_rank) && item.low_rank >= 1) d.floatRank = item.low_rank;
  const stickers = stickerValueCents(item.stickers);
  if (stickers !== undefined) {
    d.stickerValueCents = stickers;
    const pct = percentOf(stickers, price);
    if (pct !== undefined) d.stickerPercent = pct;
  }
  return d;
}

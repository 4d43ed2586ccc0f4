// A listing alert's payload (plain data) from a listing and the rule it matched: the deal figures
// as the rule's filters read them, the item's extras, links and auction state.
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";
import { itemLinksOf } from "../market/links.ts";
import { referencePriceOf } from "../market/reference.ts";
import type { Listing } from "../market/schemas.ts";
import { discountPercent } from "../money.ts";
import type { AppliedExtra, ListingAlert } from "../outbox/payload.ts";
import { dealOf } from "./deal.ts";
import { describeFilters } from "./describeFilters.ts";
import type { RuleFilters } from "./ruleFilters.ts";

function isoOrUndefined(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

function extras(
  list: ReadonlyArray<{
    name?: string | undefined;
    slot?: number | undefined;
    wear?: number | undefined;
    stickerId: number;
  }>,
): AppliedExtra[] {
  return list.map((s) => ({
    name: s.name ?? `#${s.stickerId}`,
    ...(s.slot === undefined ? {} : { slot: s.slot }),
    ...(s.wear === undefined ? {} : { wear: s.wear }),
  }));
}

const oneDecimal = (x: number) => Math.round(x * 10) / 10;

/** Deal-quality fields of a listing alert; each only when the listing has its data. */
function dealFieldsOf(listing: Listing, fees: FeeModel): Partial<ListingAlert> {
  const d = dealOf(listing, fees, referencePriceOf);
  const a: Partial<ListingAlert> = {};
  if (d.netResaleCents !== undefined) a.netResaleCents = d.netResaleCents;
  if (d.netResalePercent !== undefined) a.netResalePercent = oneDecimal(d.netResalePercent);
  if (d.exitCents !== undefined && d.exitBuyOrderCents !== undefined) {
    a.exitCents = d.exitCents;
    a.exitBuyOrderCents = d.exitBuyOrderCents;
  }
  if (a.netResaleCents !== undefined || a.exitCents !== undefined) a.sellerFeeBps = fees.sellerFeeBps;
  if (d.fadePercent !== undefined) {
    a.fade = {
      percent: d.fadePercent,
      ...(d.fadeRank !== undefined && Number.isInteger(d.fadeRank) ? { rank: d.fadeRank } : {}),
    };
  }
  if (d.playsideBlue !== undefined || d.backsideBlue !== undefined) {
    a.blueGem = {
      ...(d.playsideBlue === undefined ? {} : { playside: d.playsideBlue }),
      ...(d.backsideBlue === undefined ? {} : { backside: d.backsideBlue }),
    };
  }
  if (d.floatRank !== undefined && Number.isInteger(d.floatRank)) a.floatRank = d.floatRank;
  // No stickers, or none with a price: nothing worth a field.
  if (d.stickerValueCents !== undefined && d.stickerValueCents > 0) {
    a.stickerValueCents = d.stickerValueCents;
    if (d.stickerPercent !== undefined) a.stickerPercent = oneDecimal(d.stickerPercent);
  }
  return a;
}

/** `fees`: the seller fee the profit figures assume (the configured one in the running bot). */
export function listingAlertOf(
  listing: Listing,
  rule: { id: number; name: string; filters: RuleFilters },
  fees: FeeModel = DEFAULT_FEES,
  screenshotTemplate?: string,
): ListingAlert {
  const item = listing.item;
  const ref = referencePriceOf(listing);
  const discount = discountPercent(listing.price, ref);
  const auction = listing.auction_details;
  const a: ListingAlert = {
    kind: "listing",
    ruleId: String(rule.id),
    ruleName: rule.name,
    ruleSummary: describeFilters(rule.filters),
    listingId: listing.id,
    listingType: listing.type,
    itemName: item.market_hash_name,
    priceCents: listing.price,
    stickers: extras(item.stickers ?? []),
    keychains: extras(item.keychains ?? []),
    ...dealFieldsOf(listing, fees),
    ...itemLinksOf(listing, screenshotTemplate),
  };
  if (item.float_value !== undefined) a.floatValue = item.float_value;
  if (item.paint_seed !== undefined) a.paintSeed = item.paint_seed;
  if (item.paint_index !== undefined) a.paintIndex = item.paint_index;
  if (ref !== undefined) a.referenceCents = Math.round(ref);
  if (discount !== undefined) a.discountPercent = Math.round(discount * 10) / 10;
  if (item.icon_url !== undefined) a.iconUrl = item.icon_url;
  if (listing.seller?.username !== undefined) a.sellerName = listing.seller.username;
  const listedAt = isoOrUndefined(listing.created_at);
  if (listedAt !== undefined) a.listedAt = listedAt;
  if (listing.type === "auction") {
    const expiresAt = isoOrUndefined(auction?.expires_at);
    a.auction = {
      ...(auction?.top_bid?.price === undefined ? {} : { topBidCents: auction.top_bid.price }),
      ...(auction?.min_next_bid === undefined ? {} : { minNextBidCents: auction.min_next_bid }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }
  return a;
}

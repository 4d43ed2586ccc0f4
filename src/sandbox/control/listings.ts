// Control over listings, bids and offers: template listings (normal, odd, unreadable), rival bids, offers.
import { z } from "zod";
import { notFound, badRequest } from "../errors.ts";
import { makeAsset, modelPrice, type ItemSpec } from "../factory.ts";
import { IdField, MoneyField } from "../http.ts";
import { createListing, listingOf, placeBid, settleAuction } from "../listings.ts";
import { acceptOffer, createOffer, declineOffer } from "../offers.ts";
import {
  bidJson,
  listingJson,
  offerJson,
  type BidJson,
  type ListingJson,
  type OfferJson,
} from "../render/index.ts";
import type { World } from "../seed.ts";
import { DAY, type Store, type UserRec } from "../state/index.ts";

const StickerPin = z.union([
  z.number().int().nonnegative(),
  z.object({
    stickerId: z.number().int().nonnegative(),
    slot: z.number().int().min(0).max(5).optional(),
    /** 0 = fresh, 1 = scraped off (drawn when absent). */
    wear: z.number().min(0).max(1).optional(),
  }),
]);
const KeychainPin = z.union([
  z.number().int().nonnegative(),
  z.object({ stickerId: z.number().int().nonnegative(), pattern: z.number().int().nonnegative().optional() }),
]);

export const ListingTemplate = z.object({
  sellerPlatformId: IdField.optional(),
  market_hash_name: z.string().min(1).optional(),
  price: MoneyField.min(3).optional(),
  type: z.enum(["buy_now", "auction"]).optional(),
  float_value: z.number().min(0).max(1).optional(),
  paint_seed: z.number().int().min(0).max(1000).optional(),
  paint_index: z.number().int().nonnegative().optional(),
  def_index: z.number().int().nonnegative().optional(),
  stickers: z.array(StickerPin).max(5).optional(),
  keychains: z.array(KeychainPin).max(1).optional(),
  /** Sets the reference (predicted and base price) of the item's name; null removes it. */
  reference_price: MoneyField.nullable().optional(),
  reference_quantity: z.number().int().nonnegative().optional(),
  is_statcounter: z.boolean().optional(),
  is_souvenir: z.boolean().optional(),
  /** Spec 2.3 item.fade: percentage, rank; its seed is the item's paint seed. */
  fade: z
    .object({
      percentage: z.number().min(0).max(100),
      rank: z.number().int().min(1).optional(),
      type: z.string().optional(),
    })
    .optional(),
  /** Spec 2.3 item.blue_gem, e.g. { playside_blue: 74.2, backside_blue: 40.1 }. */
  blue_gem: z.record(z.string(), z.number().min(0).max(100)).optional(),
  /** Spec 2.3 item.low_rank (1 = lowest float of its kind); drawn from the float when absent. */
  low_rank: z.number().int().min(1).optional(),
  auction_duration_ms: z.number().int().positive().optional(),
  reserve_price: MoneyField.min(3).optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  description: z.string().max(180).optional(),
  private: z.boolean().optional(),
});
export type ListingTemplate = z.input<typeof ListingTemplate>;

export interface ListingControl {
  createListing(template?: ListingTemplate): ListingJson;
  createListings(n: number, template?: ListingTemplate): ListingJson[];
  /**
   * A listing whose item fields have the odd types some live answers carry (sticker_index as a
   * string, nulls inside blue_gem and fade, a sticker without wear): readable, and matchable.
   */
  createOddListing(template?: ListingTemplate): ListingJson;
  /** A listing no client can read (its price is "abc"), among the normal ones of GET /listings. */
  createUnreadableListing(template?: ListingTemplate): { id: string };
  /** A synthetic rival bids up to maxPrice (proxy rules apply). */
  placeCompetingBid(listingId: string, maxPrice: number): BidJson;
  /** The auction stays listed past its end, as live when the service settles late. */
  holdAuctionSettlement(listingId: string): void;
  /** Settles a held auction now (if its end has passed): the leader buys it at the standing price. */
  settleHeldAuction(listingId: string): ListingJson;
  /** A synthetic buyer makes an offer on a listing. */
  makeOffer(listingId: string, price: number): OfferJson;
  /** The party that did not write the offer accepts or declines it. */
  respondToOffer(offerId: string, action: "accept" | "decline"): OfferJson;
}

export function listingControl(store: Store, world: World): ListingControl {
  const rng = store.rng;

  const syntheticBidder = (exclude: string | undefined): UserRec => {
    for (const u of store.users.values()) {
      if (u.kind === "synthetic" && u.name.startsWith("rival_bidder_") && u.platformId !== exclude) return u;
    }
    throw new Error("no synthetic bidder");
  };

  const control: ListingControl = {
    createListing(input = {}) {
      store.tick();
      const t = ListingTemplate.parse(input);
      const seller =
        t.sellerPlatformId !== undefined ? store.user(t.sellerPlatformId) : rng.pick(world.sellers);
      const spec: ItemSpec = {
        marketHashName: t.market_hash_name,
        defIndex: t.def_index,
        paintIndex: t.paint_index,
        floatValue: t.float_value,
        paintSeed: t.paint_seed,
        statcounter: t.is_statcounter,
        souvenir: t.is_souvenir,
        stickers: t.stickers?.map((s, i) => (typeof s === "number" ? { stickerId: s, slot: i } : s)),
        keychains: t.keychains?.map((k) => (typeof k === "number" ? { stickerId: k } : k)),
        fade: t.fade,
        blueGem: t.blue_gem,
        lowRank: t.low_rank,
      };
      const asset = makeAsset(store, seller, spec);
      const name = asset.item.marketHashName;
      if (t.reference_price === null) store.references.delete(name);
      else if (t.reference_price !== undefined) {
        store.references.set(name, {
          basePrice: t.reference_price,
          predictedPrice: t.reference_price,
          quantity: t.reference_quantity ?? 50,
          lastUpdated: store.now(),
        });
      }
      const price = t.price ?? Math.max(3, Math.round(modelPrice(store, asset.item) * rng.float(0.8, 1.1)));
      const type = t.type ?? "buy_now";
      const l = createListing(
        store,
        seller,
        {
          assetId: asset.assetId,
          type,
          price,
          reservePrice: t.reserve_price ?? price,
          durationMs: type === "auction" ? (t.auction_duration_ms ?? DAY) : undefined,
          durationDays: undefined,
          maxOfferDiscount: t.max_offer_discount,
          description: t.description,
          private: t.private,
        },
        store.now(),
      );
      return listingJson(store, l);
    },

    createOddListing(template = {}) {
      const json = control.createListing(template);
      const l = store.listings.get(json.id);
      if (l) l.quirk = "odd";
      return l ? listingJson(store, l) : json;
    },

    createUnreadableListing(template = {}) {
      const json = control.createListing(template);
      const l = store.listings.get(json.id);
      if (l) l.quirk = "unreadable";
      return { id: json.id };
    },

    createListings(n, template) {
      if (!Number.isInteger(n) || n < 0 || n > 100_000)
        throw badRequest("n must be an integer from 0 to 100000");
      return Array.from({ length: n }, () => control.createListing(template));
    },

    placeCompetingBid(listingId, maxPrice) {
      store.tick();
      const l = listingOf(store, listingId);
      const bidder = syntheticBidder(l.auction?.leader?.userId);
      return bidJson(store, placeBid(store, bidder, listingId, maxPrice, store.now()));
    },

    holdAuctionSettlement(listingId) {
      const a = listingOf(store, listingId).auction;
      if (!a) throw badRequest("only auctions settle");
      a.settlementHeld = true;
    },

    settleHeldAuction(listingId) {
      store.tick();
      const l = listingOf(store, listingId);
      if (!l.auction) throw badRequest("only auctions settle");
      l.auction.settlementHeld = false;
      if (l.state === "listed" && l.auction.expiresAt <= store.now()) settleAuction(store, l, store.now());
      return listingJson(store, l);
    },

    makeOffer(listingId, price) {
      store.tick();
      const o = createOffer(
        store,
        world.marketBuyer,
        { contractId: listingId, price, cancelPrevious: true },
        store.now(),
      );
      return offerJson(store, o);
    },

    respondToOffer(offerId, action) {
      store.tick();
      const o = store.offers.get(offerId);
      if (!o) throw notFound("offer");
      if (action === "accept") acceptOffer(store, o, store.now());
      else declineOffer(o);
      return offerJson(store, o);
    },
  };
  return control;
}

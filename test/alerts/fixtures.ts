// Listing fixtures shaped like the marketplace's GET /listings answers, always parsed by the real Listing schema.
import type { z } from "zod";
import { Listing } from "../../src/market/schemas.ts";

export type RawListing = z.input<typeof Listing>;
type RawItem = RawListing["item"];

/** A buy-now listing of a Pristine rifle skin with two stickers, a keychain and a reference price. */
export const BASE_LISTING = {
  id: "324288155723370196",
  created_at: "2025-03-07T10:15:30.000Z",
  type: "buy_now",
  price: 8500,
  state: "listed",
  description: "",
  seller: { platform_id: "76561190000000001", username: "seller-one", online: true },
  item: {
    asset_id: "38297551234",
    market_hash_name: "Falcon Rifle | Ember Tide (Pristine)",
    item_name: "Falcon Rifle | Ember Tide",
    wear_name: "Pristine",
    def_index: 7,
    paint_index: 282,
    paint_seed: 661,
    float_value: 0.0512,
    rarity: 5,
    quality: 4,
    is_statcounter: false,
    is_souvenir: false,
    stickers: [
      { stickerId: 4761, slot: 0, wear: 0, name: "Sticker | Crown" },
      { stickerId: 5012, slot: 2, wear: 0.12, name: "Sticker | Owl" },
    ],
    keychains: [{ stickerId: 21, slot: 0, pattern: 1234, name: "Charm | Lucky" }],
    reference: { base_price: 9800, predicted_price: 9900, quantity: 40 },
  },
  reference: {
    base_price: 9800,
    predicted_price: 10000,
    float_factor: 1.02,
    quantity: 120,
    last_updated: "2025-03-07T09:00:00.000Z",
  },
  is_seller: false,
  watchers: 3,
} as const satisfies RawListing;

/** The base listing with top-level and item fields replaced (null = absent, as the service sends it). */
export function listingWith(
  overrides: Partial<Omit<RawListing, "item">> & { item?: Partial<RawItem> } = {},
): Listing {
  const { item, ...top } = overrides;
  return Listing.parse({ ...BASE_LISTING, ...top, item: { ...BASE_LISTING.item, ...item } });
}

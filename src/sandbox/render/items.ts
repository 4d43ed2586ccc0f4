// The item inside a listing: wear, paint, stickers, keychains, fade, blue gem and its reference price.
import type { ListingRec, Store } from "../state/index.ts";
import { iso, referenceJson, type ReferenceJson } from "./common.ts";

export interface StickerJson {
  stickerId: number;
  slot: number;
  wear: number;
  name: string;
  icon_url: string;
  offset_x: number;
  offset_y: number;
  reference: { price: number; quantity: number; updated_at: string };
}

export interface KeychainJson {
  stickerId: number;
  slot: number;
  pattern: number;
  wrapped_sticker: number;
  name: string;
  icon_url: string;
  offset_x: number;
  offset_y: number;
  offset_z: number;
  reference: { price: number; quantity: number; updated_at: string };
}

export interface ItemJson {
  asset_id: string;
  market_hash_name: string;
  item_name: string;
  type: string;
  type_name: string;
  wear_name: string;
  collection: string;
  description: string;
  def_index: number;
  paint_index: number;
  paint_seed: number;
  float_value: number;
  rarity: number;
  rarity_name: string;
  quality: number;
  is_statcounter: boolean;
  is_souvenir: boolean;
  is_commodity: boolean;
  tradable: number;
  icon_url: string;
  inspect_link: string;
  d_param: string;
  gs_sig: string;
  sticker_index: number;
  stickers: StickerJson[];
  keychains: KeychainJson[];
  badges: string[];
  keychain_index?: number;
  keychain_pattern?: number;
  low_rank?: number;
  high_rank?: number;
  reference?: ReferenceJson;
  fade?: { percentage: number; rank?: number; seed: number; type: string };
  blue_gem?: Record<string, number>;
}

export function itemJson(store: Store, l: ListingRec): ItemJson {
  const it = l.asset.item;
  const ref = referenceJson(store, it.marketHashName, it.floatValue);
  const item: ItemJson = {
    asset_id: l.asset.assetId,
    market_hash_name: it.marketHashName,
    item_name: `${it.weapon} | ${it.finish}`,
    type: "skin",
    type_name: it.type,
    wear_name: it.wearName,
    collection: it.collection,
    description: `${it.rarityName} ${it.type}`,
    def_index: it.defIndex,
    paint_index: it.paintIndex,
    paint_seed: it.paintSeed,
    float_value: it.floatValue,
    rarity: it.rarity,
    rarity_name: it.rarityName,
    quality: it.isStatcounter ? 9 : it.isSouvenir ? 12 : 4,
    is_statcounter: it.isStatcounter,
    is_souvenir: it.isSouvenir,
    is_commodity: false,
    tradable: 1,
    icon_url: `sandbox-icon-${it.defIndex}-${it.paintIndex}`,
    inspect_link: it.inspectLink,
    d_param: it.dParam,
    gs_sig: it.gsSig,
    sticker_index: it.stickers.length,
    stickers: it.stickers.map((s) => ({
      stickerId: s.stickerId,
      slot: s.slot,
      wear: s.wear,
      name: s.name,
      icon_url: `sandbox-sticker-${s.stickerId}`,
      offset_x: s.offsetX,
      offset_y: s.offsetY,
      reference: { price: s.price, quantity: 25, updated_at: iso(l.createdAt) },
    })),
    keychains: it.keychains.map((k) => ({
      stickerId: k.stickerId,
      slot: k.slot,
      pattern: k.pattern,
      wrapped_sticker: 0,
      name: k.name,
      icon_url: `sandbox-keychain-${k.stickerId}`,
      offset_x: 0,
      offset_y: 0,
      offset_z: 0,
      reference: { price: k.price, quantity: 12, updated_at: iso(l.createdAt) },
    })),
    badges: [],
  };
  if (it.keychains[0]) {
    item.keychain_index = it.keychains[0].stickerId;
    item.keychain_pattern = it.keychains[0].pattern;
  }
  if (it.lowRank !== undefined) item.low_rank = it.lowRank;
  if (it.highRank !== undefined) item.high_rank = it.highRank;
  if (it.fade !== undefined) {
    const { rank, ...fade } = it.fade;
    item.fade = rank === undefined ? fade : { ...fade, rank };
  }
  if (it.blueGem !== undefined) item.blue_gem = { ...it.blueGem };
  if (ref) item.reference = ref;
  return item;
}

// Filters on what is applied to the item: stickers (in a slot, or anywhere) and keychains.
import { z } from "zod";
import {
  MAX_SMALL_ID,
  MAX_STICKER_SELECTORS,
  parseSmallIdList,
  parseStickerSelectors,
  STICKER_SLOT_MAX,
} from "../../input/parse.ts";
import { hasSticker } from "./facts.ts";
import { defineFilter, given } from "./filter.ts";
import { isIntArray, isStickers } from "./checks.ts";
import { SmallId } from "./identity.ts";

export const MAX_KEYCHAINS = 4;

export const StickerSelectorSchema = z.strictObject({
  id: SmallId,
  slot: z.number().int().min(0).max(STICKER_SLOT_MAX).optional(),
});

export const stickers = defineFilter({
  name: "stickers",
  group: "listing",
  stored: { stickers: z.array(StickerSelectorSchema).min(1).max(MAX_STICKER_SELECTORS).optional() },
  narrowing: ["stickers"],
  options: [
    {
      name: "stickers",
      description: "Sticker ids, optionally with a slot: 123, 456|2",
      type: "string",
      max_length: 200,
    },
  ],
  parse: (o) => (given(o["stickers"]) ? { stickers: parseStickerSelectors("stickers", o["stickers"]) } : {}),
  describe(f, parts) {
    if (f.stickers === undefined) return;
    parts.push(
      `stickers ${f.stickers.map((s) => (s.slot === undefined ? `${s.id}` : `${s.id} (slot ${s.slot})`)).join(", ")}`,
    );
  },
  // Each selector is carried (at its slot when given). Selectors are checked independently, so
  // "123, 123" means one copy; "123|0, 123|1" asks for two.
  matches: (f, l) => f.stickers === undefined || f.stickers.every((s) => hasSticker(l, s.id, s.slot ?? -1)),
  // The slot's lists (one sticker in one slot: inline in the entry's E_KEY); the first sticker is
  // a bucket's key for a rule without a name, index or short seed list.
  pack(f, c) {
    if (f.stickers === undefined) return;
    c.stickerIds = f.stickers.map((s) => s.id);
    c.stickerSlots = f.stickers.map((s) => s.slot ?? -1);
  },
  // A requirement: a narrower rule asks for each sticker still.
  narrows: (before, after) =>
    (before.stickers ?? []).every(
      (s) =>
        after.stickers?.some((t) => t.id === s.id && (s.slot === undefined || t.slot === s.slot)) === true,
    ),
  sample(f, t) {
    if (f.stickers !== undefined)
      t.stickers = f.stickers.map((s) => (s.slot === undefined ? s.id : { stickerId: s.id, slot: s.slot }));
  },
  fastCheck: { stickers: isStickers },
});

export const keychains = defineFilter({
  name: "keychains",
  group: "listing",
  stored: { keychains: z.array(SmallId).min(1).max(MAX_KEYCHAINS).optional() },
  narrowing: ["keychains"],
  options: [{ name: "keychains", description: "Keychain ids: 12, 34", type: "string", max_length: 100 }],
  parse: (o) =>
    given(o["keychains"])
      ? { keychains: parseSmallIdList("keychains", o["keychains"], MAX_KEYCHAINS, "keychain") }
      : {},
  describe(f, parts) {
    if (f.keychains !== undefined) parts.push(`keychains ${f.keychains.join(", ")}`);
  },
  // Each id is carried.
  matches: (f, l) => f.keychains === undefined || f.keychains.every((id) => l.keychainIds.includes(id)),
  // The slot's lists; the first keychain is a bucket's key when nothing more selective is set.
  pack(f, c) {
    if (f.keychains !== undefined) c.keychainIds = f.keychains;
  },
  narrows: (before, after) => (before.keychains ?? []).every((id) => after.keychains?.includes(id) === true),
  sample(f, t) {
    const keychain = f.keychains?.[0];
    if (keychain !== undefined) t.keychains = [keychain];
  },
  fastCheck: { keychains: (v) => isIntArray(v, MAX_KEYCHAINS, 0, MAX_SMALL_ID) },
});

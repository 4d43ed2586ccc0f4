// A rule's seed, sticker and keychain lists as the matcher keeps them (one flat array of numbers per rule that has any), and their match.
import { hasSticker, type CompiledFilters, type ListingFacts } from "../ruleFilters.ts";

/** Slots a sticker can sit in, as an inline sticker-and-slot key counts them (slots.ts' HAS_STICKER_SLOT). */
export const STICKER_SLOTS = 64;

/**
 * A rule's lists, flattened: [seed count (-1: no seed filter), seeds..., sticker count,
 * (id, slot (-1: any))..., keychain count, ids...]. Null for a rule with none (most rules).
 */
export function listsOf(c: CompiledFilters): number[] | null {
  if (c.seeds === null && c.stickerIds === null && c.keychainIds === null) return null;
  const out: number[] = [];
  if (c.seeds === null) out.push(-1);
  else out.push(c.seeds.length, ...c.seeds);
  const stickers = c.stickerIds ?? [];
  out.push(stickers.length);
  stickers.forEach((id, i) => out.push(id, c.stickerSlots?.[i] ?? -1));
  const keychains = c.keychainIds ?? [];
  out.push(keychains.length, ...keychains);
  // A copy is exactly as long as its content (push leaves room to grow, ~3x here).
  return out.slice();
}

/** The lists part of the match (see matchesFacts): a seed, every sticker selector, every keychain. */
export function matchesLists(x: readonly number[], l: ListingFacts): boolean {
  let i = 0;
  const seeds = x[i++] as number;
  if (seeds >= 0) {
    let found = false;
    for (let k = 0; k < seeds; k++) {
      if (x[i + k] === l.paintSeed) {
        found = true;
        break;
      }
    }
    if (!found) return false;
    i += seeds;
  }
  const stickers = x[i++] as number;
  for (let k = 0; k < stickers; k++, i += 2)
    if (!hasSticker(l, x[i] as number, x[i + 1] as number)) return false;
  const keychains = x[i++] as number;
  for (let k = 0; k < keychains; k++) if (!l.keychainIds.includes(x[i + k] as number)) return false;
  return true;
}

/** Whether the listing has the sticker in the slot a HAS_STICKER_SLOT entry's E_KEY names. */
export function hasStickerAt(l: ListingFacts, key: number): boolean {
  const at = key % STICKER_SLOTS;
  return hasSticker(l, (key - at) / STICKER_SLOTS, at);
}

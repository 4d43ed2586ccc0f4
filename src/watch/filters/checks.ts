// Plain checks of stored JSON values, deciding exactly as the filters' zod schemas do (the fast load path, storedFilters.ts).
import { MAX_SMALL_ID, MAX_STICKER_SELECTORS, STICKER_SLOT_MAX } from "../../input/parse.ts";

export const isInt = (v: unknown, min: number, max: number): boolean =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
export const isNum = (v: unknown, min: number, max: number): boolean =>
  typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isIntArray(v: unknown, maxLength: number, min: number, max: number): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > maxLength) return false;
  for (const x of v) if (!isInt(x, min, max)) return false;
  return true;
}

/** Sticker selectors: 1 to MAX_STICKER_SELECTORS objects of an id and an optional slot, nothing else. */
export function isStickers(v: unknown): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_STICKER_SELECTORS) return false;
  for (const s of v) {
    if (!isPlainObject(s)) return false;
    let keys = 0;
    for (const k in s) {
      keys++;
      if (k === "id") {
        if (!isInt(s[k], 0, MAX_SMALL_ID)) return false;
      } else if (k === "slot") {
        if (!isInt(s[k], 0, STICKER_SLOT_MAX)) return false;
      } else return false;
    }
    if (keys === 0 || !("id" in s)) return false;
  }
  return true;
}

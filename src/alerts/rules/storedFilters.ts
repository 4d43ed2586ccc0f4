// A fast check of stored rule JSON in its common shape, for loading a million rules; anything else goes to the zod schema.
import { MAX_CENTS } from "../../money.ts";
import {
  MAX_SEEDS,
  MAX_SMALL_ID,
  MAX_STICKER_SELECTORS,
  SEED_MAX,
  STICKER_SLOT_MAX,
} from "../../input/parse.ts";
import { MAX_ITEM_NAME, MAX_KEYCHAINS, MAX_REF_QTY, type RuleFilters } from "./ruleFilters.ts";

// The RuleFilters schema (ruleFilters.ts) stays the definition of valid stored filters. Parsing
// it costs a few microseconds a rule and a copy of every object and array: at a million rules
// that is most of a load. This check accepts only what it can decide exactly as the schema would,
// and hands back the value itself (the schema's output would equal it); whatever it does not
// know (deal filters, a tier, a name with spaces to trim, any doubt) returns undefined, and the
// caller parses with the schema. test/alerts/rules/storedFilters.test.ts holds it to the schema.

const isInt = (v: unknown, min: number, max: number): boolean =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
const isNum = (v: unknown, min: number, max: number): boolean =>
  typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function isIntArray(v: unknown, maxLength: number, min: number, max: number): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > maxLength) return false;
  for (const x of v) if (!isInt(x, min, max)) return false;
  return true;
}

function isStickers(v: unknown): boolean {
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

/** The stored filters when they are surely valid in the common shape; undefined: ask the schema. */
export function storedFiltersFast(value: unknown): RuleFilters | undefined {
  if (!isPlainObject(value)) return undefined;
  let narrowing = false;
  for (const key in value) {
    const v = value[key];
    switch (key) {
      case "item":
        if (typeof v !== "string" || v.length < 1 || v.length > MAX_ITEM_NAME || v.trim() !== v)
          return undefined;
        narrowing = true;
        break;
      case "def_index":
      case "paint_index":
        if (!isInt(v, 0, MAX_SMALL_ID)) return undefined;
        narrowing = true;
        break;
      case "paint_seeds":
        if (!isIntArray(v, MAX_SEEDS, 0, SEED_MAX)) return undefined;
        narrowing = true;
        break;
      case "min_float":
      case "max_float":
        if (!isNum(v, 0, 1)) return undefined;
        narrowing = true;
        break;
      case "max_price":
        if (!isInt(v, 0, MAX_CENTS)) return undefined;
        narrowing = true;
        break;
      case "min_discount":
        if (!isNum(v, 0, 100)) return undefined;
        narrowing = true;
        break;
      case "min_ref_qty":
        if (!isInt(v, 0, MAX_REF_QTY)) return undefined;
        break;
      case "type":
        if (v !== "buy_now" && v !== "auction") return undefined;
        break;
      case "category":
        if (v !== "any" && v !== "normal" && v !== "statcounter" && v !== "souvenir") return undefined;
        break;
      case "stickers":
        if (!isStickers(v)) return undefined;
        narrowing = true;
        break;
      case "keychains":
        if (!isIntArray(v, MAX_KEYCHAINS, 0, MAX_SMALL_ID)) return undefined;
        narrowing = true;
        break;
      default:
        return undefined;
    }
  }
  if (!narrowing) return undefined;
  const min = value["min_float"];
  const max = value["max_float"];
  if (typeof min === "number" && typeof max === "number" && min > max) return undefined;
  return value as RuleFilters;
}

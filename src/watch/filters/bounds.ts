// Filters bounding a listing's numbers: its float range, its price, its discount against the reference and the reference's sample size.
import { z } from "zod";
import { formatCents, MAX_CENTS } from "../../money.ts";
import { parseFloatValue, parseIntOption, parsePercent, parsePrice, parseRange } from "../../input/parse.ts";
import { meetsDiscount } from "./facts.ts";
import { defineFilter, given, keepsMaximum, keepsMinimum } from "./filter.ts";
import { isInt, isNum } from "./checks.ts";

export const MAX_REF_QTY = 1_000_000_000;
/** The lowest price a sandbox listing may have (the playground's sample). */
const MIN_SAMPLE_PRICE = 3;

const FloatBound = z.number().min(0).max(1);
const isFloatBound = (v: unknown) => isNum(v, 0, 1);

export const float = defineFilter({
  name: "float",
  group: "listing",
  stored: { min_float: FloatBound.optional(), max_float: FloatBound.optional() },
  narrowing: ["min_float", "max_float"],
  options: [
    { name: "min_float", description: "Lowest float (0-1)", type: "number", min_value: 0, max_value: 1 },
    { name: "max_float", description: "Highest float (0-1)", type: "number", min_value: 0, max_value: 1 },
  ],
  refine: [
    {
      check: (f) => f.min_float === undefined || f.max_float === undefined || f.min_float <= f.max_float,
      message: "min_float must not be above max_float",
      path: ["min_float"],
    },
  ],
  parse(o) {
    const min = given(o["min_float"]) ? parseFloatValue("min_float", o["min_float"]) : undefined;
    const max = given(o["max_float"]) ? parseFloatValue("max_float", o["max_float"]) : undefined;
    parseRange("min_float", min, "max_float", max);
    return {
      ...(min === undefined ? {} : { min_float: min }),
      ...(max === undefined ? {} : { max_float: max }),
    };
  },
  describe(f, parts) {
    if (f.min_float !== undefined && f.max_float !== undefined)
      parts.push(`float ${f.min_float}–${f.max_float}`);
    else if (f.min_float !== undefined) parts.push(`float ≥ ${f.min_float}`);
    else if (f.max_float !== undefined) parts.push(`float ≤ ${f.max_float}`);
  },
  // Inclusive bounds; a listing without a float cannot match a float rule.
  matches: (f, l) =>
    (f.min_float === undefined && f.max_float === undefined) ||
    (l.float >= (f.min_float ?? -Infinity) && l.float <= (f.max_float ?? Infinity)),
  // The entry's E_MIN_FLOAT / E_MAX_FLOAT (a bound-decided entry's float part); a float axis.
  pack(f, c) {
    if (f.min_float !== undefined) {
      c.hasFloat = true;
      c.minFloat = f.min_float;
    }
    if (f.max_float !== undefined) {
      c.hasFloat = true;
      c.maxFloat = f.max_float;
    }
  },
  narrows: (before, after) =>
    keepsMinimum("min_float")(before, after) && keepsMaximum("max_float")(before, after),
  sample(f, t) {
    if (f.min_float === undefined && f.max_float === undefined) return;
    const low = f.min_float ?? 0;
    const high = f.max_float ?? 1;
    t.float_value = Number(((low + high) / 2).toFixed(6));
  },
  fastCheck: { min_float: isFloatBound, max_float: isFloatBound },
});

export const maxPrice = defineFilter({
  name: "max_price",
  group: "listing",
  /** Cents, inclusive. */
  stored: { max_price: z.number().int().min(0).max(MAX_CENTS).optional() },
  narrowing: ["max_price"],
  options: [{ name: "max_price", description: "Most you would pay, in USD", type: "number", min_value: 0 }],
  parse: (o) => (given(o["max_price"]) ? { max_price: parsePrice("max_price", o["max_price"]) } : {}),
  describe(f, parts) {
    if (f.max_price !== undefined) parts.push(`≤ ${formatCents(f.max_price)}`);
  },
  matches: (f, l) => f.max_price === undefined || l.price <= f.max_price,
  // The entry's E_MAX_PRICE (a pair's price ceiling); the price axis.
  pack(f, c) {
    if (f.max_price !== undefined) c.maxPrice = f.max_price;
  },
  narrows: keepsMaximum("max_price"),
  sample(f, t) {
    // 10% under the cap, so the alert reads as a deal rather than a listing at the exact limit.
    if (f.max_price !== undefined)
      t.price = Math.max(MIN_SAMPLE_PRICE, Math.min(f.max_price, Math.floor(f.max_price * 0.9)));
  },
  fastCheck: { max_price: (v) => isInt(v, 0, MAX_CENTS) },
});

export const minDiscount = defineFilter({
  name: "min_discount",
  group: "listing",
  /** Percent below the reference price, inclusive. */
  stored: { min_discount: z.number().min(0).max(100).optional() },
  narrowing: ["min_discount"],
  options: [
    {
      name: "min_discount",
      description: "At least this many percent below the reference price",
      type: "number",
      min_value: 0,
      max_value: 100,
    },
  ],
  parse: (o) =>
    given(o["min_discount"]) ? { min_discount: parsePercent("min_discount", o["min_discount"]) } : {},
  describe(f, parts) {
    if (f.min_discount !== undefined) parts.push(`≥ ${f.min_discount}% below ref`);
  },
  // (ref - price) / ref * 100 >= min_discount, ref from referencePriceOf(); no reference: no match.
  matches: (f, l) => f.min_discount === undefined || meetsDiscount(l.discount, f.min_discount),
  // The entry's E_MIN_DISCOUNT; the discount axis, preferred above all.
  pack(f, c) {
    if (f.min_discount !== undefined) {
      c.hasDiscount = true;
      c.minDiscount = f.min_discount;
    }
  },
  narrows: keepsMinimum("min_discount"),
  sample(f, t) {
    if (f.min_discount === undefined) return;
    // Five points deeper than asked, so rounding of the reference can never tip it under.
    const discount = Math.min(99, f.min_discount + 5);
    t.reference_price = Math.ceil(t.price / (1 - discount / 100));
  },
  fastCheck: { min_discount: (v) => isNum(v, 0, 100) },
});

export const minRefQty = defineFilter({
  name: "min_ref_qty",
  group: "listing",
  /** Minimum reference-price sample quantity. */
  stored: { min_ref_qty: z.number().int().min(0).max(MAX_REF_QTY).optional() },
  // Alone it would match the whole market.
  narrowing: [],
  options: [
    {
      name: "min_ref_qty",
      description: "Reference price based on at least this many sales",
      type: "integer",
      min_value: 0,
    },
  ],
  parse: (o) =>
    given(o["min_ref_qty"])
      ? { min_ref_qty: parseIntOption("min_ref_qty", o["min_ref_qty"], 0, MAX_REF_QTY) }
      : {},
  describe(f, parts) {
    if (f.min_ref_qty !== undefined) parts.push(`ref qty ≥ ${f.min_ref_qty}`);
  },
  // No quantity: no match.
  matches: (f, l) => f.min_ref_qty === undefined || l.refQty >= f.min_ref_qty,
  // The entry's E_MIN_REF_QTY (checked field by field: such a rule is never bound-decided).
  pack(f, c) {
    if (f.min_ref_qty !== undefined) {
      c.hasRefQty = true;
      c.minRefQty = f.min_ref_qty;
    }
  },
  narrows: keepsMinimum("min_ref_qty"),
  sample(f, t) {
    if (f.min_ref_qty === undefined) return;
    t.reference_quantity = f.min_ref_qty + 10;
    t.reference_price ??= Math.ceil(t.price * 1.2);
  },
  fastCheck: { min_ref_qty: (v) => isInt(v, 0, MAX_REF_QTY) },
});

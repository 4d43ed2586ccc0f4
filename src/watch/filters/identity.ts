// Filters on what the item is: its name, weapon and finish indexes, and its paint seed (typed, or a seed tier's).
import { z } from "zod";
import { invalidOption } from "../../errors.ts";
import {
  MAX_SEEDS,
  MAX_SMALL_ID,
  parseIntOption,
  parseSeeds,
  parseText,
  safeUserText,
  SEED_MAX,
} from "../../input/parse.ts";
import { defineFilter, given, keepsValue } from "./filter.ts";
import { isInt, isIntArray } from "./checks.ts";

export const MAX_ITEM_NAME = 128;
export const MAX_TIER_NAME = 32;
const MAX_SEEDS_SHOWN = 5;

export const SmallId = z.number().int().min(0).max(MAX_SMALL_ID);

export const item = defineFilter({
  name: "item",
  group: "listing",
  /** market_hash_name; exact, case-insensitive. */
  stored: { item: z.string().trim().min(1).max(MAX_ITEM_NAME).optional() },
  narrowing: ["item"],
  options: [
    {
      name: "item",
      description: "Exact item name, e.g. Falcon Rifle | Ember Tide (Pristine)",
      type: "string",
      autocomplete: true,
      max_length: 128,
    },
  ],
  parse: (o) => (given(o["item"]) ? { item: parseText("item", o["item"], MAX_ITEM_NAME) } : {}),
  describe(f, parts) {
    if (f.item !== undefined) parts.push(safeUserText(f.item, MAX_ITEM_NAME));
  },
  matches: (f, l) => f.item === undefined || f.item.toLowerCase() === l.nameLower,
  // The name is the key of the bucket the rule is filed under (matcher/index.ts), interned there.
  pack(f, c) {
    if (f.item !== undefined) c.itemLower = f.item.toLowerCase();
  },
  narrows: (before, after) =>
    before.item === undefined || before.item.toLowerCase() === after.item?.toLowerCase(),
  sample(f, t) {
    if (f.item !== undefined) t.market_hash_name = f.item;
  },
  fastCheck: {
    item: (v) => typeof v === "string" && v.length >= 1 && v.length <= MAX_ITEM_NAME && v.trim() === v,
  },
});

export const defIndex = defineFilter({
  name: "def_index",
  group: "listing",
  stored: { def_index: SmallId.optional() },
  narrowing: ["def_index"],
  options: [{ name: "def_index", description: "Weapon (def index)", type: "integer", min_value: 0 }],
  parse: (o) =>
    given(o["def_index"]) ? { def_index: parseIntOption("def_index", o["def_index"], 0, MAX_SMALL_ID) } : {},
  describe(f, parts) {
    if (f.def_index !== undefined) parts.push(`def ${f.def_index}`);
  },
  matches: (f, l) => f.def_index === undefined || f.def_index === l.defIndex,
  // A bucket key (def, def+paint) and the entry's E_DEF.
  pack(f, c) {
    if (f.def_index !== undefined) c.defIndex = f.def_index;
  },
  narrows: keepsValue("def_index"),
  sample(f, t) {
    if (f.def_index !== undefined) t.def_index = f.def_index;
  },
  fastCheck: { def_index: (v) => isInt(v, 0, MAX_SMALL_ID) },
});

export const paintIndex = defineFilter({
  name: "paint_index",
  group: "listing",
  stored: { paint_index: SmallId.optional() },
  narrowing: ["paint_index"],
  options: [{ name: "paint_index", description: "Finish (paint index)", type: "integer", min_value: 0 }],
  parse: (o) =>
    given(o["paint_index"])
      ? { paint_index: parseIntOption("paint_index", o["paint_index"], 0, MAX_SMALL_ID) }
      : {},
  describe(f, parts) {
    if (f.paint_index !== undefined) parts.push(`paint ${f.paint_index}`);
  },
  matches: (f, l) => f.paint_index === undefined || f.paint_index === l.paintIndex,
  // A bucket key (paint, def+paint) and the entry's E_PAINT.
  pack(f, c) {
    if (f.paint_index !== undefined) c.paintIndex = f.paint_index;
  },
  narrows: keepsValue("paint_index"),
  sample(f, t) {
    if (f.paint_index !== undefined) t.paint_index = f.paint_index;
  },
  fastCheck: { paint_index: (v) => isInt(v, 0, MAX_SMALL_ID) },
});

/** Seeds typed, or a seed tier's copied in (the tier's name kept beside them): one choice. */
export const seeds = defineFilter({
  name: "paint_seeds",
  group: "listing",
  stored: {
    /** Any of these seeds. */
    paint_seeds: z.array(z.number().int().min(0).max(SEED_MAX)).min(1).max(MAX_SEEDS).optional(),
    /** The seed tier the rule's paint_seeds came from (its seeds are copied into paint_seeds). */
    tier: z.string().trim().min(1).max(MAX_TIER_NAME).optional(),
  },
  narrowing: ["paint_seeds"],
  options: [
    {
      name: "paint_seeds",
      description: "Any of these seeds, e.g. 661, 670, 955",
      type: "string",
      max_length: 600,
    },
    {
      name: "tier",
      description: "Any seed of one of your seed tiers (see /watch tier)",
      type: "string",
      autocomplete: true,
      max_length: 32,
    },
  ],
  // Setting either replaces both.
  replaces: { paint_seeds: ["paint_seeds", "tier"], tier: ["paint_seeds", "tier"] },
  refine: [
    {
      check: (f) => f.tier === undefined || f.paint_seeds !== undefined,
      message: "a tier rule carries its tier's seeds",
      path: ["tier"],
    },
  ],
  parse(o, context) {
    const seedsTyped = given(o["paint_seeds"]) ? parseSeeds("paint_seeds", o["paint_seeds"]) : undefined;
    if (!given(o["tier"])) return seedsTyped === undefined ? {} : { paint_seeds: seedsTyped };
    if (seedsTyped !== undefined) throw invalidOption("tier", "use either paint_seeds or tier, not both");
    // The caller resolves the tier (it needs the database); without its seeds this is a bug.
    if (context.tierSeeds === undefined) throw new Error("ruleFromOptions: tier given without its seeds");
    return { tier: String(o["tier"]).trim(), paint_seeds: [...context.tierSeeds] };
  },
  describe(f, parts) {
    if (f.tier !== undefined && f.paint_seeds !== undefined) {
      const n = f.paint_seeds.length;
      parts.push(`tier "${safeUserText(f.tier, MAX_TIER_NAME)}" (${n} seed${n === 1 ? "" : "s"})`);
    } else if (f.paint_seeds !== undefined) {
      const shown = f.paint_seeds.slice(0, MAX_SEEDS_SHOWN).join(", ");
      const more = f.paint_seeds.length - MAX_SEEDS_SHOWN;
      parts.push(`seed ${shown}${more > 0 ? ` +${more} more` : ""}`);
    }
  },
  // Only the copied seeds count; the tier's name is a label.
  matches: (f, l) => f.paint_seeds === undefined || f.paint_seeds.includes(l.paintSeed),
  // The slot's lists; a short list is also the key the rule is filed under, once per seed.
  pack(f, c) {
    if (f.paint_seeds !== undefined) c.seeds = f.paint_seeds;
  },
  narrows(before, after) {
    if (before.paint_seeds === undefined) return true;
    const allowed = new Set(before.paint_seeds);
    return after.paint_seeds !== undefined && after.paint_seeds.every((s) => allowed.has(s));
  },
  sample(f, t) {
    const seed = f.paint_seeds?.[0];
    if (seed !== undefined) t.paint_seed = seed;
  },
  fastCheck: { paint_seeds: (v) => isIntArray(v, MAX_SEEDS, 0, SEED_MAX) },
});

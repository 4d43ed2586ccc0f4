// Filters on the kind of listing: buy now or auction, and the item's category (normal, statcounter, souvenir).
import { z } from "zod";
import { invalidOption } from "../../errors.ts";
import { CATEGORY_CODE, TYPE_CODE } from "./facts.ts";
import { defineFilter, given, keepsValue } from "./filter.ts";

export const ListingTypeFilter = z.enum(["buy_now", "auction"]);
export const RuleCategory = z.enum(["any", "normal", "statcounter", "souvenir"]);
export type RuleCategory = z.infer<typeof RuleCategory>;

export const type = defineFilter({
  name: "type",
  group: "listing",
  stored: { type: ListingTypeFilter.optional() },
  // Alone it would match half the market.
  narrowing: [],
  options: [
    {
      name: "type",
      description: "Buy now or auction",
      type: "string",
      choices: [
        { name: "buy now", value: "buy_now" },
        { name: "auction", value: "auction" },
      ],
    },
  ],
  parse(o) {
    if (!given(o["type"])) return {};
    const parsed = ListingTypeFilter.safeParse(String(o["type"]).trim().toLowerCase());
    if (!parsed.success) throw invalidOption("type", "must be buy_now or auction");
    return { type: parsed.data };
  },
  describe(f, parts) {
    if (f.type !== undefined) parts.push(f.type === "auction" ? "auctions" : "buy now");
  },
  matches: (f, l) => f.type === undefined || TYPE_CODE[f.type] === l.type,
  // The entry's kind bits (with the category: one bit of ListingFacts.kinds); a broad bucket's key.
  pack(f, c) {
    if (f.type !== undefined) c.type = TYPE_CODE[f.type];
  },
  narrows: keepsValue("type"),
  sample(f, t) {
    if (f.type !== undefined) t.type = f.type;
  },
  fastCheck: { type: (v) => v === "buy_now" || v === "auction" },
});

export const category = defineFilter({
  name: "category",
  group: "listing",
  stored: { category: RuleCategory.optional() },
  narrowing: [],
  options: [
    {
      name: "category",
      description: "Normal, statcounter or souvenir",
      type: "string",
      choices: [
        { name: "any", value: "any" },
        { name: "normal", value: "normal" },
        { name: "statcounter", value: "statcounter" },
        { name: "souvenir", value: "souvenir" },
      ],
    },
  ],
  parse(o) {
    if (!given(o["category"])) return {};
    const parsed = RuleCategory.safeParse(String(o["category"]).trim().toLowerCase());
    if (!parsed.success) throw invalidOption("category", "must be any, normal, statcounter or souvenir");
    // "any" is the same as not filtering; storing it would only make equal rules look different.
    return parsed.data === "any" ? {} : { category: parsed.data };
  },
  describe(f, parts) {
    if (f.category === "normal") parts.push("not statcounter/souvenir");
    else if (f.category === "statcounter" || f.category === "souvenir") parts.push(f.category);
  },
  // normal = neither statcounter nor souvenir; statcounter / souvenir = that flag true.
  matches(f, l) {
    switch (f.category) {
      case "normal":
        return !l.statcounter && !l.souvenir;
      case "statcounter":
        return l.statcounter;
      case "souvenir":
        return l.souvenir;
      default:
        return true;
    }
  },
  // The entry's kind bits (see type); a broad bucket's key.
  pack(f, c) {
    if (f.category !== undefined) c.category = CATEGORY_CODE[f.category];
  },
  narrows: keepsValue("category"),
  sample(f, t) {
    if (f.category === "statcounter") t.is_statcounter = true;
    if (f.category === "souvenir") t.is_souvenir = true;
    if (f.category === "normal") {
      t.is_statcounter = false;
      t.is_souvenir = false;
    }
  },
  fastCheck: {
    category: (v) => v === "any" || v === "normal" || v === "statcounter" || v === "souvenir",
  },
});

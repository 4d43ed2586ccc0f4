// /search: market listings by item, price, float, pattern, stickers, seller...; a page of compact
// lines with Previous/Next (owner only) and a menu opening one listing (anyone may open one).
import { ApplicationCommandOptionType } from "discord.js";
import { SEARCH_ACTIONS } from "../src/discord/actions.ts";
import {
  defineCommand,
  type AutocompleteContext,
  type BaseContext,
  type Choice,
} from "../src/discord/command.ts";
import type { BotDeps } from "../src/discord/deps.ts";
import { createPager, cursorPaging, PAGER_TTL_MS, type PageRef } from "../src/discord/pager.ts";
import { perApp } from "../src/discord/perApp.ts";
import { money } from "../src/discord/render/format.ts";
import { filtersSummary, listingPageMessage, PAGE_SIZE, SORT_NAMES } from "../src/discord/render/search.ts";
import type { Reply } from "../src/discord/reply.ts";
import type { CommandDefinition } from "../src/discord/command.ts";
import type { OptionsReader } from "../src/discord/options.ts";
import { invalidOption } from "../src/errors.ts";
import {
  parseFloatValue,
  parseId,
  parseIntOption,
  parsePrice,
  parseRange,
  parseStickerSelectors,
  parseText,
} from "../src/input/parse.ts";
import { SortBy, type CategoryName, type ListingType } from "../src/market/schemas.ts";
import { searchListings, type SearchFilters } from "../src/trading/search.ts";
import { listingViewReply } from "./listing.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

const searchPager = perApp((deps: BotDeps) => createPager<SearchFilters>(() => deps.now().getTime()));

/** Suggestions for an `item` option: recent names from the market, filtered by what was typed. */
export async function suggestItemNames(ctx: AutocompleteContext): Promise<readonly Choice[]> {
  if (ctx.focused.name !== "item") return [];
  // Autocomplete fires per keystroke: no database lookup, the operator key (or none) is enough.
  const market = ctx.deps.reads.operator();
  const names = await ctx.deps.itemNames.suggest({ market, logger: ctx.log }, ctx.focused.value);
  return names.map((name) => ({ name, value: name }));
}

const SORT_CHOICES = SortBy.options.map((value) => ({
  name: value === "best_deal" ? `${SORT_NAMES[value]} (default)` : SORT_NAMES[value],
  value,
}));
const CATEGORY_CHOICES: { name: string; value: CategoryName }[] = [
  { name: "Any", value: "any" },
  { name: "Normal", value: "normal" },
  { name: "Statcounter", value: "statcounter" },
  { name: "Souvenir", value: "souvenir" },
];
const TYPE_CHOICES: { name: string; value: ListingType }[] = [
  { name: "Buy now", value: "buy_now" },
  { name: "Auction", value: "auction" },
];

const S = ApplicationCommandOptionType.String;
const I = ApplicationCommandOptionType.Integer;

/** What the user typed, as Discord hands it over (absent options undefined). */
export interface RawSearchOptions {
  item?: string | undefined;
  min_price?: string | undefined;
  max_price?: string | undefined;
  min_float?: string | undefined;
  max_float?: string | undefined;
  paint_seed?: number | undefined;
  paint_index?: number | undefined;
  def_index?: number | undefined;
  rarity?: number | undefined;
  type?: string | undefined;
  category?: string | undefined;
  sort?: string | undefined;
  stickers?: string | undefined;
  seller?: string | undefined;
  collection?: string | undefined;
  min_ref_qty?: number | undefined;
}

/** Validates every option before anything is asked; throws invalidOption naming the first bad one. */
export function readFilters(o: RawSearchOptions): SearchFilters {
  const opt = <R, T>(raw: R | undefined, parse: (raw: R) => T): T | undefined =>
    raw === undefined ? undefined : parse(raw);
  const minPrice = opt(o.min_price, (r) => parsePrice("min_price", r, { allowZero: true }));
  const maxPrice = opt(o.max_price, (r) => parsePrice("max_price", r, { allowZero: true }));
  parseRange("min_price", minPrice, "max_price", maxPrice, money);
  const minFloat = opt(o.min_float, (r) => parseFloatValue("min_float", r));
  const maxFloat = opt(o.max_float, (r) => parseFloatValue("max_float", r));
  parseRange("min_float", minFloat, "max_float", maxFloat);
  return {
    itemName: opt(o.item, (r) => parseText("item", r, 200)),
    minPriceCents: minPrice,
    maxPriceCents: maxPrice,
    minFloat,
    maxFloat,
    paintSeed: opt(o.paint_seed, (r) => parseIntOption("paint_seed", r, 0, 100_000)),
    paintIndex: opt(o.paint_index, (r) => parseIntOption("paint_index", r, 0, 1_000_000)),
    defIndex: opt(o.def_index, (r) => parseIntOption("def_index", r, 0, 1_000_000)),
    rarity: opt(o.rarity, (r) => parseIntOption("rarity", r, 0, 100)),
    type: opt(o.type, (r) => oneOf("type", r, TYPE_CHOICES)),
    category: opt(o.category, (r) => oneOf("category", r, CATEGORY_CHOICES)),
    sortBy: opt(o.sort, (r) => oneOf("sort", r, SORT_CHOICES)),
    stickers: opt(o.stickers, (r) => parseStickerSelectors("stickers", r))?.map((s) => ({
      stickerId: s.id,
      slot: s.slot,
    })),
    sellerId: opt(o.seller, (r) => parseId("seller", r, "platform user")),
    collection: opt(o.collection, (r) => parseText("collection", r, 200)),
    minReferenceQuantity: opt(o.min_ref_qty, (r) => parseIntOption("min_ref_qty", r, 0, 1_000_000)),
  };
}

/** Choices are enforced by Discord; an out-of-date client can still send an old value. */
function oneOf<V extends string>(
  option: string,
  raw: string,
  choices: readonly { name: string; value: V }[],
): V {
  const found = choices.find((c) => c.value === raw);
  if (!found) throw invalidOption(option, `must be one of ${choices.map((c) => c.name).join(", ")}`);
  return found.value;
}

/** Reads one page of a result set and renders it with its paging controls. */
async function searchPage(ctx: BaseContext, ref: PageRef<SearchFilters>): Promise<Omit<Reply, "ephemeral">> {
  const pager = searchPager(ctx.deps);
  const market = await ctx.deps.reads.forUser(ctx.user.id);
  const page = await searchListings(
    { market, logger: ctx.log, now: ctx.deps.now },
    { ...ref.query, ...(ref.cursor ? { cursor: ref.cursor } : {}), limit: PAGE_SIZE },
  );
  ctx.deps.itemNames.remember(page.listings.map((l) => l.itemName));
  const idFor = (action: string, subject: string) => ctx.customId(action, subject, { ttlMs: PAGER_TTL_MS });
  const sort = ref.query.sortBy ?? "best_deal";
  const seller = page.sellerFilter;
  const sellerNote =
    seller === undefined
      ? ""
      : `\nOnly seller \`${seller.sellerId}\`'s listings among the ${seller.scanned} on this page: the marketplace does not filter by seller, so other pages may hold more. /stall shows a seller's whole public stall.`;
  // With a seller, an empty page only says none of this page's listings were theirs.
  const empty =
    seller !== undefined && seller.scanned > 0
      ? `${seller.scanned === 1 ? "The one listing on this page is not" : `None of the ${seller.scanned} listings on this page are`} seller \`${seller.sellerId}\`'s.${page.cursor === undefined ? "" : " Next reads more;"} \`/stall user:${seller.sellerId}\` shows their whole public stall.`
      : ref.page === 0
        ? "No listings match. Try fewer filters or a wider price or float range."
        : "No more results.";
  return listingPageMessage({
    title: "Search results",
    tone: "info",
    header: filtersSummary(ref.query) + sellerNote,
    listings: page.listings,
    page: ref.page,
    empty,
    footer: `sorted by ${SORT_NAMES[sort].toLowerCase()}`,
    openId: idFor(SEARCH_ACTIONS.open, ""),
    paging: cursorPaging(pager, ref, page.cursor, (subject) => idFor(SEARCH_ACTIONS.page, subject)),
  });
}

const definition = {
  name: "search",
  description: "Search the market's listings",
  ...EVERYWHERE,
  options: [
    {
      name: "item",
      description: "Full market name of the item",
      type: S,
      autocomplete: true,
      max_length: 200,
    },
    { name: "min_price", description: "Lowest price in USD, e.g. 12.50", type: S, max_length: 40 },
    { name: "max_price", description: "Highest price in USD, e.g. 40", type: S, max_length: 40 },
    { name: "min_float", description: "Lowest wear float, 0 to 1, e.g. 0.00", type: S, max_length: 40 },
    { name: "max_float", description: "Highest wear float, 0 to 1, e.g. 0.07", type: S, max_length: 40 },
    {
      name: "paint_seed",
      description: "Pattern seed (0 to 100000)",
      type: I,
      min_value: 0,
      max_value: 100_000,
    },
    {
      name: "paint_index",
      description: "Paint (finish) index",
      type: I,
      min_value: 0,
      max_value: 1_000_000,
    },
    {
      name: "def_index",
      description: "Item definition index",
      type: I,
      min_value: 0,
      max_value: 1_000_000,
    },
    {
      name: "rarity",
      description: "Rarity number (1 common … 6 highest)",
      type: I,
      min_value: 0,
      max_value: 100,
    },
    { name: "type", description: "Buy now or auction", type: S, choices: TYPE_CHOICES },
    {
      name: "category",
      description: "Normal, statcounter or souvenir",
      type: S,
      choices: CATEGORY_CHOICES,
    },
    {
      name: "sort",
      description: "Order of the results (default: best deal)",
      type: S,
      choices: SORT_CHOICES,
    },
    {
      name: "stickers",
      description: "Sticker ids, optionally with slot: 123|0, 456",
      type: S,
      max_length: 200,
    },
    {
      name: "seller",
      description: "Keep one seller's listings (platform id) from each page; /stall shows a whole stall",
      type: S,
      max_length: 24,
    },
    { name: "collection", description: "Collection name", type: S, max_length: 200 },
    {
      name: "min_ref_qty",
      description: "Minimum sales behind the reference price",
      type: I,
      min_value: 0,
      max_value: 1_000_000,
    },
  ],
} as const satisfies CommandDefinition;

type SearchOptions = OptionsReader<typeof definition.options>;

export const command = defineCommand({
  definition,
  autocomplete: suggestItemNames,
  execute: {
    // Market data is not personal: results are shared in the channel; the buttons stay the searcher's.
    defer: "public",
    validate: (ctx) => void searchFilters(ctx.options),
    async run(ctx) {
      const filters = searchFilters(ctx.options);
      const ref = searchPager(ctx.deps).open(filters);
      return searchPage(ctx, ref);
    },
  },
  components: {
    [SEARCH_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const ref = searchPager(ctx.deps).resolve(ctx.id.subject, "search results");
        await ctx.update(await searchPage(ctx, ref));
      },
    },
    // Anyone who sees the results may open a listing; the view is private to them.
    [SEARCH_ACTIONS.open]: {
      defer: "ephemeral",
      ownerOnly: false,
      run(ctx) {
        const [listingId = ""] = ctx.values;
        return listingViewReply(ctx, parseId("listing", listingId));
      },
    },
  },
});

/** Every /search option, validated (throws a message naming the option). */
function searchFilters(o: SearchOptions) {
  return readFilters({
    item: o.string("item"),
    min_price: o.string("min_price"),
    max_price: o.string("max_price"),
    min_float: o.string("min_float"),
    max_float: o.string("max_float"),
    paint_seed: o.integer("paint_seed"),
    paint_index: o.integer("paint_index"),
    def_index: o.integer("def_index"),
    rarity: o.integer("rarity"),
    type: o.string("type"),
    category: o.string("category"),
    sort: o.string("sort"),
    stickers: o.string("stickers"),
    seller: o.string("seller"),
    collection: o.string("collection"),
    min_ref_qty: o.integer("min_ref_qty"),
  });
}

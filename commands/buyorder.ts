// /buyorder: standing orders to buy an item at up to a price, with optional item constraints.
// Editing keeps every constraint the user does not name (the marketplace's update is absolute;
// editBuyOrder merges), and `clear` removes exactly the constraints listed.
import { BUY_ORDER_ACTIONS } from "../src/discord/actions.ts";
import { ApplicationCommandOptionType } from "discord.js";
import { defineCommand } from "../src/discord/command.ts";
import { LISTING_OPTION } from "../src/discord/options.ts";
import { notice } from "../src/discord/render/embeds.ts";
import { itemName } from "../src/discord/render/listing.ts";
import { aggregatesEmbed } from "../src/discord/render/buyOrders.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { invalidOption } from "../src/errors.ts";
import {
  MAX_STICKER_SELECTORS,
  parseFloatValue,
  parseId,
  parseIntOption,
  parsePrice,
  parseRange,
  parseSeeds,
  parseSmallIdList,
  parseText,
} from "../src/input/parse.ts";
import { matchesForListing, similarOrders } from "../src/trading/buyOrders.ts";
import type { BuyOrderConstraints, ConstraintName } from "../src/trading/constraints.ts";
import { checkItemName } from "../src/trading/itemCheck.ts";
import {
  confirmCreate,
  confirmEdit,
  createConfirmation,
  dismiss,
  editOrConfirm,
} from "./buyorder/confirm.ts";
import { BUYORDER_GUARD_SUBCOMMAND, GUARD_COMPONENTS, runBuyOrderGuard } from "./buyorder/guard.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { buyOrderAutocomplete } from "./buyorder/suggest.ts";
import { manageComponents, manageModals, ordersPage } from "./buyorder/manage.ts";

const MAX_PAGE = 1000;
const MAX_QUANTITY = 10_000;
const MAX_KEYCHAINS = 6;
const MAX_ITEM_NAME = 200;

const S = ApplicationCommandOptionType.String;
const I = ApplicationCommandOptionType.Integer;

const itemOption = {
  name: "item",
  description: "Full market name, e.g. Rifle | Finish (Field Worn)",
  type: S,
  required: true,
  autocomplete: true,
  max_length: MAX_ITEM_NAME,
} as const;
const orderOption = {
  name: "order",
  description: "Buy order id (from /buyorder list); suggestions show your orders",
  type: S,
  required: true,
  autocomplete: true,
  max_length: 24,
} as const;

/** The constraint options, the same on create and edit. */
const CONSTRAINT_OPTIONS = [
  { name: "min_float", description: "Lowest float, 0 to 1, e.g. 0.00", type: S, max_length: 24 },
  { name: "max_float", description: "Highest float, 0 to 1, e.g. 0.07", type: S, max_length: 24 },
  {
    name: "paint_index",
    description: "Paint index (finish number)",
    type: I,
    min_value: 0,
    max_value: 100_000,
  },
  {
    name: "paint_seeds",
    description: "Pattern seeds, comma-separated, e.g. 661, 670",
    type: S,
    max_length: 900,
  },
  {
    name: "stickers",
    description: "Sticker ids the item must carry, e.g. 1101, 1102",
    type: S,
    max_length: 200,
  },
  { name: "keychains", description: "Keychain ids the item must carry, e.g. 31", type: S, max_length: 200 },
] as const;

/** What the user typed for the constraints (absent: not given). */
interface RawConstraints {
  readonly min_float: string | undefined;
  readonly max_float: string | undefined;
  readonly paint_index: number | undefined;
  readonly paint_seeds: string | undefined;
  readonly stickers: string | undefined;
  readonly keychains: string | undefined;
}

function parseConstraints(raw: RawConstraints): BuyOrderConstraints {
  const minFloat = raw.min_float === undefined ? undefined : parseFloatValue("min_float", raw.min_float);
  const maxFloat = raw.max_float === undefined ? undefined : parseFloatValue("max_float", raw.max_float);
  parseRange("min_float", minFloat, "max_float", maxFloat);
  const c: BuyOrderConstraints = {};
  if (minFloat !== undefined) c.minFloat = minFloat;
  if (maxFloat !== undefined) c.maxFloat = maxFloat;
  if (raw.paint_index !== undefined)
    c.paintIndex = parseIntOption("paint_index", raw.paint_index, 0, 100_000);
  if (raw.paint_seeds !== undefined) c.paintSeeds = parseSeeds("paint_seeds", raw.paint_seeds);
  if (raw.stickers !== undefined) {
    c.stickerIds = parseSmallIdList("stickers", raw.stickers, MAX_STICKER_SELECTORS, "sticker");
  }
  if (raw.keychains !== undefined)
    c.keychainIds = parseSmallIdList("keychains", raw.keychains, MAX_KEYCHAINS, "keychain");
  return c;
}

/** The names `clear` accepts, as the options are called, and the constraints each removes. */
const CLEARABLE: Readonly<Record<string, readonly ConstraintName[]>> = {
  min_float: ["minFloat"],
  max_float: ["maxFloat"],
  float: ["minFloat", "maxFloat"],
  paint_index: ["paintIndex"],
  paint_seeds: ["paintSeeds"],
  stickers: ["stickerIds"],
  keychains: ["keychainIds"],
  all: [
    "minFloat",
    "maxFloat",
    "paintIndex",
    "paintSeeds",
    "stickerIds",
    "keychainIds",
    "minKeychainPattern",
    "maxKeychainPattern",
  ],
};

/** "min_float, stickers" -> the constraint names to remove; unknown names are refused. */
function parseClear(raw: string): ConstraintName[] {
  const text = parseText("clear", raw, 200);
  const names = new Set<ConstraintName>();
  for (const token of text
    .toLowerCase()
    .split(/[\s,;]+/)
    .filter((t) => t !== "")) {
    const found = CLEARABLE[token];
    if (!found) {
      throw invalidOption(
        "clear",
        `"${itemName(token, 24)}" is not a constraint; use any of ${Object.keys(CLEARABLE).join(", ")}`,
      );
    }
    for (const name of found) names.add(name);
  }
  if (names.size === 0)
    throw invalidOption("clear", "name the constraints to remove, e.g. min_float, stickers");
  return [...names];
}

export const command = defineCommand({
  definition: {
    name: "buyorder",
    description: "Standing orders that buy an item for you at up to a price",
    ...EVERYWHERE,
    options: [
      {
        name: "create",
        description: "Buy an item whenever one is offered at or below your price",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          itemOption,
          {
            name: "max_price",
            description: "Most you pay per item in USD, e.g. 12.50",
            type: S,
            required: true,
            max_length: 24,
          },
          {
            name: "quantity",
            description: "How many to buy",
            type: I,
            required: true,
            min_value: 1,
            max_value: MAX_QUANTITY,
          },
          ...CONSTRAINT_OPTIONS,
        ],
      },
      {
        name: "list",
        description: "Your open buy orders",
        type: ApplicationCommandOptionType.Subcommand,
        options: [{ name: "page", description: "Page number", type: I, min_value: 1, max_value: MAX_PAGE }],
      },
      {
        name: "edit",
        description: "Change price, quantity or constraints; everything you leave out stays",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          orderOption,
          { name: "max_price", description: "New most you pay per item in USD", type: S, max_length: 24 },
          { name: "quantity", description: "New quantity", type: I, min_value: 1, max_value: MAX_QUANTITY },
          ...CONSTRAINT_OPTIONS,
          {
            name: "clear",
            description:
              "Constraints to remove, comma-separated: min_float, max_float, paint_index, stickers…",
            type: S,
            max_length: 200,
          },
        ],
      },
      {
        name: "cancel",
        description: "Cancel a buy order (items already bought stay bought)",
        type: ApplicationCommandOptionType.Subcommand,
        options: [orderOption],
      },
      {
        name: "matches",
        description: "Standing buy orders a listing would fill",
        type: ApplicationCommandOptionType.Subcommand,
        options: [LISTING_OPTION],
      },
      {
        name: "similar",
        description: "Other buyers' orders for an item: your competition",
        type: ApplicationCommandOptionType.Subcommand,
        options: [itemOption],
      },
      BUYORDER_GUARD_SUBCOMMAND,
    ],
  },
  autocomplete: buyOrderAutocomplete,
  subcommands: {
    create: {
      defer: "ephemeral",
      async run(ctx) {
        const o = ctx.options;
        const typed = parseText("item", o.string("item"), MAX_ITEM_NAME);
        const maxPriceCents = parsePrice("max_price", o.string("max_price"));
        const quantity = parseIntOption("quantity", o.integer("quantity"), 1, MAX_QUANTITY);
        const constraints = parseConstraints({
          min_float: o.string("min_float"),
          max_float: o.string("max_float"),
          paint_index: o.integer("paint_index"),
          paint_seeds: o.string("paint_seeds"),
          stickers: o.string("stickers"),
          keychains: o.string("keychains"),
        });
        // A slip for a known name is refused with the closest names; a name nobody has listed or
        // sold yet (a new release, a rare item) is placed only once the user confirms it.
        const market = await ctx.deps.reads.forUser(ctx.user.id);
        const checked = await checkItemName({ market, logger: ctx.log }, ctx.deps.itemNames, "item", typed);
        // Shows the total exposure against the caps; placed only on "Place order".
        return createConfirmation(
          ctx,
          { itemName: checked.name, maxPriceCents, quantity, constraints },
          checked.kind === "unseen" ? { similar: checked.similar } : undefined,
        );
      },
    },
    list: {
      defer: "ephemeral",
      run(ctx) {
        const raw = ctx.options.integer("page");
        return ordersPage(ctx, raw === undefined ? 0 : parseIntOption("page", raw, 1, MAX_PAGE) - 1);
      },
    },
    edit: {
      defer: "ephemeral",
      async run(ctx) {
        const o = ctx.options;
        const orderId = parseId("order", o.string("order"), "buy order");
        const rawPrice = o.string("max_price");
        const rawQuantity = o.integer("quantity");
        const rawClear = o.string("clear");
        const maxPriceCents = rawPrice === undefined ? undefined : parsePrice("max_price", rawPrice);
        const quantity =
          rawQuantity === undefined ? undefined : parseIntOption("quantity", rawQuantity, 1, MAX_QUANTITY);
        const constraints = parseConstraints({
          min_float: o.string("min_float"),
          max_float: o.string("max_float"),
          paint_index: o.integer("paint_index"),
          paint_seeds: o.string("paint_seeds"),
          stickers: o.string("stickers"),
          keychains: o.string("keychains"),
        });
        const clear = rawClear === undefined ? [] : parseClear(rawClear);
        // Applied at once unless it raises what the order can spend: then confirmed first.
        return editOrConfirm(ctx, { orderId, maxPriceCents, quantity, constraints, clear });
      },
    },
    cancel: {
      defer: "ephemeral",
      async run(ctx) {
        const orderId = parseId("order", ctx.options.string("order"), "buy order");
        const trader = await linkedTrader(ctx);
        await trader.cancelBuyOrder({ orderId });
        return {
          ephemeral: true,
          embeds: [notice("success", `Buy order \`${orderId}\` cancelled. Items already bought stay yours.`)],
        };
      },
    },
    matches: {
      defer: "ephemeral",
      async run(ctx) {
        const listingId = parseId("listing", ctx.options.string("listing"));
        // Public data: works without a linked account (the user's key is used when there is one).
        const market = await ctx.deps.reads.forUser(ctx.user.id);
        const orders = await matchesForListing({ market, logger: ctx.log, now: ctx.deps.now }, { listingId });
        return {
          ephemeral: true,
          embeds: [
            aggregatesEmbed(
              "Buy orders this listing would fill",
              orders,
              "No standing buy order matches this listing.",
              `Listing ${listingId}`,
            ),
          ],
        };
      },
    },
    similar: {
      defer: "ephemeral",
      async run(ctx) {
        const name = parseText("item", ctx.options.string("item"), MAX_ITEM_NAME);
        const trader = await linkedTrader(ctx);
        const orders = await similarOrders(trader.deps, { itemName: name });
        return {
          ephemeral: true,
          embeds: [
            aggregatesEmbed(
              `Buy orders for ${itemName(name, 100)}`,
              orders,
              "Nobody has a standing order for this item.",
              "Standing orders from all buyers",
            ),
          ],
        };
      },
    },
    guard: {
      defer: "ephemeral",
      run: (ctx) =>
        runBuyOrderGuard(ctx, {
          subject: ctx.options.string("order"),
          limit: ctx.options.string("ceiling"),
          step: ctx.options.string("step"),
          maxChanges: ctx.options.integer("max_changes"),
          off: ctx.options.boolean("off"),
        }),
    },
  },
  components: {
    ...GUARD_COMPONENTS,
    // The list's paging, its order menu, and the chosen order's Edit and Cancel buttons.
    ...manageComponents,
    // The confirmation becomes the receipt; refusals (caps, expired) arrive privately.
    [BUY_ORDER_ACTIONS.create]: { defer: "update", run: confirmCreate },
    [BUY_ORDER_ACTIONS.edit]: { defer: "update", run: confirmEdit },
    [BUY_ORDER_ACTIONS.dismiss]: { defer: false, run: dismiss },
  },
  modals: manageModals,
});

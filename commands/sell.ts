// /sell: list an inventory item (buy now or auction), reprice a listing, remove listings (several
// at once through the bulk endpoint, with an outcome per listing), and page through one's own.
import { ApplicationCommandOptionType } from "discord.js";
import { SEARCH_ACTIONS, SELL_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext } from "../src/discord/command.ts";
import type { BotDeps } from "../src/discord/deps.ts";
import { LISTING_OPTION } from "../src/discord/options.ts";
import { createPager, cursorPaging, PAGER_TTL_MS, type PageRef } from "../src/discord/pager.ts";
import { perApp } from "../src/discord/perApp.ts";
import { money } from "../src/discord/render/format.ts";
import { listingPageMessage, PAGE_SIZE } from "../src/discord/render/search.ts";
import { delistEmbed, listingResultEmbed } from "../src/discord/render/trading.ts";
import { assetChoice } from "../src/discord/render/choices.ts";
import type { Reply } from "../src/discord/reply.ts";
import { userChoices } from "../src/discord/suggest.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { invalidOption, UserFacingError } from "../src/errors.ts";
import { parseId, parseIdList, parsePercent, parsePrice, parseText } from "../src/input/parse.ts";
import { ListingType } from "../src/market/schemas.ts";
import { AUCTION_DURATIONS, delist, listItem, MAX_DESCRIPTION, myListings } from "../src/trading/selling.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

import { runSellGuard, SELL_GUARD_SUBCOMMAND } from "./sell/guard.ts";
import { assetChoices, fitsTyped } from "../src/trading/suggestions.ts";

const MAX_DELIST = 50;

interface MineQuery {
  readonly platformId: string;
}

const minePager = perApp((deps: BotDeps) => createPager<MineQuery>(() => deps.now().getTime()));

async function minePage(ctx: BaseContext, ref: PageRef<MineQuery>): Promise<Omit<Reply, "ephemeral">> {
  const trader = await linkedTrader(ctx);
  const page = await myListings(trader.deps, {
    platformId: ref.query.platformId,
    limit: PAGE_SIZE,
    ...(ref.cursor ? { cursor: ref.cursor } : {}),
  });
  const pager = minePager(ctx.deps);
  const idFor = (action: string, subject: string) => ctx.customId(action, subject, { ttlMs: PAGER_TTL_MS });
  const totals =
    page.totalCount === undefined || page.totalCount === 0
      ? undefined
      : `${page.totalCount} listed${page.totalPriceCents === undefined ? "" : `, worth ${money(page.totalPriceCents)}`}`;
  return listingPageMessage({
    title: "Your listings",
    ...(totals ? { header: totals } : {}),
    listings: page.listings,
    page: ref.page,
    empty: ref.page === 0 ? "You have nothing listed. List an item with `/sell list`." : "No more listings.",
    footer: "Remove with /sell delist · reprice with /sell reprice",
    openId: idFor(SEARCH_ACTIONS.open, ""),
    paging: cursorPaging(pager, ref, page.cursor, (subject) => idFor(SELL_ACTIONS.page, subject)),
  });
}

const S = ApplicationCommandOptionType.String;
const TYPE_CHOICES: { name: string; value: ListingType }[] = [
  { name: "Buy now", value: "buy_now" },
  { name: "Auction", value: "auction" },
];

export const command = defineCommand({
  definition: {
    name: "sell",
    description: "List items for sale, reprice or remove them, see your listings",
    ...EVERYWHERE,
    options: [
      {
        name: "list",
        description: "Put an item from your inventory on the market",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "asset",
            description: "Asset id of the item; suggestions show items the bot saw you buy",
            type: S,
            required: true,
            autocomplete: true,
            max_length: 24,
          },
          {
            name: "price",
            description: "Price in USD, e.g. 12.50 (for an auction: the starting price)",
            type: S,
            required: true,
            max_length: 24,
          },
          { name: "type", description: "Buy now (default) or auction", type: S, choices: TYPE_CHOICES },
          {
            name: "reserve_price",
            description: "Auction only: starting price in USD, if you prefer to name it here",
            type: S,
            max_length: 24,
          },
          {
            name: "duration_days",
            description: "Auction only: how long it runs (default 7 days)",
            type: ApplicationCommandOptionType.Integer,
            choices: AUCTION_DURATIONS.map((d) => ({ name: `${d} day${d === 1 ? "" : "s"}`, value: d })),
          },
          { name: "description", description: "Shown on the listing", type: S, max_length: MAX_DESCRIPTION },
          {
            name: "max_offer_discount",
            description: "Largest discount an offer may ask, in percent, e.g. 15 (0 turns offers off)",
            type: S,
            max_length: 8,
          },
        ],
      },
      {
        name: "reprice",
        description: "Change the price of one of your buy-now listings",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          LISTING_OPTION,
          {
            name: "price",
            description: "New price in USD, e.g. 12.50",
            type: S,
            required: true,
            max_length: 24,
          },
        ],
      },
      {
        name: "delist",
        description: "Remove listings from the market (items return to your inventory)",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "listings",
            description: "Listing ids, separated by commas or spaces",
            type: S,
            required: true,
            max_length: 1200,
          },
        ],
      },
      {
        name: "mine",
        description: "Your listings on the market",
        type: ApplicationCommandOptionType.Subcommand,
      },
      SELL_GUARD_SUBCOMMAND,
    ],
  },
  autocomplete: (ctx) => {
    if (ctx.focused.name !== "asset") return Promise.resolve([]);
    const typed = ctx.focused.value;
    return userChoices(
      ctx,
      "assets",
      ({ market }) => assetChoices(market),
      (assets) => assets.filter((a) => fitsTyped(typed, a.assetId, a.itemName)).map(assetChoice),
    );
  },
  subcommands: {
    guard: {
      defer: "ephemeral",
      run: (ctx) =>
        runSellGuard(ctx, {
          subject: ctx.options.string("listing"),
          limit: ctx.options.string("floor"),
          step: ctx.options.string("step"),
          maxChanges: ctx.options.integer("max_changes"),
          off: ctx.options.boolean("off"),
        }),
    },
    list: {
      defer: "ephemeral",
      async run(ctx) {
        const o = ctx.options;
        const assetId = parseId("asset", o.string("asset"), "asset");
        const price = parsePrice("price", o.string("price"));
        const rawType = o.string("type");
        const parsedType = rawType === undefined ? undefined : ListingType.safeParse(rawType);
        if (parsedType && !parsedType.success) throw invalidOption("type", "choose buy_now or auction");
        const type: ListingType = parsedType?.data ?? "buy_now";
        const rawReserve = o.string("reserve_price");
        const reserve = rawReserve === undefined ? undefined : parsePrice("reserve_price", rawReserve);
        const rawDescription = o.string("description");
        const rawDiscount = o.string("max_offer_discount");
        const description =
          rawDescription === undefined
            ? undefined
            : parseText("description", rawDescription, MAX_DESCRIPTION, { allowEmpty: true });
        const discountBps =
          rawDiscount === undefined
            ? undefined
            : Math.round(parsePercent("max_offer_discount", rawDiscount) * 100);
        // An auction has one starting price on the marketplace: `price`, or `reserve_price` when given.
        if (type === "auction" && reserve !== undefined && reserve !== price) {
          throw invalidOption(
            "reserve_price",
            `an auction has one starting price; you gave price ${money(price)} and reserve_price ${money(reserve)}. Give the same amount or leave reserve_price out.`,
          );
        }
        const trader = await linkedTrader(ctx);
        const listing = await listItem(trader.deps, {
          assetId,
          type,
          ...(type === "auction"
            ? { reservePriceCents: reserve ?? price }
            : { priceCents: price, reservePriceCents: reserve }),
          durationDays: o.integer("duration_days"),
          description,
          maxOfferDiscountBps: discountBps,
        });
        return { ephemeral: true, embeds: [listingResultEmbed(listing, "Listed")] };
      },
    },
    reprice: {
      defer: "ephemeral",
      async run(ctx) {
        const listingId = parseId("listing", ctx.options.string("listing"));
        const priceCents = parsePrice("price", ctx.options.string("price"));
        const trader = await linkedTrader(ctx);
        const listing = await trader.repriceListing({ listingId, priceCents });
        return { ephemeral: true, embeds: [listingResultEmbed(listing, "Repriced")] };
      },
    },
    delist: {
      defer: "ephemeral",
      async run(ctx) {
        const listingIds = parseIdList("listings", ctx.options.string("listings"), MAX_DELIST);
        const trader = await linkedTrader(ctx);
        const outcomes = await delist(trader.deps, { listingIds });
        return { ephemeral: true, embeds: [delistEmbed(outcomes)] };
      },
    },
    mine: {
      defer: "ephemeral",
      async run(ctx) {
        const trader = await linkedTrader(ctx);
        if (trader.platformId === null) {
          throw new UserFacingError(
            "not_linked",
            "The bot does not know your marketplace id yet; run `/account link` again to refresh it.",
          );
        }
        const ref = minePager(ctx.deps).open({ platformId: trader.platformId });
        return { ephemeral: true, ...(await minePage(ctx, ref)) };
      },
    },
  },
  components: {
    [SELL_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const ref = minePager(ctx.deps).resolve(ctx.id.subject, "listings");
        await ctx.update(await minePage(ctx, ref));
      },
    },
  },
});

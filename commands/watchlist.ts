// /watchlist: the user's marketplace watchlist (show, add, remove), private and paged. The listing
// view's Watch/Unwatch buttons land here too.
import { ApplicationCommandOptionType } from "discord.js";
import { SEARCH_ACTIONS, WATCHLIST_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext, type ComponentHandler } from "../src/discord/command.ts";
import type { BotDeps } from "../src/discord/deps.ts";
import { LISTING_OPTION } from "../src/discord/options.ts";
import { createPager, cursorPaging, PAGER_TTL_MS, type PageRef } from "../src/discord/pager.ts";
import { perApp } from "../src/discord/perApp.ts";
import { notice } from "../src/discord/render/embeds.ts";
import { listingPageMessage, PAGE_SIZE } from "../src/discord/render/search.ts";
import type { MessageUpdate, Reply } from "../src/discord/reply.ts";
import { parseId } from "../src/input/parse.ts";
import { listWatchlist, unwatchListing, watchListing } from "../src/trading/watchlist.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { linkedTrader } from "../src/discord/trader.ts";

/** Nothing to remember but the cursors: the owner is in the button's custom id. */
type WatchlistQuery = Record<string, never>;

const watchPager = perApp((deps: BotDeps) => createPager<WatchlistQuery>(() => deps.now().getTime()));

async function watchlistPage(ctx: BaseContext, ref: PageRef<WatchlistQuery>): Promise<MessageUpdate> {
  // The watchlist is the user's own: read and changed with their key.
  const { deps } = await linkedTrader(ctx);
  const pager = watchPager(ctx.deps);
  const page = await listWatchlist(deps, { limit: PAGE_SIZE, ...(ref.cursor ? { cursor: ref.cursor } : {}) });
  const idFor = (action: string, subject: string) => ctx.customId(action, subject, { ttlMs: PAGER_TTL_MS });
  return listingPageMessage({
    title: "Your watchlist",
    tone: "info",
    listings: page.listings,
    page: ref.page,
    empty:
      ref.page === 0
        ? "Your marketplace watchlist is empty. Add a listing with `/watchlist add` or the Watch button on a listing."
        : "No more listings.",
    footer: "your marketplace watchlist",
    openId: idFor(SEARCH_ACTIONS.open, ""),
    paging: cursorPaging(pager, ref, page.cursor, (subject) => idFor(WATCHLIST_ACTIONS.page, subject)),
  });
}

async function add(ctx: BaseContext, listingId: string): Promise<Reply> {
  const { listingId: id } = await watchListing((await linkedTrader(ctx)).deps, { listingId });
  return {
    ephemeral: true,
    embeds: [
      notice(
        "success",
        `Listing \`${id}\` is on your marketplace watchlist. See it with \`/watchlist show\`.`,
      ),
    ],
  };
}

async function remove(ctx: BaseContext, listingId: string): Promise<Reply> {
  const { listingId: id } = await unwatchListing((await linkedTrader(ctx)).deps, { listingId });
  return {
    ephemeral: true,
    embeds: [notice("success", `Listing \`${id}\` is no longer on your marketplace watchlist.`)],
  };
}

function fromButton(run: (ctx: BaseContext, listingId: string) => Promise<Reply>): ComponentHandler {
  return { defer: "ephemeral", run: (ctx) => run(ctx, parseId("listing", ctx.id.subject)) };
}

export const command = defineCommand({
  definition: {
    name: "watchlist",
    description: "Your marketplace watchlist: show it, add or remove listings",
    ...EVERYWHERE,
    options: [
      {
        name: "show",
        description: "Show the listings you watch",
        type: ApplicationCommandOptionType.Subcommand,
      },
      {
        name: "add",
        description: "Watch a listing on the marketplace",
        type: ApplicationCommandOptionType.Subcommand,
        options: [LISTING_OPTION],
      },
      {
        name: "remove",
        description: "Stop watching a listing",
        type: ApplicationCommandOptionType.Subcommand,
        options: [LISTING_OPTION],
      },
    ],
  },
  subcommands: {
    show: {
      defer: "ephemeral",
      async run(ctx) {
        const ref = watchPager(ctx.deps).open({});
        return { ephemeral: true, ...(await watchlistPage(ctx, ref)) };
      },
    },
    add: {
      defer: "ephemeral",
      run: (ctx) => add(ctx, parseId("listing", ctx.options.string("listing"))),
    },
    remove: {
      defer: "ephemeral",
      run: (ctx) => remove(ctx, parseId("listing", ctx.options.string("listing"))),
    },
  },
  components: {
    [WATCHLIST_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const ref = watchPager(ctx.deps).resolve(ctx.id.subject, "watchlist pages");
        await ctx.update(await watchlistPage(ctx, ref));
      },
    },
    [WATCHLIST_ACTIONS.add]: fromButton(add),
    [WATCHLIST_ACTIONS.remove]: fromButton(remove),
  },
});

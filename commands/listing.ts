// /listing: one listing in detail with the actions that fit it (view), its bids, similar listings.
// The view's Buy/Bid/Make offer buttons belong to the buying commands (see src/discord/actions.ts).
import { ApplicationCommandOptionType } from "discord.js";
import { LISTING_ACTIONS, SEARCH_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext, type ComponentHandler } from "../src/discord/command.ts";
import { bidsEmbed, listingButtons, listingEmbed } from "../src/discord/render/listing.ts";
import { listingPageMessage } from "../src/discord/render/search.ts";
import type { Reply } from "../src/discord/reply.ts";
import { parseId } from "../src/input/parse.ts";
import { listingBids, similarListings, viewListing } from "../src/trading/listing.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { readerDeps } from "../src/discord/trader.ts";

/** Buttons on a listing view: long enough to decide, short enough not to act on a stale view. */
export const LISTING_BUTTON_TTL_MS = 60 * 60_000;

const idOption = {
  name: "id",
  description: "Listing id (a number like 123456789)",
  type: ApplicationCommandOptionType.String,
  required: true,
  max_length: 24,
} as const;

/** The listing view as a reply: embed plus the buttons that fit, owned by the reader. Personal
 * (buttons act with the reader's account, "on your watchlist"), so ephemeral. */
export async function listingViewReply(ctx: BaseContext, listingId: string): Promise<Reply> {
  const detail = await viewListing(await readerDeps(ctx), {
    listingId,
    screenshotTemplate: ctx.deps.config.MARKET_SCREENSHOT_URL,
  });
  return {
    ephemeral: true,
    embeds: [listingEmbed(detail)],
    components: listingButtons(detail, (action, subject) =>
      ctx.customId(action, subject, { ttlMs: LISTING_BUTTON_TTL_MS }),
    ),
  };
}

async function bidsReply(ctx: BaseContext, listingId: string): Promise<Reply> {
  const result = await listingBids(await readerDeps(ctx), { listingId });
  return { ephemeral: true, embeds: [bidsEmbed(result)] };
}

async function similarReply(ctx: BaseContext, listingId: string): Promise<Reply> {
  const similar = await similarListings(await readerDeps(ctx), { listingId });
  const message = listingPageMessage({
    title: "Similar listings",
    listings: similar.slice(0, 10),
    page: 0,
    empty: "No similar listings are on the market right now.",
    footer: `Like listing ${listingId}`,
    openId: ctx.customId(SEARCH_ACTIONS.open, "", { ttlMs: LISTING_BUTTON_TTL_MS }),
  });
  return { ephemeral: true, ...message };
}

/** Buttons on a listing view carry the listing id as their subject. */
function fromButton(run: (ctx: BaseContext, listingId: string) => Promise<Reply>): ComponentHandler {
  return {
    defer: "ephemeral",
    run: (ctx) => run(ctx, parseId("listing", ctx.id.subject)),
  };
}

export const command = defineCommand({
  definition: {
    name: "listing",
    description: "Look at one listing: details, bids, similar listings",
    ...EVERYWHERE,
    options: [
      {
        name: "view",
        description: "Show a listing with its price, item details, seller and actions",
        type: ApplicationCommandOptionType.Subcommand,
        options: [idOption],
      },
      {
        name: "bids",
        description: "Show the bid history of an auction",
        type: ApplicationCommandOptionType.Subcommand,
        options: [idOption],
      },
      {
        name: "similar",
        description: "Show listings similar to this one",
        type: ApplicationCommandOptionType.Subcommand,
        options: [idOption],
      },
    ],
  },
  subcommands: {
    view: {
      defer: "ephemeral",
      run: (ctx) => listingViewReply(ctx, parseId("id", ctx.options.string("id"))),
    },
    bids: {
      defer: "ephemeral",
      run: (ctx) => bidsReply(ctx, parseId("id", ctx.options.string("id"))),
    },
    similar: {
      defer: "ephemeral",
      run: (ctx) => similarReply(ctx, parseId("id", ctx.options.string("id"))),
    },
  },
  components: {
    [LISTING_ACTIONS.similar]: fromButton(similarReply),
    [LISTING_ACTIONS.bids]: fromButton(bidsReply),
  },
});

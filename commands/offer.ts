// /offer: negotiate below the asking price (make, counter) and read one's offers. The Make offer
// button of a listing view (OFFER_ACTIONS.open) asks the price in a private form.
import { ApplicationCommandOptionType } from "discord.js";
import { z } from "zod";
import { OFFER_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, modal, type BaseContext } from "../src/discord/command.ts";
import { openListingPriceForm } from "../src/discord/forms.ts";
import { LISTING_OPTION } from "../src/discord/options.ts";
import { numberedPaging, pageFromSubject } from "../src/discord/pager.ts";
import { offerEmbed, offersPageMessage } from "../src/discord/render/trading.ts";
import type { Reply } from "../src/discord/reply.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { parseId, parseIntOption, parsePrice } from "../src/input/parse.ts";
import type { Cents } from "../src/money.ts";
import { listOffers } from "../src/trading/offers.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

const PAGE_TTL_MS = 30 * 60_000;
const MAX_PAGE = 1000;

const OfferForm = z.object({ price: z.string() });

async function makeOfferReply(ctx: BaseContext, listingId: string, priceCents: Cents): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const offer = await trader.makeOffer({ listingId, priceCents });
  return { ephemeral: true, embeds: [offerEmbed(offer, "Offer sent")] };
}

/** `page` is zero-based; the buttons carry it as their subject. */
async function offersPage(ctx: BaseContext, page: number): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const result = await listOffers(trader.deps, { page });
  const id = (p: number) => ctx.customId(OFFER_ACTIONS.page, String(p), { ttlMs: PAGE_TTL_MS });
  return {
    ephemeral: true,
    ...offersPageMessage(result, numberedPaging(page, result.hasMore, id)),
  };
}

export const command = defineCommand({
  definition: {
    name: "offer",
    description: "Offer a lower price on a buy-now listing, counter an offer, see your offers",
    ...EVERYWHERE,
    options: [
      {
        name: "make",
        description: "Offer a price below the asking price",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          LISTING_OPTION,
          {
            name: "price",
            description: "Your offer in USD, e.g. 12.50",
            type: ApplicationCommandOptionType.String,
            required: true,
            max_length: 24,
          },
        ],
      },
      {
        name: "counter",
        description: "Answer an offer with another price (replaces it)",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "offer",
            description: "Offer id (from /offer list)",
            type: ApplicationCommandOptionType.String,
            required: true,
            max_length: 24,
          },
          {
            name: "price",
            description: "Your counter price in USD, e.g. 12.50",
            type: ApplicationCommandOptionType.String,
            required: true,
            max_length: 24,
          },
        ],
      },
      {
        name: "list",
        description: "Your offers, most recent first",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "page",
            description: "Page number (1 is the newest)",
            type: ApplicationCommandOptionType.Integer,
            min_value: 1,
            max_value: MAX_PAGE,
          },
        ],
      },
    ],
  },
  subcommands: {
    make: {
      defer: "ephemeral",
      run(ctx) {
        const listingId = parseId("listing", ctx.options.string("listing"));
        const price = parsePrice("price", ctx.options.string("price"));
        return makeOfferReply(ctx, listingId, price);
      },
    },
    counter: {
      defer: "ephemeral",
      async run(ctx) {
        const offerId = parseId("offer", ctx.options.string("offer"), "offer");
        const priceCents = parsePrice("price", ctx.options.string("price"));
        const trader = await linkedTrader(ctx);
        const offer = await trader.counterOffer({ offerId, priceCents });
        return { ephemeral: true, embeds: [offerEmbed(offer, "Counter-offer sent")] };
      },
    },
    list: {
      defer: "ephemeral",
      run(ctx) {
        const raw = ctx.options.integer("page");
        const page = raw === undefined ? 0 : parseIntOption("page", raw, 1, MAX_PAGE) - 1;
        return offersPage(ctx, page);
      },
    },
  },
  components: {
    [OFFER_ACTIONS.open]: openListingPriceForm({
      action: OFFER_ACTIONS.form,
      field: "price",
      title: (listingId) => `Offer on listing ${listingId}`,
      label: "Your offer (USD)",
      description: "Below the asking price; the seller may accept or counter.",
    }),
    [OFFER_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const { embeds, components } = await offersPage(ctx, pageFromSubject(ctx.id.subject));
        await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
      },
    },
  },
  modals: {
    [OFFER_ACTIONS.form]: modal({
      defer: "ephemeral",
      fields: OfferForm,
      run(ctx, { price }) {
        return makeOfferReply(ctx, parseId("listing", ctx.id.subject), parsePrice("price", price));
      },
    }),
  },
});

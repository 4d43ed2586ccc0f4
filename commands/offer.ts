// /offer: negotiate below the asking price (make, counter) and read one's offers. The Make offer
// button of a listing view (ACTIONS.offerOpen) asks the price in a private form.
import {
  ApplicationCommandOptionType,
  InteractionContextType,
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
} from "discord.js";
import { z } from "zod";
import { ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, modal, type BaseContext } from "../src/discord/command.ts";
import { offerEmbed, offersPageMessage } from "../src/discord/render/trading.ts";
import type { Reply } from "../src/discord/reply.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { UserFacingError } from "../src/errors.ts";
import { parseId, parseIntOption, parsePrice } from "../src/input/parse.ts";
import type { Cents } from "../src/money.ts";
import { counterOffer, listOffers, makeOffer } from "../src/trading/offers.ts";

const LOCAL = { form: "offer.set", page: "offer.page" } as const;
const FORM_TTL_MS = 15 * 60_000;
const PAGE_TTL_MS = 30 * 60_000;
const MAX_PAGE = 1000;

const OfferForm = z.object({ price: z.string() });

async function makeOfferReply(ctx: BaseContext, listingId: string, priceCents: Cents): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const offer = await makeOffer(trader.deps, { listingId, priceCents });
  return { ephemeral: true, embeds: [offerEmbed(offer, "Offer sent")] };
}

/** `page` is zero-based; the buttons carry it as their subject. */
async function offersPage(ctx: BaseContext, page: number): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const result = await listOffers(trader.deps, { page });
  const id = (p: number) => ctx.customId(LOCAL.page, String(p), { ttlMs: PAGE_TTL_MS });
  return {
    ephemeral: true,
    ...offersPageMessage(result, {
      previousId: id(Math.max(0, page - 1)),
      nextId: id(page + 1),
      hasPrevious: page > 0,
      hasNext: result.hasMore,
    }),
  };
}

function pageFromSubject(subject: string): number {
  if (!/^\d{1,4}$/.test(subject))
    throw new UserFacingError("invalid_input", "This button is damaged; run the command again.");
  return Number(subject);
}

const listingOption = {
  name: "listing",
  description: "Listing id (a number like 123456789)",
  type: ApplicationCommandOptionType.String,
  required: true,
  max_length: 24,
} as const;

export const command = defineCommand({
  definition: {
    name: "offer",
    description: "Offer a lower price on a buy-now listing, counter an offer, see your offers",
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    options: [
      {
        name: "make",
        description: "Offer a price below the asking price",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          listingOption,
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
        const offer = await counterOffer(trader.deps, { offerId, priceCents });
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
    [ACTIONS.offerOpen]: {
      // A form must be the first answer: nothing slow happens before it.
      defer: false,
      async run(ctx) {
        const listingId = parseId("listing", ctx.id.subject);
        await ctx.showModal(
          new ModalBuilder()
            .setCustomId(ctx.customId(LOCAL.form, listingId, { ttlMs: FORM_TTL_MS }))
            .setTitle(`Offer on listing ${listingId}`)
            .addLabelComponents(
              new LabelBuilder()
                .setLabel("Your offer (USD)")
                .setDescription("Below the asking price; the seller may accept or counter.")
                .setTextInputComponent(
                  new TextInputBuilder()
                    .setCustomId("price")
                    .setStyle(TextInputStyle.Short)
                    .setRequired(true)
                    .setMaxLength(24)
                    .setPlaceholder("e.g. 12.50"),
                ),
            ),
        );
      },
    },
    [LOCAL.page]: {
      defer: "update",
      async run(ctx) {
        const { embeds, components } = await offersPage(ctx, pageFromSubject(ctx.id.subject));
        await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
      },
    },
  },
  modals: {
    [LOCAL.form]: modal({
      defer: "ephemeral",
      fields: OfferForm,
      run(ctx, { price }) {
        return makeOfferReply(ctx, parseId("listing", ctx.id.subject), parsePrice("price", price));
      },
    }),
  },
});

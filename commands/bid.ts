// /bid: place or raise an automatic bid (a ceiling) on an auction. The Bid and Raise bid buttons of
// listing views, alerts and bid replies (BID_ACTIONS.open) ask the ceiling in a private form.
import { ApplicationCommandOptionType, ButtonStyle } from "discord.js";
import { z } from "zod";
import { BID_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, modal, type BaseContext } from "../src/discord/command.ts";
import { openListingPriceForm } from "../src/discord/forms.ts";
import { button, row } from "../src/discord/render/button.ts";
import { bidEmbed } from "../src/discord/render/trading.ts";
import { auctionChoice } from "../src/discord/render/choices.ts";
import type { Reply } from "../src/discord/reply.ts";
import { userChoices } from "../src/discord/suggest.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { parseId, parsePrice } from "../src/input/parse.ts";
import type { Cents } from "../src/money.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { fitsTyped } from "../src/trading/suggestions.ts";

/** The Raise bid button under a reply stays usable while the auction is likely still on. */
const RAISE_TTL_MS = 24 * 60 * 60_000;

const BidForm = z.object({ max_price: z.string() });

async function bidReply(ctx: BaseContext, listingId: string, maxPriceCents: Cents): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const result = await trader.placeBid({ listingId, maxPriceCents });
  return {
    ephemeral: true,
    embeds: [bidEmbed(result)],
    components: row([
      button(
        "Raise bid",
        ButtonStyle.Primary,
        ctx.customId(BID_ACTIONS.open, listingId, { ttlMs: RAISE_TTL_MS }),
      ),
    ]),
  };
}

export const command = defineCommand({
  definition: {
    name: "bid",
    description: "Place or raise an automatic bid on an auction",
    ...EVERYWHERE,
    options: [
      {
        name: "listing",
        description: "Auction listing id; suggestions show your bids and the newest auctions",
        type: ApplicationCommandOptionType.String,
        required: true,
        autocomplete: true,
        max_length: 24,
      },
      {
        name: "max_price",
        description: "Your ceiling in USD, e.g. 12.50; the bid rises only as far as others push it",
        type: ApplicationCommandOptionType.String,
        required: true,
        max_length: 24,
      },
    ],
  },
  autocomplete: (ctx) => {
    if (ctx.focused.name !== "listing") return Promise.resolve([]);
    const typed = ctx.focused.value;
    const nowMs = ctx.deps.now().getTime();
    return userChoices(
      ctx,
      "auctions",
      ({ market, userId }) => ctx.deps.trading.auctionChoices({ market, userId }),
      (auctions) =>
        auctions.filter((a) => fitsTyped(typed, a.id, a.itemName)).map((a) => auctionChoice(a, nowMs)),
    );
  },
  execute: {
    defer: "ephemeral",
    run(ctx) {
      const listingId = parseId("listing", ctx.options.string("listing"));
      const maxPrice = parsePrice("max_price", ctx.options.string("max_price"));
      return bidReply(ctx, listingId, maxPrice);
    },
  },
  components: {
    [BID_ACTIONS.open]: openListingPriceForm({
      action: BID_ACTIONS.form,
      field: "max_price",
      title: (listingId) => `Bid on listing ${listingId}`,
      label: "Your ceiling (USD)",
      description: "The most you would pay; the bid rises only as far as others push it.",
    }),
  },
  modals: {
    [BID_ACTIONS.form]: modal({
      defer: "ephemeral",
      fields: BidForm,
      run(ctx, { max_price }) {
        const listingId = parseId("listing", ctx.id.subject);
        return bidReply(ctx, listingId, parsePrice("max_price", max_price));
      },
    }),
  },
});

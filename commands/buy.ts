// /buy: a purchase in two steps. First the quote with **Confirm purchase** and **Cancel** (owner
// only, 2 minutes); then one money-safe purchase at exactly the confirmed price. The Buy button of
// listing views and alerts (BUY_ACTIONS.start) starts the same flow.
import { BUY_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext } from "../src/discord/command.ts";
import { LISTING_OPTION } from "../src/discord/options.ts";
import { notice } from "../src/discord/render/embeds.ts";
import { buyDoneEmbed, buyQuoteMessage } from "../src/discord/render/trading.ts";
import type { Reply } from "../src/discord/reply.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { UserFacingError } from "../src/errors.ts";
import { parseId } from "../src/input/parse.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

/** Long enough to read the quote, short enough that a confirmed price is a recent one. */
export const CONFIRM_TTL_MS = 2 * 60_000;

/** The confirm button carries what the user saw: "<listing id>.<price in cents>". */
const CONFIRM_SUBJECT = /^(\d{1,20})\.(\d{1,12})$/;

/** Reads the listing, checks the caps, and asks for confirmation. Nothing is bought here. */
async function quoteReply(ctx: BaseContext, listingId: string): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const quote = await trader.prepareBuy({ listingId });
  const ttl = { ttlMs: CONFIRM_TTL_MS };
  return {
    ephemeral: true,
    ...buyQuoteMessage(quote, {
      confirmId: ctx.customId(BUY_ACTIONS.confirm, `${quote.listingId}.${quote.priceCents}`, ttl),
      cancelId: ctx.customId(BUY_ACTIONS.cancel, quote.listingId, ttl),
      expiresAt: new Date(ctx.deps.now().getTime() + CONFIRM_TTL_MS),
    }),
  };
}

export const command = defineCommand({
  definition: {
    name: "buy",
    description: "Buy a buy-now listing from your marketplace balance (asks to confirm first)",
    ...EVERYWHERE,
    options: [LISTING_OPTION],
  },
  execute: {
    defer: "ephemeral",
    run(ctx) {
      return quoteReply(ctx, parseId("listing", ctx.options.string("listing")));
    },
  },
  components: {
    [BUY_ACTIONS.start]: {
      defer: "ephemeral",
      run(ctx) {
        return quoteReply(ctx, parseId("listing", ctx.id.subject));
      },
    },
    [BUY_ACTIONS.confirm]: {
      // The quote message becomes the receipt; refusals arrive as a private follow-up.
      defer: "update",
      async run(ctx) {
        const m = CONFIRM_SUBJECT.exec(ctx.id.subject);
        if (!m?.[1] || !m[2]) {
          throw new UserFacingError("invalid_input", "This button is damaged; run /buy again.");
        }
        const listingId = m[1];
        const trader = await linkedTrader(ctx);
        const result = await trader.confirmBuy({
          listingId,
          expectedPriceCents: Number(m[2]),
          // One key per confirmation message: double clicks and retried interactions buy once.
          idempotencyKey: `buy:${ctx.messageId}:${listingId}`,
        });
        await ctx.update({ embeds: [buyDoneEmbed(result)], components: [] });
      },
    },
    [BUY_ACTIONS.cancel]: {
      defer: false,
      async run(ctx) {
        await ctx.update({ embeds: [notice("info", "Cancelled; nothing was bought.")], components: [] });
      },
    },
  },
});

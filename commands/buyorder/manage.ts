// /buyorder list's controls: the page's orders in a menu; the order chosen there gets Edit order (a
// form with price and quantity; what is left empty stays, as with /buyorder edit) and Cancel order
// (at once, as /buyorder cancel), so no order id has to be copied by hand.
import { LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from "discord.js";
import { z } from "zod";
import { BUY_ORDER_ACTIONS } from "../../src/discord/actions.ts";
import {
  modal,
  type BaseContext,
  type ComponentHandler,
  type ModalHandler,
} from "../../src/discord/command.ts";
import { numberedPaging, pageFromSubject } from "../../src/discord/pager.ts";
import { manageRows } from "../../src/discord/render/buyOrderManage.ts";
import { buyOrdersPageMessage } from "../../src/discord/render/buyOrders.ts";
import { notice } from "../../src/discord/render/embeds.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { linkedTrader } from "../../src/discord/trader.ts";
import { parseId, parseIntOption, parsePrice } from "../../src/input/parse.ts";
import { listBuyOrders } from "../../src/trading/buyOrders.ts";
import { editOrConfirm } from "./confirm.ts";

const PAGE_TTL_MS = 30 * 60_000;
const FORM_TTL_MS = 15 * 60_000;
const MAX_QUANTITY = 10_000;

const EditForm = z.object({ max_price: z.string(), quantity: z.string() });

/** One page of the user's orders, with the menu and, for `chosen`, its buttons. */
export async function ordersPage(ctx: BaseContext, page: number, chosen?: string): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const result = await listBuyOrders(trader.deps, { page });
  const ttl = { ttlMs: PAGE_TTL_MS };
  const message = buyOrdersPageMessage(
    result,
    numberedPaging(page, result.hasMore, (p) => ctx.customId(BUY_ORDER_ACTIONS.page, String(p), ttl)),
  );
  const controls = manageRows(
    result.orders,
    {
      pickId: ctx.customId(BUY_ORDER_ACTIONS.pick, String(page), ttl),
      editId: (id) => ctx.customId(BUY_ORDER_ACTIONS.editForm, id, ttl),
      cancelId: (id) => ctx.customId(BUY_ORDER_ACTIONS.cancel, `${page}.${id}`, ttl),
    },
    chosen,
  );
  return { ephemeral: true, embeds: message.embeds, components: [...controls, ...message.components] };
}

const field = (id: string, label: string, description: string, placeholder: string) =>
  new LabelBuilder()
    .setLabel(label)
    .setDescription(description)
    .setTextInputComponent(
      new TextInputBuilder()
        .setCustomId(id)
        .setStyle(TextInputStyle.Short)
        .setRequired(false)
        .setMaxLength(24)
        .setPlaceholder(placeholder),
    );

export const manageComponents: Readonly<Record<string, ComponentHandler>> = {
  [BUY_ORDER_ACTIONS.page]: {
    defer: "update",
    async run(ctx) {
      const { embeds, components } = await ordersPage(ctx, pageFromSubject(ctx.id.subject));
      await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
    },
  },
  [BUY_ORDER_ACTIONS.pick]: {
    defer: "update",
    async run(ctx) {
      const chosen = parseId("order", ctx.values[0] ?? "", "buy order");
      const { embeds, components } = await ordersPage(ctx, pageFromSubject(ctx.id.subject), chosen);
      await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
    },
  },
  [BUY_ORDER_ACTIONS.editForm]: {
    // A form must be the first answer: nothing slow happens before it.
    defer: false,
    async run(ctx) {
      const orderId = parseId("order", ctx.id.subject, "buy order");
      await ctx.showModal(
        new ModalBuilder()
          .setCustomId(ctx.customId(BUY_ORDER_ACTIONS.save, orderId, { ttlMs: FORM_TTL_MS }))
          .setTitle(`Edit buy order ${orderId}`)
          .addLabelComponents(
            field("max_price", "Most you pay per item (USD)", "Empty keeps the current price.", "e.g. 12.50"),
            field("quantity", "Quantity", "Empty keeps the current quantity.", "e.g. 2"),
          ),
      );
    },
  },
  [BUY_ORDER_ACTIONS.cancel]: {
    defer: "update",
    async run(ctx) {
      const [pageText = "", rawId = ""] = ctx.id.subject.split(".");
      const page = pageFromSubject(pageText);
      const orderId = parseId("order", rawId, "buy order");
      const trader = await linkedTrader(ctx);
      await trader.cancelBuyOrder({ orderId });
      const { embeds, components } = await ordersPage(ctx, page);
      await ctx.update({
        embeds: [
          notice("success", `Buy order \`${orderId}\` cancelled. Items already bought stay yours.`),
          ...(embeds ?? []),
        ],
        components: components ?? [],
      });
    },
  },
};

export const manageModals: Readonly<Record<string, ModalHandler>> = {
  [BUY_ORDER_ACTIONS.save]: modal({
    defer: "ephemeral",
    fields: EditForm,
    run(ctx, form) {
      const orderId = parseId("order", ctx.id.subject, "buy order");
      const price = form.max_price.trim();
      const quantity = form.quantity.trim();
      // The same path as /buyorder edit: applied at once unless it raises what the order can spend.
      return editOrConfirm(ctx, {
        orderId,
        maxPriceCents: price === "" ? undefined : parsePrice("max_price", price),
        quantity: quantity === "" ? undefined : parseIntOption("quantity", quantity, 1, MAX_QUANTITY),
        constraints: {},
        clear: [],
      });
    },
  }),
};

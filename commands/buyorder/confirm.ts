// /buyorder confirmations: creating an order, or an edit that raises what it can spend, first
// shows its total exposure against the caps; the order is placed or changed only on the button.
// The draft lives in the database, so the button works after a restart and on any replica, once.
import { BUY_ORDER_ACTIONS } from "../../src/discord/actions.ts";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { BaseContext, ComponentContext } from "../../src/discord/command.ts";
import {
  unseenItemNotice,
  buyOrderConfirmMessage,
  buyOrderEmbed,
  buyOrderRaiseMessage,
} from "../../src/discord/render/buyOrders.ts";
import { notice } from "../../src/discord/render/embeds.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { linkedTrader } from "../../src/discord/trader.ts";
import { UserFacingError } from "../../src/errors.ts";
import type { EditBuyOrderInput } from "../../src/trading/buyOrderEdit.ts";
import type { NewBuyOrderInput } from "../../src/trading/buyOrders.ts";
import type { BuyOrderConstraints } from "../../src/trading/constraints.ts";

/** Long enough to read the exposure and the caps; short enough that they are still true. */
const CONFIRM_TTL_MS = 5 * 60_000;

const Constraints = z.record(z.string(), z.unknown()).transform((c) => c as BuyOrderConstraints);
const CreateDraft = z.object({
  itemName: z.string(),
  maxPriceCents: z.number().int(),
  quantity: z.number().int(),
  constraints: Constraints,
});
const EditDraft = z.object({
  orderId: z.string(),
  maxPriceCents: z.number().int().optional(),
  quantity: z.number().int().optional(),
  constraints: Constraints,
  clear: z.array(z.string()),
});

function buttons(ctx: BaseContext, action: string, draftId: string, expiresAt: Date) {
  const ttl = { ttlMs: CONFIRM_TTL_MS };
  return {
    confirmId: ctx.customId(action, draftId, ttl),
    cancelId: ctx.customId(BUY_ORDER_ACTIONS.dismiss, draftId, ttl),
    expiresAt,
  };
}

/**
 * Checks the caps and asks to confirm; nothing is reserved or sent. `unseen`: no listing or sale
 * has the name yet, which the confirmation says first (with names like it).
 */
export async function createConfirmation(
  ctx: BaseContext,
  input: NewBuyOrderInput,
  unseen?: { similar: readonly string[] },
): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const quote = await trader.quoteBuyOrder(input);
  const draft = await ctx.deps.drafts.create(
    { userId: trader.userId },
    {
      kind: BUY_ORDER_ACTIONS.create,
      payload: {
        itemName: quote.itemName,
        maxPriceCents: quote.maxPriceCents,
        quantity: quote.quantity,
        constraints: quote.constraints,
      },
      ttlMs: CONFIRM_TTL_MS,
    },
  );
  const message = buyOrderConfirmMessage(
    quote,
    buttons(ctx, BUY_ORDER_ACTIONS.create, draft.id, draft.expiresAt),
  );
  return {
    ephemeral: true,
    ...message,
    embeds: [
      ...(unseen === undefined ? [] : [unseenItemNotice(quote.itemName, unseen.similar)]),
      ...message.embeds,
    ],
  };
}

/**
 * An edit that lowers or keeps what the order can spend is applied at once; one that raises it
 * is shown first, with the new exposure against the caps.
 */
export async function editOrConfirm(ctx: BaseContext, input: EditBuyOrderInput): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const preview = await trader.previewBuyOrderEdit(input);
  if (preview.exposureAfterCents <= preview.exposureBeforeCents) {
    const order = await trader.editBuyOrder({ ...input, idempotencyKey: `bo.edit:${randomUUID()}` });
    return { ephemeral: true, embeds: [buyOrderEmbed(order, "Buy order updated")] };
  }
  const draft = await ctx.deps.drafts.create(
    { userId: trader.userId },
    {
      kind: BUY_ORDER_ACTIONS.edit,
      payload: {
        orderId: input.orderId,
        ...(input.maxPriceCents === undefined ? {} : { maxPriceCents: input.maxPriceCents }),
        ...(input.quantity === undefined ? {} : { quantity: input.quantity }),
        constraints: input.constraints ?? {},
        clear: [...(input.clear ?? [])],
      },
      ttlMs: CONFIRM_TTL_MS,
    },
  );
  return {
    ephemeral: true,
    ...buyOrderRaiseMessage(preview, buttons(ctx, BUY_ORDER_ACTIONS.edit, draft.id, draft.expiresAt)),
  };
}

function gone(reason: "missing" | "expired"): UserFacingError {
  return new UserFacingError(
    "expired",
    reason === "expired"
      ? "This confirmation expired; nothing was placed or changed. Run the command again."
      : "This confirmation was already used or cancelled; nothing more was done.",
  );
}

/** Place order: the draft is taken once, the exposure reserved under the caps, the order sent. */
export async function confirmCreate(ctx: ComponentContext): Promise<void> {
  const trader = await linkedTrader(ctx);
  const taken = await ctx.deps.drafts.take(
    { userId: trader.userId },
    { id: ctx.id.subject, kind: BUY_ORDER_ACTIONS.create, schema: CreateDraft },
  );
  if (!taken.ok) throw gone(taken.reason);
  const order = await trader.createBuyOrder({
    ...taken.payload,
    // One key per draft: a repeat of this confirmation can never place a second order.
    idempotencyKey: `bo.create:${ctx.id.subject}`,
  });
  await ctx.update({ embeds: [buyOrderEmbed(order, "Buy order created")], components: [] });
}

export async function confirmEdit(ctx: ComponentContext): Promise<void> {
  const trader = await linkedTrader(ctx);
  const taken = await ctx.deps.drafts.take(
    { userId: trader.userId },
    { id: ctx.id.subject, kind: BUY_ORDER_ACTIONS.edit, schema: EditDraft },
  );
  if (!taken.ok) throw gone(taken.reason);
  const d = taken.payload;
  const order = await trader.editBuyOrder({
    orderId: d.orderId,
    maxPriceCents: d.maxPriceCents,
    quantity: d.quantity,
    constraints: d.constraints,
    clear: d.clear,
    idempotencyKey: `bo.edit:${ctx.id.subject}`,
  });
  await ctx.update({ embeds: [buyOrderEmbed(order, "Buy order updated")], components: [] });
}

export async function dismiss(ctx: ComponentContext): Promise<void> {
  // The token is unguessable and the button is its owner's alone.
  await ctx.deps.drafts.discard(ctx.id.subject);
  await ctx.update({
    embeds: [notice("info", "Cancelled; no buy order was placed or changed.")],
    components: [],
  });
}

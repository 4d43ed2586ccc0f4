// Editing a buy order without losing its constraints, held against the caps: the new exposure
// (price x items still wanted) replaces what the order held, and one that rises is shown first.
// Every edit is made under the order's write lock, from the order as read under it.
import { findOpenCommitment, releaseStandingOn, type Authority } from "../db/repos/purchases.ts";
import type { HeldWriteLock } from "../db/writeLocks.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import type { BuyOrder } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import {
  capsOf,
  checkWithinCaps,
  commitmentFailed,
  commitmentStands,
  reserveOrRefuse,
  type CapsView,
} from "../spending/guard.ts";
import {
  findMyOrder,
  MAX_QUANTITY,
  MIN_PRICE,
  toView,
  withOrderLock,
  type BuyOrderView,
} from "./buyOrders.ts";
import {
  fromHybridProperties,
  isConstraintName,
  mergeConstraints,
  toFlatConstraints,
  validateConstraints,
  type BuyOrderConstraints,
  type ConstraintName,
} from "./constraints.ts";
import type { MarketDeps, TradingDeps } from "./deps.ts";
import { requireCents, requireId, requireInt } from "../input/validate.ts";

export interface EditBuyOrderInput {
  orderId: string;
  maxPriceCents?: Cents | undefined;
  quantity?: number | undefined;
  /** Constraints to set or change; those not named keep their current values. */
  constraints?: BuyOrderConstraints | undefined;
  /** Constraints to remove. Only these are removed. */
  clear?: readonly string[] | undefined;
}

type EditRequest = EditBuyOrderInput & { userId: number; idempotencyKey: string; authority?: Authority };

/**
 * Changes an order. The service's update is absolute (an omitted constraint is cleared), so a
 * naive "send what changed" would silently drop the user's float range when they only change
 * the price. Instead: read the order, keep every constraint not touched, apply the changes,
 * clear exactly those named in `clear`, and send the complete state. The read and the update are
 * made holding the order's write lock, so the complete state sent is the latest: a guard's raise
 * in flight is answered first, and nothing sent from an older read can undo this edit after it.
 *
 * An advanced order takes a new price and quantity only: its filter is the website's expression,
 * which we can neither express as constraints nor send back, so constraint changes are refused
 * before anything is sent.
 */
export async function editBuyOrder(deps: TradingDeps, input: EditRequest): Promise<BuyOrderView> {
  const edit = validEdit(input);
  return withOrderLock(deps, edit.orderId, async () =>
    sendEdit(deps, input, edit, await findMyOrder(deps, edit.orderId)),
  );
}

/**
 * The same edit for a caller that holds the order's write lock and read `current` under it (a
 * guard's raise, which decides its price from that read): no other write of the order can come
 * between the two.
 */
export async function editLockedBuyOrder(
  deps: TradingDeps,
  lock: HeldWriteLock,
  current: BuyOrder,
  input: EditRequest,
): Promise<BuyOrderView> {
  const edit = validEdit(input);
  if (lock.subject.kind !== "buy_order" || lock.subject.id !== edit.orderId || current.id !== edit.orderId)
    throw new Error(`the write lock held is not order ${edit.orderId}'s`);
  return sendEdit(deps, input, edit, current);
}

async function sendEdit(
  deps: TradingDeps,
  input: EditRequest,
  edit: ValidEdit,
  current: BuyOrder,
): Promise<BuyOrderView> {
  const { orderId, maxPrice, quantity, changes, clear } = edit;
  assertEditable(current, changes, clear);
  // Re-validate the merged whole: a new max_float below the kept min_float is a user mistake.
  const merged = validateConstraints(
    mergeConstraints(fromHybridProperties(current.hybrid_properties), changes, clear),
  );
  const nextPrice = maxPrice ?? current.price;
  const nextQty = quantity ?? current.qty;
  // The order's new exposure replaces what it held (an order placed before caps, or on the
  // website, held nothing: its whole new exposure is checked).
  const previous = await findOpenCommitment(deps.prisma, {
    userId: input.userId,
    kind: "buy_order",
    subjectId: orderId,
    orUnknown: true,
  });
  const commitment = await reserveOrRefuse(deps.prisma, {
    userId: input.userId,
    kind: "buy_order",
    idempotencyKey: input.idempotencyKey,
    subjectId: orderId,
    unitPriceCents: nextPrice,
    totalCents: exposureOf(nextPrice, nextQty, current.bought_item_count),
    replaces: previous,
    ...(input.authority === undefined ? {} : { authority: input.authority }),
  });
  let updated: BuyOrder;
  try {
    updated = await deps.market.updateBuyOrder(orderId, {
      max_price: nextPrice,
      quantity: nextQty,
      constraints: toFlatConstraints(merged),
    });
  } catch (error) {
    await commitmentFailed(deps.prisma, commitment, error);
    throw error;
  }
  await commitmentStands(deps.prisma, commitment, {
    totalCents: exposureOf(
      updated.price,
      updated.qty,
      updated.bought_item_count ?? current.bought_item_count,
    ),
  });
  // The answer fixed everything the order holds: this commitment is now all of it. The one it
  // replaced goes, and so does any an earlier update whose answer was lost left counted.
  await releaseStandingOn(deps.prisma, {
    userId: input.userId,
    kind: "buy_order",
    subjectId: orderId,
    exceptId: commitment.id,
    reason: "replaced by an edit",
  });
  return editedView(deps, { orderId, current, updated, clear, changes });
}

/** What an open order still holds: its price for every item not yet bought. */
export function exposureOf(priceCents: Cents, quantity: number, bought: number | undefined): Cents {
  return priceCents * Math.max(0, quantity - (bought ?? 0));
}

/** How an edit would change the order's exposure, before anything is sent or reserved. */
export interface BuyOrderEditPreview {
  orderId: string;
  itemName: string | undefined;
  expression: string | undefined;
  maxPriceCents: Cents;
  quantity: number;
  exposureBeforeCents: Cents;
  exposureAfterCents: Cents;
  caps: CapsView;
}

export async function previewBuyOrderEdit(
  deps: TradingDeps,
  input: EditBuyOrderInput & { userId: number },
): Promise<BuyOrderEditPreview> {
  const { orderId, maxPrice, quantity, changes, clear } = validEdit(input);
  const current = await findMyOrder(deps, orderId);
  assertEditable(current, changes, clear);
  validateConstraints(mergeConstraints(fromHybridProperties(current.hybrid_properties), changes, clear));
  const nextPrice = maxPrice ?? current.price;
  const nextQty = quantity ?? current.qty;
  const after = exposureOf(nextPrice, nextQty, current.bought_item_count);
  const caps = await capsOf(deps.prisma, input.userId);
  const held = await findOpenCommitment(deps.prisma, {
    userId: input.userId,
    kind: "buy_order",
    subjectId: orderId,
    orUnknown: true,
  });
  checkWithinCaps(caps, {
    kind: "buy_order",
    unitPriceCents: nextPrice,
    totalCents: after,
    releasedCents: held?.totalCents ?? 0,
  });
  return {
    orderId,
    itemName: current.market_hash_name,
    expression: current.expression,
    maxPriceCents: nextPrice,
    quantity: nextQty,
    exposureBeforeCents: exposureOf(current.price, current.qty, current.bought_item_count),
    exposureAfterCents: after,
    caps,
  };
}

interface ValidEdit {
  orderId: string;
  maxPrice: Cents | undefined;
  quantity: number | undefined;
  changes: BuyOrderConstraints;
  clear: ConstraintName[];
}

function validEdit(input: EditBuyOrderInput): ValidEdit {
  const orderId = requireId("order", input.orderId);
  const clear: ConstraintName[] = [];
  for (const name of input.clear ?? []) {
    if (!isConstraintName(name)) throw invalidOption("clear", `unknown constraint ${name}`);
    clear.push(name);
  }
  const changes = validateConstraints(input.constraints ?? {});
  const maxPrice =
    input.maxPriceCents === undefined ? undefined : requireCents("max_price", input.maxPriceCents, MIN_PRICE);
  const quantity =
    input.quantity === undefined ? undefined : requireInt("quantity", input.quantity, 1, MAX_QUANTITY);
  if (
    maxPrice === undefined &&
    quantity === undefined &&
    Object.keys(changes).length === 0 &&
    clear.length === 0
  ) {
    throw invalidOption("changes", "say what to change: a price, a quantity or a constraint");
  }
  return { orderId, maxPrice, quantity, changes, clear };
}

function assertEditable(
  current: BuyOrder,
  changes: BuyOrderConstraints,
  clear: readonly ConstraintName[],
): void {
  if (current.expression !== undefined && (Object.keys(changes).length > 0 || clear.length > 0)) {
    throw new UserFacingError(
      "invalid_input",
      "This order was made on the website with a filter expression, which can only be edited on the " +
        "website. Here you can change its `max_price` and `quantity`.",
      { orderId: current.id, advanced: true },
    );
  }
}

function editedView(
  deps: MarketDeps,
  e: {
    orderId: string;
    current: BuyOrder;
    updated: BuyOrder;
    clear: readonly ConstraintName[];
    changes: BuyOrderConstraints;
  },
): BuyOrderView {
  const { orderId, current, updated } = e;
  deps.logger.info(
    {
      orderId,
      advanced: current.expression !== undefined,
      maxPrice: updated.price,
      quantity: updated.qty,
      cleared: e.clear,
      changed: Object.keys(e.changes),
    },
    "buy order edited",
  );
  if (updated.market_hash_name === undefined && updated.expression === undefined) {
    // The answer names no target; show the one the user edited rather than a nameless order.
    if (current.expression !== undefined)
      deps.logger.warn({ orderId }, "advanced buy order answered without its expression after an edit");
    return toView({ ...updated, market_hash_name: current.market_hash_name, expression: current.expression });
  }
  return toView(updated);
}

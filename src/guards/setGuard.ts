// Setting and turning off guards (the /buyorder guard and /sell guard verbs): checks the order or
// listing is the user's and can be guarded, and that the limits make sense, before saving; a
// guard is set under its subject's write lock, so it never changes under a write in flight.
import type { Db } from "../db/types.ts";
import { saveGuard, turnGuardOff, type GuardKind, type GuardRecord } from "../db/repos/guards.ts";
import { withWriteLock } from "../db/writeLocks.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { formatCents, type Cents } from "../money.ts";
import { capsOf } from "../spending/guard.ts";
import { requireLinkedUser } from "../accounts/requireLinkedUser.ts";
import { findMyOrder, withOrderLock } from "../trading/buyOrders.ts";
import type { TradingDeps } from "../trading/deps.ts";
import { MIN_LISTING_PRICE } from "../trading/selling.ts";
import { requireCents, requireId, requireInt } from "../input/validate.ts";

export const DEFAULT_MAX_CHANGES_PER_DAY = 10;
export const MAX_CHANGES_PER_DAY = 100;

interface Limits {
  stepCents: Cents;
  maxChangesPerDay?: number | undefined;
}

function validLimits(input: Limits): { stepCents: Cents; maxChangesPerDay: number } {
  return {
    stepCents: requireCents("step", input.stepCents, 1),
    maxChangesPerDay:
      input.maxChangesPerDay === undefined
        ? DEFAULT_MAX_CHANGES_PER_DAY
        : requireInt("max_changes", input.maxChangesPerDay, 1, MAX_CHANGES_PER_DAY),
  };
}

/** Guards the user's buy order: raised to stay the highest, up to `ceilingCents`. */
export async function setBuyOrderGuard(
  deps: TradingDeps,
  input: Limits & { userId: number; orderId: string; ceilingCents: Cents },
): Promise<GuardRecord> {
  const orderId = requireId("order", input.orderId);
  const ceiling = requireCents("ceiling", input.ceilingCents, 3);
  const limits = validLimits(input);
  // Under the order's write lock: a raise in flight is answered first, so the order is read as it
  // then is, and no raise is sent on the old ceiling once the new one is stored.
  return withOrderLock(deps, orderId, async () => {
    const order = await findMyOrder(deps, orderId);
    if (order.market_hash_name === undefined) {
      throw new UserFacingError(
        "invalid_input",
        "This order was made on the website with a filter expression; it cannot be guarded here.",
        { orderId },
      );
    }
    if (ceiling < order.price) {
      throw invalidOption("ceiling", `is below the order's price of ${formatCents(order.price)}`);
    }
    // The per-purchase cap never moves with time: a ceiling above it could never be reached.
    const caps = await capsOf(deps.prisma, input.userId);
    if (caps.perPurchaseCapCents !== null && ceiling > caps.perPurchaseCapCents) {
      throw new UserFacingError(
        "spend_cap",
        `A ceiling of ${formatCents(ceiling)} is above your per-purchase cap of ${formatCents(caps.perPurchaseCapCents)}; the guard was not set. Lower the ceiling or change the cap with /account settings.`,
        { orderId, ceiling, cap_kind: "per_purchase" },
      );
    }
    return saveGuard(deps.prisma, {
      linkGeneration: await linkGenerationOf(deps.prisma, input.userId),
      userId: input.userId,
      kind: "buy_order",
      subjectId: orderId,
      itemName: order.market_hash_name,
      limitCents: ceiling,
      priceCents: order.price,
      ...limits,
    });
  });
}

/** Guards the user's buy-now listing: lowered to stay the cheapest comparable one, down to `floorCents`. */
export async function setListingGuard(
  deps: TradingDeps,
  input: Limits & { userId: number; listingId: string; floorCents: Cents },
): Promise<GuardRecord> {
  const listingId = requireId("listing", input.listingId);
  const floor = requireCents("floor", input.floorCents, MIN_LISTING_PRICE);
  const limits = validLimits(input);
  // Under the listing's write lock: a price change of its guard in flight is answered first, so
  // the new floor is checked against the price as it then is, and none is sent on the old floor
  // once the new one is stored.
  const done = await withWriteLock(deps.prisma, { kind: "listing", id: listingId }, "wait", async () => {
    const listing = await deps.market.getListing(listingId);
    if (listing.is_seller !== true) {
      throw new UserFacingError("not_owner", "You can only guard your own listings.", { listingId });
    }
    if (listing.state !== undefined && listing.state !== "listed") {
      throw new UserFacingError(
        "conflict",
        `Only an active listing can be guarded; this one is ${listing.state}.`,
        { listingId },
      );
    }
    if (listing.type !== "buy_now") {
      throw new UserFacingError(
        "conflict",
        "Only a buy-now listing can be guarded (an auction's price is its bids).",
        { listingId },
      );
    }
    if (floor > listing.price) {
      throw invalidOption("floor", `is above the listing's price of ${formatCents(listing.price)}`);
    }
    return saveGuard(deps.prisma, {
      linkGeneration: await linkGenerationOf(deps.prisma, input.userId),
      userId: input.userId,
      kind: "listing",
      subjectId: listingId,
      itemName: listing.item.market_hash_name,
      limitCents: floor,
      priceCents: listing.price,
      ...limits,
    });
  });
  if (!done.ok) {
    throw new UserFacingError(
      "conflict",
      "This listing's price is still being changed by its guard; nothing was set. Try again in a moment.",
      { listingId },
    );
  }
  return done.value;
}

/** The account a guard is set on: it stops if another is linked. */
async function linkGenerationOf(db: Db, userId: number): Promise<number> {
  return (await requireLinkedUser(db, userId)).linkGeneration;
}

const NOUN: Record<GuardKind, string> = { buy_order: "order", listing: "listing" };

/** Turns the user's own guard off; someone else's guard, or none, is "no guard of yours". */
export async function turnOffGuard(
  prisma: Db,
  userId: number,
  which: { id: number } | { kind: GuardKind; subjectId: string },
): Promise<GuardRecord> {
  const off = await turnGuardOff(prisma, userId, which);
  if (off === undefined) {
    const what = "kind" in which ? `${NOUN[which.kind]} ${which.subjectId}` : "that";
    throw new UserFacingError("not_found", `You have no guard on ${what}.`, { which });
  }
  return off;
}

// The buy-order guard's step: keep the user's order the highest for its item and float range,
// one step above the best rival, never above the ceiling, each raise held against the caps by
// the spending guard (editBuyOrder reserves the new exposure, replacing the old).
import type { GuardRecord } from "../db/repos/guards.ts";
import { recordGuardEvent } from "../db/repos/guards.ts";
import { UserFacingError } from "../errors.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { BuyOrder, BuyOrderAggregate } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import { findMyOrder } from "../trading/buyOrders.ts";
import { editBuyOrder } from "../trading/buyOrderEdit.ts";
import { stopGuard, withinDailyLimit, type GuardDeps } from "./deps.ts";

/**
 * The best price among other buyers' orders. Similar orders come grouped by price and
 * constraints, the user's own order among them: its items are taken out of the group at its
 * price, and whatever is left there is a rival at the same price (a tie is not "the highest").
 */
export function bestRival(aggregates: readonly BuyOrderAggregate[], own: BuyOrder): Cents | undefined {
  const ownLeft = Math.max(1, own.qty - (own.bought_item_count ?? 0));
  let taken = false;
  let best: Cents | undefined;
  for (const a of [...aggregates].sort((x, y) => y.price - x.price)) {
    let qty = a.qty;
    if (!taken && a.price === own.price) {
      qty -= ownLeft;
      taken = true;
    }
    if (qty > 0 && (best === undefined || a.price > best)) best = a.price;
  }
  return best;
}

export async function guardBuyOrder(deps: GuardDeps, api: MarketApi, guard: GuardRecord): Promise<void> {
  let order: BuyOrder;
  try {
    order = await findMyOrder({ market: api, logger: deps.logger }, guard.subjectId);
  } catch (error) {
    if (!(error instanceof UserFacingError) || error.code !== "not_found") throw error;
    await stopGuard(deps, guard, "the order is no longer open (filled, cancelled or closed)");
    return;
  }
  if (order.market_hash_name === undefined) {
    await stopGuard(deps, guard, "an order made on the website with a filter expression cannot be guarded");
    return;
  }
  const similar = await api.getSimilarBuyOrders(
    { market_hash_name: order.market_hash_name, hybrid_properties: order.hybrid_properties ?? {} },
    { limit: 10 },
  );
  const rival = bestRival(similar, order);
  if (rival === undefined || rival < order.price) return;
  let target = rival + guard.stepCents;
  if (target > guard.limitCents) {
    if (guard.limitCents <= rival) {
      await stopGuard(
        deps,
        guard,
        `a rival order at ${formatCents(rival)} is at or above your ceiling; your order stays at ${formatCents(order.price)}`,
        { rivalCents: rival, fromCents: order.price },
      );
      return;
    }
    // One step would pass the ceiling; the ceiling itself still tops the rival.
    target = guard.limitCents;
  }
  if (!(await withinDailyLimit(deps, guard, rival))) return;
  try {
    await editBuyOrder(
      { market: api, prisma: deps.prisma, logger: deps.logger, now: deps.now },
      {
        userId: guard.userId,
        orderId: order.id,
        maxPriceCents: target,
        idempotencyKey: `guard:${guard.id}:${deps.now().getTime()}:${target}`,
      },
    );
  } catch (error) {
    if (error instanceof UserFacingError) {
      // A cap refused the raise: nothing was sent; the guard stops rather than ask again each cycle.
      await stopGuard(deps, guard, error.message, { rivalCents: rival, fromCents: order.price });
      return;
    }
    if (!isMarketError(error)) throw error;
    const detail = error.mayHaveSucceeded
      ? `the raise to ${formatCents(target)} got no clear answer (${error.kind}); it stays counted against your caps until the bot finds out, and the guard stopped so nothing is raised twice. Check /buyorder list`
      : `the marketplace refused the raise to ${formatCents(target)} (${error.kind.replace("_", " ")})`;
    await stopGuard(deps, guard, detail, { rivalCents: rival, fromCents: order.price });
    return;
  }
  await recordGuardEvent(deps.prisma, guard, {
    kind: "change",
    fromCents: order.price,
    toCents: target,
    rivalCents: rival,
    ...(target === guard.limitCents
      ? { detail: "now at its ceiling: the next rival above it stops the guard" }
      : {}),
    at: deps.now(),
  });
  deps.logger.info(
    { guardId: guard.id, orderId: order.id, from: order.price, to: target, rival },
    "buy order raised by its guard",
  );
}

// The buy-order guard's step: keep the user's order the highest for its item and float range,
// one step above the best rival, never above the ceiling, each raise held against the caps by
// the spending guard (the edit reserves the new exposure, replacing the old) and made under the
// order's write lock from the order and the guard as they are at that moment.
import type { GuardRecord } from "../db/repos/guards.ts";
import { guardAsStored, recordGuardEvent } from "../db/repos/guards.ts";
import { withWriteLock, type HeldWriteLock } from "../db/writeLocks.ts";
import { UserFacingError } from "../errors.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { BuyOrder, BuyOrderAggregate } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import { readMyBuyOrders } from "../market/pagination.ts";
import { AutomationStopped } from "../spending/guard.ts";
import { editLockedBuyOrder } from "../trading/buyOrderEdit.ts";
import { findMyOrder } from "../trading/buyOrders.ts";
import { stopGuard, withinDailyLimit, type GuardDeps } from "./deps.ts";

const canonical = (v: unknown): string =>
  v === null || typeof v !== "object"
    ? (JSON.stringify(v) ?? "null")
    : Array.isArray(v)
      ? `[${v.map(canonical).join(",")}]`
      : `{${Object.entries(v as Record<string, unknown>)
          .filter(([, x]) => x !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
          .join(",")}}`;

/** The aggregate group an order of the user's is counted in, as far as the answer tells. */
function sameGroup(a: BuyOrderAggregate, o: BuyOrder): boolean {
  if (a.expression !== undefined || o.expression !== undefined) return a.expression === o.expression;
  if (
    a.market_hash_name !== undefined &&
    o.market_hash_name !== undefined &&
    a.market_hash_name !== o.market_hash_name
  )
    return false;
  return canonical(a.hybrid_properties ?? {}) === canonical(o.hybrid_properties ?? {});
}

/**
 * The best price among other buyers' orders. Similar orders come grouped by price and
 * constraints, the user's own orders among them (the guarded one and any other of theirs for the
 * item): each of the user's orders is taken out of its group at its price (the group with its
 * constraints when the answer says, else any group at that price), and whatever is left is a
 * rival at that price (a tie is not "the highest"). So a guard never raises against its own user,
 * and two guards of one user on one item never leapfrog.
 */
export function bestRival(
  aggregates: readonly BuyOrderAggregate[],
  own: BuyOrder | readonly BuyOrder[],
): Cents | undefined {
  const mine = Array.isArray(own) ? (own as readonly BuyOrder[]) : [own as BuyOrder];
  const left = aggregates.map((a) => a.qty);
  const take = (o: BuyOrder, match: (a: BuyOrderAggregate) => boolean, wanted: number): number => {
    let still = wanted;
    aggregates.forEach((a, i) => {
      const there = left[i] ?? 0;
      if (still <= 0 || there <= 0 || a.price !== o.price || !match(a)) return;
      const n = Math.min(there, still);
      left[i] = there - n;
      still -= n;
    });
    return still;
  };
  for (const o of mine) {
    const qty = Math.max(1, o.qty - (o.bought_item_count ?? 0));
    const rest = take(o, (a) => sameGroup(a, o), qty);
    // The answer's constraints may be written differently from the order's: at its price, the
    // user's own items are still theirs.
    if (rest > 0) take(o, () => true, rest);
  }
  let best: Cents | undefined;
  aggregates.forEach((a, i) => {
    if ((left[i] ?? 0) > 0 && (best === undefined || a.price > best)) best = a.price;
  });
  return best;
}

export async function guardBuyOrder(deps: GuardDeps, api: MarketApi, guard: GuardRecord): Promise<void> {
  const mine = await myOpenOrders(api);
  if (mine === undefined) return; // the list could not be read whole: nothing is changed this pass
  const order = mine.find((o) => o.id === guard.subjectId);
  if (order === undefined) {
    await stopGuard(deps, guard, "the order is no longer open (filled, cancelled or closed)");
    return;
  }
  if (order.market_hash_name === undefined) {
    await stopGuard(deps, guard, "an order made on the website with a filter expression cannot be guarded");
    return;
  }
  const ownForItem = mine.filter((o) => o.market_hash_name === order.market_hash_name || o.id === order.id);
  const similar = await api.getSimilarBuyOrders(
    { market_hash_name: order.market_hash_name, hybrid_properties: order.hybrid_properties ?? {} },
    // The user's own groups may fill the top of the answer: ask for that many more.
    { limit: Math.min(50, 10 + ownForItem.length) },
  );
  const rival = bestRival(similar, ownForItem);
  if (rival === undefined || rival < order.price) return;
  // The raise is made holding the order's write lock, which the user's own edits, cancels and
  // guard settings wait for; one of those under way now leaves the order to the next pass.
  const done = await withWriteLock(deps.prisma, { kind: "buy_order", id: order.id }, "try", (lock) =>
    raise(deps, api, lock, guard, order, rival),
  );
  if (!done.ok) deps.logger.info({ guardId: guard.id }, "buy-order guard left for its next pass: order busy");
}

/** What the pass decided from must still be the order: the user may have changed it since. */
function sameOrder(a: BuyOrder, b: BuyOrder): boolean {
  return (
    a.price === b.price &&
    a.qty === b.qty &&
    a.market_hash_name === b.market_hash_name &&
    a.expression === b.expression &&
    canonical(a.hybrid_properties ?? {}) === canonical(b.hybrid_properties ?? {})
  );
}

/**
 * One raise, under the order's write lock: the guard as stored now (its ceiling and step, still
 * on, on its account) and the order as it is now, so the raise keeps every change the user made
 * and never goes past a ceiling lowered since the pass began.
 */
async function raise(
  deps: GuardDeps,
  api: MarketApi,
  lock: HeldWriteLock,
  read: GuardRecord,
  seen: BuyOrder,
  rival: Cents,
): Promise<void> {
  const guard = await guardAsStored(deps.prisma, read);
  if (guard === undefined) return;
  const trading = { market: api, prisma: deps.prisma, logger: deps.logger, now: deps.now };
  let order: BuyOrder;
  try {
    order = await findMyOrder(trading, seen.id);
  } catch (error) {
    if (!(error instanceof UserFacingError) || error.code !== "not_found") throw error;
    await stopGuard(deps, guard, "the order is no longer open (filled, cancelled or closed)");
    return;
  }
  if (!sameOrder(order, seen)) {
    // Its price, quantity or constraints changed since the rivals were read (an edit of the
    // user's): the next pass reads the rivals of the order as it is now.
    deps.logger.info(
      { guardId: guard.id, orderId: order.id },
      "order changed during the guard pass; next pass",
    );
    return;
  }
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
    await editLockedBuyOrder(trading, lock, order, {
      userId: guard.userId,
      orderId: order.id,
      maxPriceCents: target,
      idempotencyKey: `guard:${guard.id}:${deps.now().getTime()}:${target}`,
      // Re-checked with the caps: the guard still on, on its account, within its ceiling.
      authority: { kind: "guard", guardId: guard.id },
    });
  } catch (error) {
    if (error instanceof AutomationStopped) {
      deps.logger.info({ guardId: guard.id }, "guard turned off before its raise; nothing sent");
      return;
    }
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

/**
 * Every open order of the user, or undefined when the list cannot be known whole (pages ran out
 * at our guard before the end): a guard acts only on a complete picture of the user's orders.
 */
async function myOpenOrders(api: MarketApi): Promise<BuyOrder[] | undefined> {
  const read = await readMyBuyOrders(api, { maxPages: 20 });
  return read.complete ? read.items : undefined;
}

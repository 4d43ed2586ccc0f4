// The one spending guard: every action that can commit money (buy, bid, buy order, offer, an
// automatic buy) reserves its commitment here under the user's caps before its request leaves.
import {
  findOpenCommitment,
  listOpen,
  reserveSpend,
  spendPartOf,
  settlePurchase,
  spentInWindow,
  type Authority,
  type PurchaseRecord,
  type ReserveInput,
  type ReserveResult,
  type SpendKind,
} from "../db/repos/purchases.ts";
import { getUserById } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";
import { UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import { formatCents, type Cents } from "../money.ts";

export type { Authority, SpendKind };
export type Commitment = PurchaseRecord;

export interface SpendRequest {
  readonly userId: number;
  readonly kind: SpendKind;
  /** One per user action (a button press, a command run): the same key never commits twice. */
  readonly idempotencyKey: string;
  /** The listing or buy order, when known before the request. */
  readonly subjectId?: string;
  /** The price of one item, bounded by the per-purchase cap. */
  readonly unitPriceCents: Cents;
  /** What the action commits in all; at least the unit price. */
  readonly totalCents: Cents;
  /** A standing commitment this action replaces (a raised bid, an edited order, a counter-offer). */
  readonly replaces?: Commitment | null;
  /**
   * An automatic action: the armed rule or guard asking, whose confirmed bounds, on/off state and
   * account are re-checked under the same lock as the caps (src/db/repos/purchases.ts).
   */
  readonly authority?: Authority;
}

export interface CapsView {
  readonly perPurchaseCapCents: Cents | null;
  readonly dailyCapCents: Cents | null;
  /** Committed now: open bids, orders and offers, unsettled actions, and what was spent in 24 h. */
  readonly committedCents: Cents;
  /** What the daily cap still allows (null: no daily cap). */
  readonly leftCents: Cents | null;
}

/** The user's caps as they stand, for confirmations and /account settings. */
export async function capsOf(db: Db, userId: number): Promise<CapsView> {
  const user = await getUserById(db, userId);
  if (!user) throw notLinked();
  const { perPurchaseCapCents, dailyCapCents } = user.settings;
  const committedCents = await spentInWindow(db, userId);
  return {
    perPurchaseCapCents,
    dailyCapCents,
    committedCents,
    leftCents: dailyCapCents === null ? null : Math.max(0, dailyCapCents - committedCents),
  };
}

/** One line for every confirmation: the caps the action is checked against. */
export function describeCaps(caps: CapsView): string {
  const per =
    caps.perPurchaseCapCents === null
      ? "no per-purchase cap"
      : `${formatCents(caps.perPurchaseCapCents)} per purchase`;
  const daily =
    caps.dailyCapCents === null
      ? "no daily cap"
      : `${formatCents(caps.dailyCapCents)} a day (${formatCents(caps.committedCents)} committed, ${formatCents(caps.leftCents ?? 0)} left)`;
  return `Your caps: ${per}, ${daily}. Change them with /account settings.`;
}

type Priced = Pick<SpendRequest, "kind" | "unitPriceCents" | "totalCents">;

/** What the user is told the action commits, per kind, for cap refusals. */
function actionNoun(req: Priced): string {
  switch (req.kind) {
    case "buy":
    case "auto_buy":
      return `This purchase costs ${formatCents(req.totalCents)}`;
    case "bid":
      return `A bid ceiling of ${formatCents(req.totalCents)}`;
    case "buy_order":
      return `This buy order commits ${formatCents(req.totalCents)} (${formatCents(req.unitPriceCents)} per item)`;
    case "offer":
      return `An offer of ${formatCents(req.totalCents)}`;
  }
}

const NOTHING_DONE: Record<SpendKind, string> = {
  buy: "nothing was bought",
  auto_buy: "nothing was bought",
  bid: "no bid was placed",
  buy_order: "the order was not placed or changed",
  offer: "no offer was sent",
};

/**
 * Reserves the commitment or refuses with a clear message. The reservation is atomic across
 * every path: concurrent attempts are decided one after the other under the user's row lock.
 */
export async function reserveOrRefuse(db: Db, req: SpendRequest): Promise<Commitment> {
  return commitmentOrRefusal(req, await reserveSpend(db, reservationOf(req)));
}

/** What the database reserves for the request; refuses amounts that are not whole cents. */
export function reservationOf(req: SpendRequest): ReserveInput {
  if (
    !Number.isSafeInteger(req.totalCents) ||
    req.totalCents < req.unitPriceCents ||
    req.unitPriceCents < 0
  ) {
    throw new RangeError("a commitment's total must be whole cents, at least its unit price");
  }
  return {
    userId: req.userId,
    idempotencyKey: req.idempotencyKey,
    kind: req.kind,
    subjectId: req.subjectId ?? null,
    listingIds: req.kind === "buy" || req.kind === "auto_buy" ? (req.subjectId ? [req.subjectId] : []) : [],
    unitPriceCents: req.unitPriceCents,
    totalCents: req.totalCents,
    ...(req.replaces ? { replacesId: req.replaces.id } : {}),
    ...(req.authority ? { authority: req.authority } : {}),
  };
}

/**
 * The reservation's answer for the request: the commitment, or the refusal the user is told
 * (for reserveOrRefuse, and for a reservation made inside another statement: the armed claim).
 */
export function commitmentOrRefusal(req: SpendRequest, result: ReserveResult): Commitment {
  if (result.ok) return result.purchase;
  const context = {
    userId: req.userId,
    kind: req.kind,
    subjectId: req.subjectId,
    totalCents: req.totalCents,
  };
  switch (result.reason) {
    case "no_user":
      throw notLinked();
    case "duplicate":
      throw new UserFacingError(
        "conflict",
        "This action was already handled; nothing was done again. Run the command again for a fresh one.",
        { ...context, previous: result.purchase.id, status: result.purchase.status },
      );
    case "per_purchase_cap":
      throw overPerPurchase(req, result.capCents);
    case "daily_cap":
      throw overDaily(req, result.capCents, result.spentCents, req.replaces?.totalCents ?? 0);
    case "automation_stopped":
      throw new AutomationStopped(
        `The automation was turned off, or your linked account changed, before this could happen; ${NOTHING_DONE[req.kind]}.`,
        context,
      );
    case "already_bought":
      throw new AlreadyBought(
        `You already bought this listing (or are buying it); ${NOTHING_DONE[req.kind]} again.`,
        context,
      );
    case "confirmed_ceiling":
      throw new UserFacingError(
        "spend_cap",
        `${actionNoun(req)}, above the ${formatCents(result.capCents)} ceiling you confirmed when you turned this on; ${NOTHING_DONE[req.kind]}. Turn it on again to confirm a new ceiling.`,
        { ...context, cap: result.capCents, cap_kind: "confirmed_ceiling" },
      );
    case "confirmed_budget":
      throw new UserFacingError(
        "spend_cap",
        `${actionNoun(req)}, but this armed rule has already committed ${formatCents(result.spentCents)} of the ${formatCents(result.capCents)} you confirmed it may spend; ${NOTHING_DONE[req.kind]}. Arm it again to confirm more.`,
        { ...context, cap: result.capCents, spent: result.spentCents, cap_kind: "confirmed_budget" },
      );
  }
}

/** An armed rule matched a listing the user already bought, or is buying, through another rule. */
export class AlreadyBought extends UserFacingError {
  constructor(message: string, context: Record<string, unknown>) {
    super("conflict", message, context);
  }
}

/** An automatic action found its automation stopped (or its account changed) at reservation. */
export class AutomationStopped extends UserFacingError {
  constructor(message: string, context: Record<string, unknown>) {
    super("conflict", message, context);
  }
}

/**
 * The same check without reserving, for a confirmation shown before the action (a buy order's
 * exposure): refuses early with the message the reservation would give. `releasedCents` is what
 * the action would replace (an edited order's current exposure).
 */
export function checkWithinCaps(caps: CapsView, req: Priced & { releasedCents?: Cents }): void {
  if (caps.perPurchaseCapCents !== null && req.unitPriceCents > caps.perPurchaseCapCents) {
    throw overPerPurchase(req, caps.perPurchaseCapCents);
  }
  const released = req.releasedCents ?? 0;
  if (caps.dailyCapCents !== null && caps.committedCents - released + req.totalCents > caps.dailyCapCents) {
    throw overDaily(req, caps.dailyCapCents, caps.committedCents - released, released);
  }
}

function overPerPurchase(req: Priced, cap: Cents): UserFacingError {
  return new UserFacingError(
    "spend_cap",
    `${actionNoun(req)}, above your per-purchase cap of ${formatCents(cap)}; ${NOTHING_DONE[req.kind]}. You can change the cap with /account settings.`,
    { kind: req.kind, totalCents: req.totalCents, cap, cap_kind: "per_purchase" },
  );
}

function overDaily(req: Priced, cap: Cents, committed: Cents, replaced: Cents): UserFacingError {
  const left = Math.max(0, cap - committed);
  return new UserFacingError(
    "spend_cap",
    `${actionNoun(req)}, but only ${formatCents(left)} of your ${formatCents(cap)} daily cap is left (${formatCents(committed)} committed: open bids, buy orders and offers, and what was spent in the last 24 hours${replaced > 0 ? `, not counting the ${formatCents(replaced)} this replaces` : ""}); ${NOTHING_DONE[req.kind]}. You can change the cap with /account settings.`,
    { kind: req.kind, totalCents: req.totalCents, cap, spent: committed, cap_kind: "daily" },
  );
}

/** The request was answered: the commitment now stands (a top bid, an open order or offer). */
export async function commitmentStands(
  db: Db,
  c: Commitment,
  opts: { subjectId?: string; totalCents?: Cents } = {},
): Promise<void> {
  await settlePurchase(db, c.id, { status: "open", ...opts });
}

/** The request was refused: nothing is committed. */
export async function commitmentRefused(db: Db, c: Commitment, error: string): Promise<void> {
  await settlePurchase(db, c.id, { status: "failed", error });
}

/** We do not know whether the request landed: it stays counted until the reconciler finds out. */
export async function commitmentUnknown(db: Db, c: Commitment, reason: string): Promise<void> {
  await settlePurchase(db, c.id, { status: "unknown", error: reason });
}

/** A standing commitment ended without spending (bid lost, order cancelled, offer declined). */
export async function commitmentReleased(db: Db, c: Commitment, reason: string): Promise<void> {
  await settlePurchase(db, c.id, { status: "released", error: reason });
}

/** The commitment turned into spend (bought, auction won, offer accepted), at this amount. */
export async function commitmentSpent(db: Db, c: Commitment, spentCents?: Cents): Promise<void> {
  await settlePurchase(db, c.id, {
    status: "succeeded",
    ...(spentCents === undefined ? {} : { totalCents: spentCents }),
  });
}

function notLinked(): UserFacingError {
  return new UserFacingError("not_linked", "Link your marketplace account first with /account link.");
}

/**
 * Ends the user's standing commitment on a listing or order, if one stands: spent at the given
 * amount (an auction won, an offer accepted) or released (outbid, lost, cancelled, declined).
 */
export async function endStanding(
  db: Db,
  subject: { userId: number; kind: SpendKind; subjectId: string },
  outcome: { spentCents: Cents } | { releasedBecause: string },
): Promise<boolean> {
  const standing = await findOpenCommitment(db, subject);
  if (!standing) return false;
  if ("spentCents" in outcome) await commitmentSpent(db, standing, outcome.spentCents);
  else await commitmentReleased(db, standing, outcome.releasedBecause);
  return true;
}

/**
 * Items of a buy order were bought: that part of its commitment becomes spend, and what stays
 * committed is the price of the items still wanted (0 closes it). Idempotent per fill count.
 */
export async function recordFill(
  db: Db,
  fill: {
    userId: number;
    orderId: string;
    priceCents: Cents;
    newlyBought: number;
    stillWanted: number;
    boughtCount: number;
  },
): Promise<boolean> {
  const open = await findOpenCommitment(db, {
    userId: fill.userId,
    kind: "buy_order",
    subjectId: fill.orderId,
  });
  if (!open || fill.newlyBought <= 0) return false;
  await spendPartOf(db, {
    openId: open.id,
    spentCents: fill.priceCents * fill.newlyBought,
    stillCommittedCents: fill.priceCents * Math.max(0, fill.stillWanted),
    idempotencyKey: `bo.fill:${fill.userId}:${fill.orderId}:${fill.boughtCount}`,
  });
  return true;
}

/**
 * How long before a list read a commitment must have stood for its absence from the list to
 * release it: covers the clocks of two replicas (one stamps the commitment, one reads the list).
 */
export const RELEASE_MARGIN_MS = 5_000;

/**
 * Open buy-order commitments of the user whose order is not among `openIds` (a complete list,
 * read from `readStartedAt`) any more: released. A commitment that stood only since shortly
 * before the read is kept: its order may have opened after the list was taken (the next poll
 * decides).
 */
export async function releaseClosedOrders(
  db: Db,
  userId: number,
  openIds: ReadonlySet<string>,
  readStartedAt: Date,
): Promise<number> {
  let released = 0;
  const before = readStartedAt.getTime() - RELEASE_MARGIN_MS;
  for (const c of await listOpen(db, "buy_order", userId)) {
    if (c.subjectId === null || openIds.has(c.subjectId)) continue;
    if ((c.openedAt ?? c.createdAt).getTime() >= before) continue;
    await commitmentReleased(db, c, "the order is no longer open");
    released += 1;
  }
  return released;
}

/**
 * The request failed: refused means nothing is committed; an answer that was lost (a timeout, a
 * dropped connection, a 5xx on a write) or an error that is not the marketplace's may still have
 * landed, so it stays counted, unknown, until the reconciler finds out. Never guessed either way.
 */
export async function commitmentFailed(db: Db, c: Commitment, error: unknown): Promise<void> {
  // Only a clear refusal from the marketplace releases it. Anything else (a lost answer, or an
  // error that is not the marketplace's, such as a bug after the request left) may have landed.
  if (isMarketError(error) && !error.mayHaveSucceeded) await commitmentRefused(db, c, error.kind);
  else await commitmentUnknown(db, c, isMarketError(error) ? error.kind : "unexpected error");
}

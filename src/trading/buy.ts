// Buying a buy-now listing in two steps: a quote, then a money-safe confirmation that buys at
// most once per confirmation, within the user's spend caps, and never retries a purchase blindly.
import { UserFacingError } from "../errors.ts";
import { getUserById } from "../db/repos/users.ts";
import {
  getPurchaseByKey,
  reserveSpend,
  settlePurchase,
  spentInWindow,
  type PurchaseRecord,
} from "../db/repos/purchases.ts";
import { isMarketError, type MarketError } from "../market/errors.ts";
import type { Listing, Trade } from "../market/schemas.ts";
import { formatCents, type Cents } from "../money.ts";
import type { TradingDeps } from "./deps.ts";
import { requireCents, requireId } from "../input/validate.ts";
import { referenceCentsOf } from "../market/reference.ts";
import { toTradeView, type TradeView } from "./views.ts";

export interface BuyQuote {
  listingId: string;
  priceCents: Cents;
  itemName: string;
  state: string;
  isSeller: boolean;
  floatValue: number | undefined;
  paintSeed: number | undefined;
  sellerName: string | undefined;
  referencePriceCents: Cents | undefined;
  /** The user's caps as they stand now (null: no cap); the binding check happens on confirm. */
  perPurchaseCapCents: Cents | null;
  dailyCapCents: Cents | null;
  /** Spent or pending within the daily window, counted against the daily cap. */
  spentTodayCents: Cents;
}

export interface BuyResult {
  bought: true;
  listingId: string;
  priceCents: Cents;
  itemName: string | undefined;
  /** The trade the purchase opened, when it could be read back (it is best effort). */
  trade: TradeView | undefined;
}

/** Page size and pages of the user's buyer trades scanned for the one a purchase opened. */
const TRADE_LOOKUP_LIMIT = 50;
const TRADE_LOOKUP_PAGES = 20;

/**
 * Reads the listing and says what a purchase would cost, or why it cannot happen. Nothing is
 * reserved: the quote may go stale, which confirmBuy detects.
 */
export async function prepareBuy(
  deps: TradingDeps,
  input: { userId: number; listingId: string },
): Promise<BuyQuote> {
  const listingId = requireId("listing", input.listingId);
  const user = await getUserById(deps.prisma, input.userId);
  if (!user) throw notLinked(input.userId);
  const listing = await deps.market.getListing(listingId);
  assertBuyable(listing);
  const { perPurchaseCapCents, dailyCapCents } = user.settings;
  const spentTodayCents = dailyCapCents === null ? 0 : await spentInWindow(deps.prisma, input.userId);
  assertWithinCaps(listing.price, perPurchaseCapCents, dailyCapCents, spentTodayCents, listingId);
  return {
    listingId,
    priceCents: listing.price,
    itemName: listing.item.market_hash_name,
    state: listing.state,
    isSeller: listing.is_seller === true,
    floatValue: listing.item.float_value,
    paintSeed: listing.item.paint_seed,
    sellerName: listing.seller?.username,
    referencePriceCents: referenceCentsOf(listing),
    perPurchaseCapCents,
    dailyCapCents,
    spentTodayCents,
  };
}

export interface ConfirmBuyInput {
  userId: number;
  listingId: string;
  /** The price the user saw and confirmed; the purchase happens at exactly this price or not at all. */
  expectedPriceCents: Cents;
  /** One per Confirm button: a second use of the same key never buys again. */
  idempotencyKey: string;
}

/**
 * Buys the listing at the confirmed price. Order matters for money safety:
 * 1. a key seen before is answered from its record (double clicks, retried interactions);
 * 2. the listing is re-read: sold or repriced means nothing is bought;
 * 3. the spend is reserved under the caps with the key, atomically, so concurrent confirms
 *    neither overspend nor buy twice;
 * 4. one purchase request, never repeated; if its answer is lost, the outcome is read back
 *    from the listing and the user's trades, and recorded (succeeded, failed or unknown).
 */
export async function confirmBuy(deps: TradingDeps, input: ConfirmBuyInput): Promise<BuyResult> {
  const listingId = requireId("listing", input.listingId);
  const expected = requireCents("price", input.expectedPriceCents, 1);
  const key = input.idempotencyKey;
  // Keys come from our own button ids, never from typing: a bad one is a bug, not user input.
  if (key.length === 0 || key.length > 200) throw new RangeError("idempotency key must be 1-200 characters");
  const log = deps.logger.child({ userId: input.userId, listingId, idempotencyKey: key });

  const seen = await getPurchaseByKey(deps.prisma, key);
  if (seen) throw alreadyHandled(seen);

  const listing = await deps.market.getListing(listingId);
  assertBuyable(listing);
  if (listing.price !== expected) throw priceChanged(listingId, expected, listing.price);

  const reservation = await reserveSpend(deps.prisma, {
    userId: input.userId,
    idempotencyKey: key,
    subjectId: listingId,
    listingIds: [listingId],
    totalCents: expected,
  });
  if (!reservation.ok) {
    switch (reservation.reason) {
      case "duplicate":
        throw alreadyHandled(reservation.purchase);
      case "no_user":
        throw notLinked(input.userId);
      case "per_purchase_cap":
        throw overPerPurchaseCap(listingId, expected, reservation.capCents);
      case "daily_cap":
        throw overDailyCap(listingId, expected, reservation.capCents, reservation.spentCents);
      default:
        // Only automatic actions name an authority; a manual buy never gets these.
        throw new Error(`unexpected reservation refusal for a manual buy: ${reservation.reason}`);
    }
  }
  const purchaseId = reservation.purchase.id;
  const itemName = listing.item.market_hash_name;

  try {
    await deps.market.buyListings({ contract_ids: [listingId], total_price: expected });
  } catch (error) {
    return resolveFailedPurchase(deps, { purchaseId, listingId, expected, itemName, error, log });
  }
  await settlePurchase(deps.prisma, purchaseId, { status: "succeeded" });
  log.info({ priceCents: expected, purchaseId }, "listing bought");
  const trade = await findPurchaseTrade(deps, listingId).catch((error: unknown) => {
    log.warn({ err: error }, "trade lookup after purchase failed");
    return undefined;
  });
  return { bought: true, listingId, priceCents: expected, itemName, trade: trade && toTradeView(trade) };
}

/** Why a listing cannot be bought with /buy at all (state, type, ownership). */
function assertBuyable(listing: Listing): void {
  const listingId = listing.id;
  if (listing.state !== "listed") {
    throw new UserFacingError("already_sold", soldMessage(listing.state), {
      listingId,
      state: listing.state,
    });
  }
  if (listing.type === "auction") {
    throw new UserFacingError("invalid_input", "This listing is an auction: use /bid to bid on it.", {
      listingId,
    });
  }
  if (listing.is_seller === true) {
    throw new UserFacingError("conflict", "This is your own listing; you cannot buy it.", { listingId });
  }
}

function soldMessage(state: string): string {
  return state === "sold"
    ? "This listing has already been sold; nothing was bought."
    : `This listing is no longer for sale (${state}); nothing was bought.`;
}

function priceChanged(listingId: string, expected: Cents, actual: Cents): UserFacingError {
  return new UserFacingError(
    "price_changed",
    `The price changed from ${formatCents(expected)} to ${formatCents(actual)}; nothing was bought. Run /buy again to see the new price.`,
    { listingId, expected, actual },
  );
}

function notLinked(userId: number): UserFacingError {
  return new UserFacingError("not_linked", "Link your marketplace account first with /account link.", {
    userId,
  });
}

function assertWithinCaps(
  price: Cents,
  perPurchaseCap: Cents | null,
  dailyCap: Cents | null,
  spent: Cents,
  listingId: string,
): void {
  if (perPurchaseCap !== null && price > perPurchaseCap)
    throw overPerPurchaseCap(listingId, price, perPurchaseCap);
  if (dailyCap !== null && spent + price > dailyCap) throw overDailyCap(listingId, price, dailyCap, spent);
}

function overPerPurchaseCap(listingId: string, price: Cents, cap: Cents): UserFacingError {
  return new UserFacingError(
    "spend_cap",
    `This costs ${formatCents(price)}, above your per-purchase cap of ${formatCents(cap)}; nothing was bought. You can change the cap with /account settings.`,
    { listingId, price, cap, cap_kind: "per_purchase" },
  );
}

function overDailyCap(listingId: string, price: Cents, cap: Cents, spent: Cents): UserFacingError {
  const left = Math.max(0, cap - spent);
  return new UserFacingError(
    "spend_cap",
    `This costs ${formatCents(price)}, but only ${formatCents(left)} of your ${formatCents(cap)} daily cap is left (${formatCents(spent)} spent or pending in the last 24 hours); nothing was bought.`,
    { listingId, price, cap, spent, cap_kind: "daily" },
  );
}

/** A confirmation already used: say what became of it instead of buying again. */
function alreadyHandled(purchase: PurchaseRecord): UserFacingError {
  const context = { purchaseId: purchase.id, status: purchase.status };
  switch (purchase.status) {
    case "pending":
      return new UserFacingError("conflict", "This purchase is already being processed.", context);
    case "succeeded":
      return new UserFacingError(
        "conflict",
        "Already bought: this confirmation has been used. See /trades list.",
        context,
      );
    case "failed":
      return new UserFacingError(
        "conflict",
        "This confirmation was already used and nothing was bought. Run /buy again for a fresh quote.",
        context,
      );
    case "unknown":
      return new UserFacingError(
        "unknown_outcome",
        "This purchase's outcome could not be confirmed; check /trades list before trying again.",
        context,
      );
    // Standing commitments (bids, orders, offers) never share a key with a purchase.
    case "open":
    case "released":
      return new UserFacingError("conflict", "This confirmation was already used.", context);
  }
}

interface FailedPurchase {
  purchaseId: number;
  listingId: string;
  expected: Cents;
  itemName: string;
  error: unknown;
  log: TradingDeps["logger"];
}

/**
 * The purchase request did not answer 2xx. Either the service refused it (nothing happened:
 * find out why), or we do not know whether it landed (timeout, lost connection, 5xx): then the
 * only safe move is to read the world back, never to send the purchase again.
 */
async function resolveFailedPurchase(deps: TradingDeps, f: FailedPurchase): Promise<BuyResult> {
  const { error, purchaseId, listingId, log } = f;
  if (!isMarketError(error)) {
    // A bug on our side after the request may have left: count it as possibly spent.
    await settlePurchase(deps.prisma, purchaseId, { status: "unknown", error: "unexpected error" });
    throw error;
  }
  if (error.mayHaveSucceeded) return resolveUncertainPurchase(deps, f, error);

  await settlePurchase(deps.prisma, purchaseId, { status: "failed", error: error.kind });
  if (error.kind !== "stale_purchase") throw error;
  // The whole purchase was refused: the listing sold or changed meanwhile, or something else.
  const now = await deps.market.getListing(listingId).catch(() => undefined);
  log.info({ state: now?.state, price: now?.price, code: error.code }, "purchase refused");
  if (now && now.state !== "listed")
    throw new UserFacingError("already_sold", soldMessage(now.state), { listingId });
  if (now && now.price !== f.expected) throw priceChanged(listingId, f.expected, now.price);
  if (now === undefined) {
    // Unreadable now: the refusal's own code is all there is to say why.
    throw new UserFacingError("price_changed", refusedWithoutListing(error.code), {
      listingId,
      code: error.code,
    });
  }
  // Still listed at the same price: the refusal was about something else (balance, account).
  throw new UserFacingError(
    "conflict",
    `The marketplace refused the purchase${error.serviceMessage ? `: ${error.serviceMessage}` : ""}. Nothing was bought.`,
    { listingId, code: error.code },
  );
}

/** Live refusal codes of a purchase (docs/live-service.md): 6 stale or sold, 15 the price changed. */
const REFUSED_SOLD = 6;
const REFUSED_PRICE_CHANGED = 15;

function refusedWithoutListing(code: number | undefined): string {
  if (code === REFUSED_PRICE_CHANGED)
    return "The price changed before the purchase went through; nothing was bought. Run /buy again to see the new price.";
  if (code === REFUSED_SOLD)
    return "The listing sold or was taken off the market before the purchase went through; nothing was bought.";
  return "The listing changed or sold before the purchase went through; nothing was bought.";
}

async function resolveUncertainPurchase(
  deps: TradingDeps,
  f: FailedPurchase,
  error: MarketError,
): Promise<BuyResult> {
  const { purchaseId, listingId, expected, log } = f;
  log.warn(
    { kind: error.kind, status: error.status, purchaseId },
    "purchase outcome unknown; reading it back",
  );
  const unknown = async (reason: string, detail: string): Promise<never> => {
    await settlePurchase(deps.prisma, purchaseId, { status: "unknown", error: reason });
    log.warn({ purchaseId, reason }, "purchase outcome left unknown");
    throw new UserFacingError(
      "unknown_outcome",
      `We could not confirm whether the purchase went through (${detail}); check /trades list before trying again.`,
      { listingId, purchaseId, reason },
    );
  };

  let listing: Listing;
  try {
    listing = await deps.market.getListing(listingId);
  } catch (readError) {
    log.warn({ err: readError }, "listing re-read after uncertain purchase failed");
    return unknown("listing unreadable", "the marketplace is not answering");
  }

  if (listing.state === "sold") {
    let trade: Trade | undefined;
    try {
      trade = await findPurchaseTrade(deps, listingId);
    } catch (readError) {
      log.warn({ err: readError }, "trade lookup after uncertain purchase failed");
      return unknown("trades unreadable", "the listing sold, but your trades could not be read");
    }
    if (trade) {
      await settlePurchase(deps.prisma, purchaseId, { status: "succeeded" });
      log.info({ purchaseId, tradeId: trade.id }, "uncertain purchase confirmed by its trade");
      return {
        bought: true,
        listingId,
        priceCents: expected,
        itemName: f.itemName,
        trade: toTradeView(trade),
      };
    }
    // Sold, and no trade of ours shows it (yet): the trade may simply not be listed so soon, so
    // "someone else bought it" could be false. Keep it counted; the reconciler settles it from
    // the trades and the ledger and tells the user.
    return unknown(
      "sold, trade not found yet",
      "the listing sold and your trades do not show it yet; you will get a DM once we know",
    );
  }
  if (listing.state !== "listed") {
    await settlePurchase(deps.prisma, purchaseId, { status: "failed", error: `listing ${listing.state}` });
    throw new UserFacingError("already_sold", soldMessage(listing.state), { listingId });
  }
  if (listing.price !== expected) {
    // Our request carried the old total, which the service refuses: it cannot land any more.
    await settlePurchase(deps.prisma, purchaseId, { status: "failed", error: "price changed" });
    throw priceChanged(listingId, expected, listing.price);
  }
  // Still for sale at our price: the request may simply not have been processed yet, so
  // "nothing was bought" could turn out false. Say what we know and keep it counted.
  return unknown(
    "still listed",
    "the marketplace did not answer in time and the listing still shows as for sale",
  );
}

/** The trade a purchase of `listingId` opened for this user as buyer, if any, on any page. */
async function findPurchaseTrade(deps: TradingDeps, listingId: string): Promise<Trade | undefined> {
  const trades = deps.market.iterateMyTrades(
    { role: "buyer", limit: TRADE_LOOKUP_LIMIT },
    { maxPages: TRADE_LOOKUP_PAGES },
  );
  for await (const t of trades) if ((t.contract_id ?? t.contract?.id) === listingId) return t;
  return undefined;
}

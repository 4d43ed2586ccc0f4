// Trade auto-accept: the user's switch and conditions, which queued sales qualify, and the one
// automatic accept of a sale, whose outcome is always found out (never guessed) and always told.
import {
  claimAutoAccept,
  getAutoAccept,
  saveAutoAccept,
  settleAutoAccept,
  unknownAutoAccepts,
  type AutoAcceptSettings,
} from "../db/repos/autoAccept.ts";
import type { Db } from "../db/types.ts";
import { invalidOption } from "../errors.ts";
import { requireLinkedUser } from "../accounts/requireLinkedUser.ts";
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import { isMarketError } from "../market/errors.ts";
import type { Trade } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import { requireCents } from "../input/validate.ts";

export type { AutoAcceptSettings };

const MAX_ITEM_TEXT = 100;

/** Turns auto-accept on (with its conditions, replacing the previous ones) or off. */
export async function setAutoAccept(
  prisma: Db,
  input: {
    userId: number;
    enabled: boolean;
    minPriceCents?: Cents | undefined;
    itemContains?: string | undefined;
  },
): Promise<AutoAcceptSettings> {
  const minPriceCents =
    input.minPriceCents === undefined ? null : requireCents("min_price", input.minPriceCents, 1);
  const item = input.itemContains?.trim();
  if (item !== undefined && (item === "" || item.length > MAX_ITEM_TEXT))
    throw invalidOption("item", `give part of the item's name, at most ${MAX_ITEM_TEXT} characters`);
  const user = input.enabled ? await requireLinkedUser(prisma, input.userId) : null;
  return saveAutoAccept(
    prisma,
    input.userId,
    {
      enabled: input.enabled,
      minPriceCents: input.enabled ? minPriceCents : null,
      itemContains: input.enabled ? (item ?? null) : null,
    },
    user?.linkGeneration ?? 0,
  );
}

export function autoAcceptSettings(prisma: Db, userId: number): Promise<AutoAcceptSettings> {
  return getAutoAccept(prisma, userId);
}

/** Whether a queued sale meets the user's conditions (a sale whose price is unknown never meets a minimum). */
export function qualifies(s: AutoAcceptSettings, trade: Trade): boolean {
  if (!s.enabled) return false;
  const price = trade.contract?.price;
  if (s.minPriceCents !== null && (price === undefined || price < s.minPriceCents)) return false;
  if (s.itemContains !== null) {
    const name = trade.contract?.item.market_hash_name;
    if (name === undefined || !name.toLowerCase().includes(s.itemContains.toLowerCase())) return false;
  }
  return true;
}

export type AutoAcceptResult =
  | { outcome: "accepted"; trade: Trade }
  | { outcome: "failed"; detail: string; trade: Trade | undefined }
  | { outcome: "unknown"; detail: string }
  /** Another pass (a replica, a restart) already claimed this sale: it tells the user. */
  | { outcome: "claimed_elsewhere" };

/**
 * Accepts one queued sale, once. The claim (one insert) comes first, so no sale is accepted or
 * told twice. The accept's answer is empty (spec 4.5), and a lost answer may still have landed:
 * the trade is read back and its state is the outcome; if it cannot be read, the outcome is
 * "unknown", never a guess. The caller tells the user every outcome.
 */
export async function acceptAutomatically(
  deps: { prisma: Db; logger: Logger; now: () => Date },
  api: MarketApi,
  input: { userId: number; tradeId: string; trade: Trade },
): Promise<AutoAcceptResult> {
  const claim = await claimAutoAccept(deps.prisma, input.userId, input.tradeId, {
    priceCents: input.trade.contract?.price,
    itemName: input.trade.contract?.item.market_hash_name,
  });
  if (claim === undefined) return { outcome: "claimed_elsewhere" };
  const result = await acceptAndReadBack(api, input.tradeId);
  await settleAutoAccept(
    deps.prisma,
    claim,
    result.outcome,
    "detail" in result ? result.detail : undefined,
    deps.now(),
  );
  deps.logger.info(
    { userId: input.userId, tradeId: input.tradeId, outcome: result.outcome },
    "sale auto-accepted",
  );
  return result;
}

const accepted = (state: string) => state === "pending" || state === "verified";

export { unknownAutoAccepts };

/**
 * An accept whose outcome was unknown, found out from the trade as read now: past queued, it went
 * through; still queued, it did not (the seller can accept by hand); anything else, the trade
 * ended without it. Settles the claim so it is told once.
 */
export async function settleUnknownAccept(
  deps: { prisma: Db; now: () => Date },
  claimId: number,
  trade: Trade,
): Promise<Exclude<AutoAcceptResult, { outcome: "unknown" | "claimed_elsewhere" }>> {
  const result: Exclude<AutoAcceptResult, { outcome: "unknown" | "claimed_elsewhere" }> = accepted(
    trade.state,
  )
    ? { outcome: "accepted", trade }
    : {
        outcome: "failed",
        trade,
        detail:
          trade.state === "queued"
            ? "the accept whose answer was lost did not go through"
            : `the trade is ${trade.state}`,
      };
  await settleAutoAccept(
    deps.prisma,
    claimId,
    result.outcome,
    "detail" in result ? result.detail : undefined,
    deps.now(),
  );
  return result;
}

async function acceptAndReadBack(
  api: MarketApi,
  tradeId: string,
): Promise<Exclude<AutoAcceptResult, { outcome: "claimed_elsewhere" }>> {
  let refusal: unknown;
  try {
    await api.acceptTrade(tradeId);
  } catch (error) {
    if (isMarketError(error, "unauthorized")) throw error;
    refusal = error;
  }
  let trade: Trade;
  try {
    trade = await api.getTrade(tradeId);
  } catch {
    return {
      outcome: "unknown",
      detail:
        refusal === undefined
          ? "the marketplace took the accept but the trade could not be read back"
          : `${reason(refusal)}, and the trade could not be read back`,
    };
  }
  if (accepted(trade.state)) return { outcome: "accepted", trade };
  return {
    outcome: "failed",
    trade,
    detail:
      refusal === undefined
        ? `the trade is ${trade.state} after the accept`
        : `${reason(refusal)}; the trade is ${trade.state}`,
  };
}

/** The refusal in words for the user: the service's message, or what kind of failure it was. */
function reason(error: unknown): string {
  if (!isMarketError(error)) return "an unexpected error stopped it";
  switch (error.kind) {
    case "rate_limited":
      return "the marketplace's rate limit refused it";
    case "timeout":
      return "the marketplace did not answer in time";
    case "upstream":
      return `the marketplace failed (${error.status ?? "5xx"})`;
    case "network":
      return "the marketplace could not be reached";
    default:
      return `the marketplace refused it${error.serviceMessage ? `: ${error.serviceMessage}` : ` (${error.kind.replace("_", " ")})`}`;
  }
}

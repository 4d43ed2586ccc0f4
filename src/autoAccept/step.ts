// The trade poller's auto-accept step: a queued sale that meets the seller's conditions is
// accepted with no press, and the seller is told what happened (sent by, or accept by hand by).
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { Trade } from "../market/schemas.ts";
import type { AutoAcceptSettings } from "../db/repos/autoAccept.ts";
import {
  acceptAutomatically,
  autoAcceptSettings,
  qualifies,
  settleUnknownAccept,
  unknownAutoAccepts,
  type AutoAcceptResult,
} from "./settings.ts";
import { dedupeKey, tradeDeadline } from "../outbox/content.ts";
import type { AutoAcceptAlert } from "../outbox/payload.ts";
import type { Db } from "../db/types.ts";
import type { NewAlert } from "../outbox/store.ts";

export interface AutoAcceptStep {
  /** The trade as it stands after the step (accepted: pending). */
  trade: Trade;
  /** The outcome DM, when the step acted. */
  alert: NewAlert | undefined;
  /** The ordinary "a sale waits on you" alert is replaced by the outcome DM. */
  replacesTradeAlert: boolean;
}

/**
 * The step auto-accept registers with the trade poller (a TradeStepFactory of
 * src/accountPollers/tradeSteps.ts, by its shape). Per user and cycle: the settings are read once,
 * and only when a queued sale is seen.
 */
export function autoAcceptFor(
  deps: { prisma: Db; logger: Logger; now: () => Date },
  api: MarketApi,
  userId: number,
): (trade: Trade, role: "buyer" | "seller") => Promise<AutoAcceptStep> {
  let settings: Promise<AutoAcceptSettings> | undefined;
  let unknown: Promise<Map<string, number>> | undefined;
  return async (trade, role) => {
    const untouched = { trade, alert: undefined, replacesTradeAlert: false };
    if (role !== "seller") return untouched;
    // An earlier accept's lost answer is found out from the trade as it stands now.
    unknown ??= unknownAutoAccepts(deps.prisma, userId, deps.now());
    const claim = (await unknown).get(trade.id);
    if (claim !== undefined) {
      (await unknown).delete(trade.id);
      const found = await settleUnknownAccept(deps, claim, trade);
      return told(trade, found, "settled");
    }
    if (trade.state !== "queued") return untouched;
    settings ??= autoAcceptSettings(deps.prisma, userId);
    if (!qualifies(await settings, trade)) return untouched;
    const result = await acceptAutomatically(deps, api, { userId, tradeId: trade.id, trade });
    if (result.outcome === "claimed_elsewhere") return untouched;
    return told(trade, result, "first");
  };

  function told(
    trade: Trade,
    result: Exclude<AutoAcceptResult, { outcome: "claimed_elsewhere" }>,
    which: "first" | "settled",
  ): AutoAcceptStep {
    const after = result.outcome === "unknown" ? trade : (result.trade ?? trade);
    // Accepted: the deadline to send the item; otherwise the deadline to accept by hand.
    const deadline = tradeDeadline(after);
    const alert: AutoAcceptAlert = {
      kind: "auto_accept",
      outcome: result.outcome,
      tradeId: trade.id,
      ...(trade.contract?.item.market_hash_name === undefined
        ? {}
        : { itemName: trade.contract.item.market_hash_name }),
      ...(trade.contract?.price === undefined ? {} : { priceCents: trade.contract.price }),
      ...(deadline === undefined ? {} : { deadline: deadline.toISOString() }),
      ...("detail" in result ? { detail: result.detail } : {}),
    };
    return {
      trade: after,
      alert: {
        userId,
        kind: "auto_accept",
        subjectId: trade.id,
        version: `${which}:${result.outcome}`,
        dedupeKey: dedupeKey.autoAccept(userId, trade.id, which),
        // What automation did is always told, whatever the user's trade alert setting.
        destination: "dm",
        alert,
      },
      replacesTradeAlert: true,
    };
  }
}

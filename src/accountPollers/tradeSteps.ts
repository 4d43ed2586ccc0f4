// Steps a feature registers with the trade poller: each sees every trade the poller reads for a
// user, in order, and may act on it and tell the user (auto-accept is one, src/autoAccept/step.ts).
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { Trade } from "../market/schemas.ts";
import type { NewAlert } from "../outbox/store.ts";

export interface TradeStepResult {
  /** The trade as it stands after the step (an accepted sale: pending). */
  trade: Trade;
  /** The outcome DM, when the step acted. */
  alert: NewAlert | undefined;
  /** The ordinary trade alert is replaced by the step's own. */
  replacesTradeAlert: boolean;
}

/** One user's step for one cycle (it may read what it needs once, when first asked). */
export type TradeStep = (trade: Trade, role: "buyer" | "seller") => Promise<TradeStepResult>;

/** Makes a user's step for a cycle. */
export type TradeStepFactory = (
  deps: { prisma: Db; logger: Logger; now: () => Date },
  api: MarketApi,
  userId: number,
) => TradeStep;

/** What every registered step did to one trade. */
export interface StepsResult {
  trade: Trade;
  alerts: NewAlert[];
  replacesTradeAlert: boolean;
}

/** The steps in the order registered: each reads the trade as the one before left it. */
export function chainSteps(
  steps: readonly TradeStep[],
): (trade: Trade, role: "buyer" | "seller") => Promise<StepsResult> {
  return async (trade, role) => {
    const out: StepsResult = { trade, alerts: [], replacesTradeAlert: false };
    for (const step of steps) {
      const next = await step(out.trade, role);
      out.trade = next.trade;
      if (next.alert !== undefined) out.alerts.push(next.alert);
      out.replacesTradeAlert ||= next.replacesTradeAlert;
    }
    return out;
  };
}

// What a sent auto-buy that did not answer 2xx means for the user: an outcome, why in words, and
// whether it spent (an unknown outcome stays counted) or must disarm. Plain data, no side effects.
import { isMarketError } from "../market/errors.ts";

export interface FailedPurchaseOutcome {
  outcome: "unknown" | "lost" | "key_refused" | "failed";
  detail: string;
  /** Counted as a buy (it may have gone through): the rule's claim is kept. */
  spent: boolean;
  /** The rule stops buying. */
  disarm: boolean;
  /** The key itself was refused (401): the account is marked revoked and every live rule disarmed. */
  revokeKey: boolean;
}

/** Live refusal code of a purchase whose total no longer matches (docs/live-service.md, as the sandbox). */
const PRICE_CHANGED = 15;

export function outcomeOfFailedPurchase(error: unknown): FailedPurchaseOutcome {
  const base = { spent: false, disarm: false, revokeKey: false };
  if (!isMarketError(error)) {
    return {
      ...base,
      outcome: "unknown",
      detail: "an error on our side after the request left; it stays counted until we know",
      spent: true,
    };
  }
  if (error.mayHaveSucceeded) {
    return {
      ...base,
      outcome: "unknown",
      detail: `the marketplace did not answer (${error.kind}); it stays counted against your caps and you will get a DM once we know`,
      spent: true,
    };
  }
  switch (error.kind) {
    case "stale_purchase":
      return {
        ...base,
        outcome: "lost",
        detail:
          error.code === PRICE_CHANGED
            ? "the price changed before the purchase went through"
            : "someone was faster: the listing sold before the purchase went through",
      };
    case "unauthorized":
      return {
        ...base,
        outcome: "key_refused",
        detail: "the marketplace refused your API key (401); every live rule is disarmed",
        disarm: true,
        revokeKey: true,
      };
    case "forbidden":
      return {
        ...base,
        outcome: "key_refused",
        detail: "the marketplace refused the purchase for this key (403): it may lack the permission to buy",
        disarm: true,
      };
    case "rate_limited":
      return {
        ...base,
        outcome: "failed",
        detail: "the marketplace was rate limiting us; nothing was bought",
      };
    default:
      return {
        ...base,
        outcome: "failed",
        detail: `the marketplace refused it${error.serviceMessage ? `: ${error.serviceMessage}` : ` (${error.kind})`}; nothing was bought`,
      };
  }
}

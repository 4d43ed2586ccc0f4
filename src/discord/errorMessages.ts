// The one mapping from expected failures to what the user reads. Unknown errors get no text here:
// the router logs them and shows a generic message with an error id.
import { UserFacingError, type UserFacingCode } from "../errors.ts";
import { MarketError } from "../market/errors.ts";
import { sanitise } from "./render/format.ts";
import type { Tone } from "./render/theme.ts";

export interface UserNotice {
  readonly tone: Extract<Tone, "warning" | "error">;
  readonly text: string;
  /** For logs and metrics: "user_error" (expected) or "market_error". */
  readonly outcome: "user_error" | "market_error";
  /** Stable code for logs, e.g. "not_linked" or "market:timeout". */
  readonly code: string;
}

/** Codes that describe the user's situation rather than a failure: shown as warnings. */
const WARNING_CODES: ReadonlySet<UserFacingCode> = new Set<UserFacingCode>([
  "invalid_input",
  "not_linked",
  "not_owner",
  "expired",
  "limit_reached",
  "spend_cap",
  "missing_permission",
  "rate_limited",
]);

export function userNoticeFor(error: unknown): UserNotice | undefined {
  if (error instanceof UserFacingError) {
    return {
      tone: WARNING_CODES.has(error.code) ? "warning" : "error",
      text: error.userMessage,
      outcome: "user_error",
      code: error.code,
    };
  }
  if (error instanceof MarketError) {
    return {
      tone: "error",
      text: marketErrorText(error),
      outcome: "market_error",
      code: `market:${error.kind}`,
    };
  }
  return undefined;
}

export function marketErrorText(error: MarketError): string {
  const maybe = error.mayHaveSucceeded ? " It may still have gone through: check before trying again." : "";
  switch (error.kind) {
    case "unauthorized":
      return "Your marketplace key was rejected — it may have been revoked. Run `/account link` again with a new key.";
    case "forbidden":
      return "The marketplace refused access to that (it may be private or not available to your account).";
    case "not_found":
      return "The marketplace could not find that — it may have been sold, removed or mistyped.";
    case "offers_disabled":
      return "The seller does not accept offers on this listing.";
    case "stale_purchase":
      return "The price changed or the listing sold before the purchase went through; nothing was bought.";
    case "bad_request": {
      const said = error.serviceMessage ? sanitise(error.serviceMessage, 300) : "";
      return said === ""
        ? "The marketplace refused the request as invalid."
        : `The marketplace refused the request: “${said}”`;
    }
    case "rate_limited": {
      const seconds =
        error.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
      return seconds === undefined
        ? "The marketplace is rate limiting requests; try again in a moment."
        : `The marketplace is rate limiting requests; try again in ${seconds} s.`;
    }
    case "upstream":
      return `The marketplace is having trouble right now${error.status ? ` (status ${error.status})` : ""}; try again in a minute.${maybe}`;
    case "timeout":
      return error.mayHaveSucceeded
        ? "The marketplace did not answer in time and nothing was retried. It may still have gone through: check before trying again."
        : error.endpoint.startsWith("GET ")
          ? "The marketplace did not answer in time, even after retrying. Try again in a moment."
          : "The marketplace did not answer in time; the request did not go through. Try again in a moment.";
    case "network":
      return `The bot could not reach the marketplace; try again shortly.${maybe}`;
    case "invalid_response":
      return "The marketplace sent an answer the bot could not read. It has been logged; try again later.";
    case "invalid_argument":
      return "That request could not be sent to the marketplace: one of the values is not accepted.";
    case "contract_drift":
      return "Paused for safety: the marketplace changed how it reports prices, and the bot will not guess what an amount means. Nothing was sent. The operator has been alerted; try again once they have checked.";
  }
}

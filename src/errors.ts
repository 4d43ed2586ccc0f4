// Typed outcomes a user should read: thrown by input parsing and domain verbs, rendered
// by the Discord router as a clear ephemeral message. Anything else is a bug (logged, error id).

export type UserFacingCode =
  | "invalid_input"
  | "not_linked"
  | "key_revoked"
  | "not_owner"
  | "expired"
  | "not_found"
  | "forbidden"
  | "conflict"
  | "limit_reached"
  | "spend_cap"
  | "price_changed"
  | "already_sold"
  | "offers_disabled"
  | "rate_limited"
  | "upstream"
  | "timeout"
  | "missing_permission"
  | "unknown_outcome";

export class UserFacingError extends Error {
  override readonly name = "UserFacingError";
  constructor(
    readonly code: UserFacingCode,
    /** Plain text for the user: what happened and what to do. Never includes secrets. */
    readonly userMessage: string,
    /** Structured context for logs (never shown). */
    readonly context: Record<string, unknown> = {},
  ) {
    super(userMessage);
  }
}

/** An option the user typed was invalid; the message names the option. */
export function invalidOption(option: string, problem: string): UserFacingError {
  return new UserFacingError("invalid_input", `\`${option}\`: ${problem}`, { option });
}

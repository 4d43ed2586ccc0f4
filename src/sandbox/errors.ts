// Typed sandbox failures: each carries the HTTP status and the `{code, message}` body the live service sends.

/** Error codes of the sandbox's `{code, message}` bodies (documented in README.md). */
export const ErrorCode = {
  badRequest: 1,
  unauthorized: 2,
  forbidden: 3,
  /** The live service uses 4 for "offers disabled" and for "listing no longer available". */
  offersDisabled: 4,
  unavailable: 4,
  notFound: 5,
  stalePrice: 6,
  insufficientBalance: 7,
  invalidState: 8,
  rateLimited: 9,
  internal: 10,
  notOwner: 11,
  /** A Go client's constant for "the price changed" on a purchase (answered 422). */
  priceChanged: 15,
} as const;

export class SandboxError extends Error {
  override readonly name = "SandboxError";
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code: number = ErrorCode.badRequest): SandboxError =>
  new SandboxError(400, code, message);
export const notFound = (what: string): SandboxError =>
  new SandboxError(404, ErrorCode.notFound, `${what} not found`);
export const unauthorized = (
  message = "a valid API key is required in the Authorization header",
): SandboxError => new SandboxError(401, ErrorCode.unauthorized, message);
export const forbidden = (message: string): SandboxError =>
  new SandboxError(403, ErrorCode.forbidden, message);

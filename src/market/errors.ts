// Typed failures of marketplace calls: callers branch on `kind`, never on message text.

export type MarketErrorKind =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "offers_disabled"
  | "stale_purchase"
  | "bad_request"
  | "rate_limited"
  | "upstream"
  | "timeout"
  | "network"
  | "invalid_response"
  | "invalid_argument"
  /** Refused before sending: an amount this action spends from may have changed meaning live. */
  | "contract_drift";

export interface MarketErrorInit {
  kind: MarketErrorKind;
  /** Endpoint template such as "GET /listings/{listing_id}"; never a concrete URL. */
  endpoint: string;
  status?: number | undefined;
  /** The service's numeric error code from its `{ code, message }` body. */
  code?: number | undefined;
  /** The service's own message, worth showing for 400s (e.g. payout onboarding incomplete). */
  serviceMessage?: string | undefined;
  retryAfterMs?: number | undefined;
  /** For invalid_response / invalid_argument: where the data broke the schema. */
  zodPath?: readonly PropertyKey[] | undefined;
  /**
   * True when a write may have been applied although we saw no success (timeout or lost
   * connection after sending, or a 5xx): callers must re-read before telling the user.
   */
  mayHaveSucceeded?: boolean | undefined;
  /** Short detail for logs; must never contain a key or header. */
  detail?: string | undefined;
  cause?: Error | undefined;
}

export class MarketError extends Error {
  override readonly name = "MarketError";
  readonly kind: MarketErrorKind;
  readonly endpoint: string;
  readonly status: number | undefined;
  readonly code: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly zodPath: readonly PropertyKey[] | undefined;
  readonly mayHaveSucceeded: boolean;

  constructor(init: MarketErrorInit) {
    const parts = [`${init.endpoint}: ${init.kind}`];
    if (init.status !== undefined) parts.push(`status ${init.status}`);
    if (init.code !== undefined) parts.push(`code ${init.code}`);
    if (init.zodPath !== undefined) parts.push(`at ${formatPath(init.zodPath)}`);
    if (init.detail !== undefined) parts.push(init.detail);
    super(parts.join(", "), init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.code = init.code;
    this.serviceMessage = init.serviceMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.zodPath = init.zodPath;
    this.mayHaveSucceeded = init.mayHaveSucceeded ?? false;
  }
}

export function isMarketError(error: unknown, kind?: MarketErrorKind): error is MarketError {
  return error instanceof MarketError && (kind === undefined || error.kind === kind);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

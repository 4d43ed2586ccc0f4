// Retry delays for idempotent reads: exponential backoff with full jitter, so that many callers
// failing together do not come back together.

export interface BackoffOptions {
  /** Delay ceiling of the first retry; doubles with each further attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (0 for the first retry): uniform in [0, min(max, base * 2^retry)).
 * `random` is injectable so the math can be tested without timers.
 */
export function backoffDelayMs(
  retry: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, retry));
  return Math.floor(random() * ceiling);
}

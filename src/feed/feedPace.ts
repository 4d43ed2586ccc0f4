// The feed's pace: the pause before the next cycle, from the key's reported budget and the
// address's spacing, and after failures from backoff or, through an outage, quick probes (ADR 023).
import { backoffDelayMs } from "../market/backoff.ts";
import type { RateLimitState } from "../market/rateLimit.ts";

/** The poller's settings the pace depends on, defaults already applied. */
export interface FeedPaceSettings {
  /** The nominal pause between cycles (POLL_INTERVAL_MS). */
  intervalMs: number;
  minIntervalMs: number;
  maxIntervalMs: number;
  failureProbeMs: number;
  /** Requests kept back from the budget for the rest of the bot sharing the key. */
  reserve: number;
  addressSpacingMs?: (() => number) | undefined;
  random?: (() => number) | undefined;
}

/** How the last cycles failed, as the poller counted them. */
export interface FeedFailures {
  consecutiveFailures: number;
  /** Whether the last failure was an outage that may end any moment (then the feed keeps probing). */
  outage: boolean;
  retryAfterMs: number | undefined;
}

/**
 * Spreads the remaining budget over the time left in the window: with plenty left, poll
 * faster than the nominal interval (down to minIntervalMs); with little left, slower; with
 * none, wait for the reset instead of collecting a 429. Never below the address's spacing.
 */
export function feedPace(
  settings: FeedPaceSettings,
  budget: RateLimitState | undefined,
  lastPages: number,
  now: () => number,
): number {
  return Math.max(keyPace(settings, budget, lastPages, now), settings.addressSpacingMs?.() ?? 0);
}

function keyPace(
  settings: FeedPaceSettings,
  state: RateLimitState | undefined,
  lastPages: number,
  now: () => number,
): number {
  const { intervalMs, minIntervalMs, maxIntervalMs, reserve } = settings;
  if (state === undefined || state.remaining === undefined || state.resetAt === undefined) {
    return intervalMs;
  }
  const untilReset = Math.max(0, state.resetAt - now());
  if (Math.floor((state.remaining - reserve) / lastPages) < 1)
    return Math.min(maxIntervalMs, untilReset + 100);
  // Spread over every request left, the reserve included: the last of them then falls at the
  // reset, on the new window's budget, so the reserve stays for the rest of the bot while the
  // feed reads at the budget's full rate (one read every window / limit).
  const cyclesLeft = Math.floor(state.remaining / lastPages);
  const spread = untilReset / cyclesLeft;
  return Math.round(Math.min(maxIntervalMs, Math.max(minIntervalMs, spread)));
}

/** The pause after a failed cycle; `pace` is read only when an outage keeps the feed probing. */
export function failureDelay(settings: FeedPaceSettings, failures: FeedFailures, pace: () => number): number {
  // Exponential backoff with jitter, but never sooner than the service asked.
  const backoff =
    settings.intervalMs +
    backoffDelayMs(
      failures.consecutiveFailures - 1,
      {
        baseDelayMs: settings.intervalMs,
        maxDelayMs: settings.maxIntervalMs,
      },
      settings.random,
    );
  // An outage (5xx, timeouts, lost connections) may end any moment: probing at about the
  // normal pace costs the service no more than a healthy feed and shows the recovery within
  // seconds. A rate limit is the service asking for room, and a refused key or request will
  // not mend by itself: those back off fully (ADR 023).
  if (failures.outage) return Math.max(Math.min(backoff, settings.failureProbeMs), pace());
  return Math.min(settings.maxIntervalMs, Math.max(backoff, failures.retryAfterMs ?? 0));
}

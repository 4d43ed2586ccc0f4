// Per-(key, endpoint) rate-limit buckets fed by response headers, and the gate that makes callers
// wait for the window to reset instead of collecting a 429 the client could have avoided.
import { createHash } from "node:crypto";
import { MarketError } from "./errors.ts";

export interface RateLimitState {
  limit: number | undefined;
  /** Requests left in the current window, minus those we have in flight. */
  remaining: number | undefined;
  /** Epoch milliseconds when the window resets. */
  resetAt: number | undefined;
}

/** What one response told us about the budget. */
export interface RateLimitObservation {
  limit?: number | undefined;
  remaining?: number | undefined;
  resetAt?: number | undefined;
  /** Set for 429 answers: how long the service asked us to stay away. */
  retryAfterMs?: number | undefined;
}

interface Bucket {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: number | undefined;
  /** Until then a 429's Retry-After rules: answers to requests sent earlier cannot reopen the bucket. */
  retryUntil: number;
  inFlight: number;
  readonly waiters: Set<() => void>;
}

export interface Permit {
  /** Time spent waiting for the budget before this request could go. */
  readonly waitedMs: number;
  /** Call exactly once when the answer (or failure) arrived; record the headers first. */
  release(observation?: RateLimitObservation): void;
}

/** Headers give the reset in whole seconds; a small margin keeps us from arriving early. */
const RESET_MARGIN_MS = 100;
/** With a 429 and no hint at all, stay away this long before trying again. */
const DEFAULT_RETRY_AFTER_MS = 1000;
const MAX_BUCKETS = 2000;

/**
 * Keys are hashed so that raw API keys never become long-lived map keys. Not a security
 * boundary, only hygiene: anyone who can read process memory can read the keys anyway.
 */
export function keyFingerprint(key: string | undefined): string {
  if (key === undefined) return "anonymous";
  return createHash("sha256").update(key).digest("hex").slice(0, 24);
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxWaitMs: number;
  readonly #now: () => number;

  constructor(opts: { maxWaitMs: number; now?: () => number }) {
    this.#maxWaitMs = opts.maxWaitMs;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Waits until the bucket allows one more request, then reserves it. Throws rate_limited
   * without waiting when the wait would exceed maxWaitMs.
   */
  async acquire(fingerprint: string, endpoint: string): Promise<Permit> {
    const bucket = this.#bucket(fingerprint, endpoint);
    const start = this.#now();
    for (;;) {
      const now = this.#now();
      const windowOpen = bucket.resetAt === undefined || now >= bucket.resetAt + RESET_MARGIN_MS;
      const known = bucket.remaining !== undefined && bucket.resetAt !== undefined;
      // After a reset the new window's budget is unknown until an answer arrives: assume the
      // last limit, but let a single probe through after a 429 or when no limit was ever reported.
      const afterRefusal = bucket.resetAt === bucket.retryUntil;
      const budget = !known
        ? Infinity
        : windowOpen
          ? afterRefusal
            ? 1
            : Math.max(1, bucket.limit ?? 1)
          : (bucket.remaining ?? 0);
      if (budget - bucket.inFlight > 0) {
        bucket.inFlight += 1;
        return this.#permit(bucket, now - start);
      }
      const untilReset = windowOpen ? undefined : (bucket.resetAt ?? now) + RESET_MARGIN_MS - now;
      if (untilReset !== undefined && now - start + untilReset > this.#maxWaitMs) {
        throw new MarketError({
          kind: "rate_limited",
          endpoint,
          retryAfterMs: untilReset,
          detail: "budget exhausted and the reset is further away than the wait limit",
        });
      }
      // Wake on the reset, or earlier when an in-flight request returns with fresher headers.
      await this.#wait(bucket, bucket.inFlight > 0 ? untilReset : (untilReset ?? 0));
    }
  }

  /** The budget as last reported, for callers that pace themselves (the feed poller). */
  state(fingerprint: string, endpoint: string): RateLimitState | undefined {
    const bucket = this.#buckets.get(`${fingerprint} ${endpoint}`);
    if (bucket === undefined || (bucket.remaining === undefined && bucket.limit === undefined)) {
      return undefined;
    }
    const now = this.#now();
    const expired = bucket.resetAt !== undefined && now >= bucket.resetAt;
    const remaining = expired ? bucket.limit : bucket.remaining;
    return {
      limit: bucket.limit,
      remaining: remaining === undefined ? undefined : Math.max(0, remaining - bucket.inFlight),
      resetAt: expired ? undefined : bucket.resetAt,
    };
  }

  #permit(bucket: Bucket, waitedMs: number): Permit {
    let released = false;
    return {
      waitedMs,
      release: (observation) => {
        if (released) return;
        released = true;
        if (observation !== undefined) this.#observe(bucket, observation);
        bucket.inFlight -= 1;
        this.#notify(bucket);
      },
    };
  }

  #observe(bucket: Bucket, o: RateLimitObservation): void {
    const now = this.#now();
    if (o.limit !== undefined) bucket.limit = o.limit;
    if (o.retryAfterMs !== undefined) {
      // A 429 is the service's latest word: closed until Retry-After (which readRateLimitHeaders
      // already derived from the reset when absent), whatever window we believed in before.
      bucket.remaining = 0;
      bucket.resetAt = now + o.retryAfterMs;
      bucket.retryUntil = bucket.resetAt;
      return;
    }
    if (now < bucket.retryUntil) return;
    if (o.remaining === undefined) {
      // The refusal is over and the answer reports no budget: back to "unknown", not one-at-a-time.
      if (bucket.retryUntil > 0)
        Object.assign(bucket, { remaining: undefined, resetAt: undefined, retryUntil: 0 });
      return;
    }
    const resetAt = o.resetAt ?? now + DEFAULT_RETRY_AFTER_MS;
    if (bucket.resetAt !== undefined && resetAt < bucket.resetAt) return; // a late answer from an older window
    if (bucket.resetAt === resetAt && bucket.remaining !== undefined) {
      // Same window: answers may arrive out of order, and the budget only shrinks within it.
      bucket.remaining = Math.min(bucket.remaining, o.remaining);
    } else {
      bucket.remaining = o.remaining;
      bucket.resetAt = resetAt;
    }
  }

  #wait(bucket: Bucket, ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        bucket.waiters.delete(done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, Math.max(0, ms));
      bucket.waiters.add(done);
    });
  }

  #notify(bucket: Bucket): void {
    for (const waiter of [...bucket.waiters]) waiter();
  }

  #bucket(fingerprint: string, endpoint: string): Bucket {
    const id = `${fingerprint} ${endpoint}`;
    let bucket = this.#buckets.get(id);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#prune();
      bucket = {
        limit: undefined,
        remaining: undefined,
        resetAt: undefined,
        retryUntil: 0,
        inFlight: 0,
        waiters: new Set(),
      };
      this.#buckets.set(id, bucket);
    }
    return bucket;
  }

  /** Forgets idle buckets whose window is over: they would tell us nothing anyway. */
  #prune(): void {
    const now = this.#now();
    for (const [id, b] of this.#buckets) {
      if (b.inFlight === 0 && b.waiters.size === 0 && (b.resetAt === undefined || b.resetAt <= now)) {
        this.#buckets.delete(id);
      }
    }
  }
}

type HeaderValue = string | string[] | undefined;

function firstNumber(value: HeaderValue): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  const n = Number(text.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Retry-After is seconds, or an HTTP date (RFC 9110); both are accepted. */
export function parseRetryAfterMs(value: HeaderValue, now: number): number | undefined {
  const seconds = firstNumber(value);
  if (seconds !== undefined) return seconds * 1000;
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Reads X-RateLimit-Limit/Remaining/Reset (reset: unix seconds) and, for 429, Retry-After.
 * A reset small enough to be a duration rather than a date is read as seconds from now,
 * because the spec leaves its meaning open.
 */
export function readRateLimitHeaders(
  headers: Readonly<Record<string, HeaderValue>>,
  status: number,
  now: number,
): RateLimitObservation {
  const reset = firstNumber(headers["x-ratelimit-reset"]);
  const resetAt = reset === undefined ? undefined : reset < 1e9 ? now + reset * 1000 : reset * 1000;
  const observation: RateLimitObservation = {
    limit: firstNumber(headers["x-ratelimit-limit"]),
    remaining: firstNumber(headers["x-ratelimit-remaining"]),
    resetAt,
  };
  if (status === 429) {
    const retryAfter = parseRetryAfterMs(headers["retry-after"], now);
    observation.retryAfterMs =
      retryAfter ?? (resetAt !== undefined ? Math.max(0, resetAt - now) : DEFAULT_RETRY_AFTER_MS);
  }
  return observation;
}

// Fixed-window rate limits per (API key or client address) and endpoint, reported in X-RateLimit-* headers.

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 1000, windowMs: 60_000 };

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

interface Window {
  start: number;
  used: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  /** `enforce: false` counts and reports but never refuses. */
  constructor(
    private readonly opts: RateLimitOptions,
    private readonly enforce: boolean,
  ) {}

  take(bucket: string, now: number): RateDecision {
    let w = this.windows.get(bucket);
    if (!w || now >= w.start + this.opts.windowMs) {
      w = { start: now, used: 0 };
      this.windows.set(bucket, w);
      if (this.windows.size > 50_000) this.prune(now);
    }
    const resetMs = w.start + this.opts.windowMs;
    const allowed = !this.enforce || w.used < this.opts.limit;
    if (allowed) w.used += 1;
    const remaining = Math.max(0, this.opts.limit - w.used);
    return {
      allowed,
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      headers: {
        "X-RateLimit-Limit": String(this.opts.limit),
        "X-RateLimit-Remaining": String(remaining),
        // A unix time in seconds, as the live service sends.
        "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
      },
    };
  }

  /** Headers for an answer that did not consume budget (e.g. an injected 429). */
  exhausted(now: number, retryAfterSeconds: number): Record<string, string> {
    return {
      "X-RateLimit-Limit": String(this.opts.limit),
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.ceil(now / 1000) + retryAfterSeconds),
    };
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + this.opts.windowMs) this.windows.delete(k);
  }
}

/**
 * The per-address budget the live service also keeps ("over a window of a few minutes", every
 * key together; docs/live-service.md): a sliding window per client address, reported by no header, only by
 * 429s with Retry-After. Off unless asked for (`addressRateLimit`).
 */
export class AddressLimiter {
  private readonly sent = new Map<string, number[]>();

  constructor(private readonly opts: RateLimitOptions) {}

  /** Undefined when allowed (and counted); else the seconds until the oldest request leaves the window. */
  take(address: string, now: number): number | undefined {
    const from = now - this.opts.windowMs;
    let log = this.sent.get(address);
    if (!log) {
      log = [];
      this.sent.set(address, log);
    }
    while (log.length > 0 && (log[0] as number) <= from) log.shift();
    if (log.length >= this.opts.limit) {
      return Math.max(1, Math.ceil(((log[0] as number) + this.opts.windowMs - now) / 1000));
    }
    log.push(now);
    return undefined;
  }
}

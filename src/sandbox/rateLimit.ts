// Fixed-window rate limits per (API key or client address) and endpoint, reported in X-RateLimit-*
// headers; the budgets of the two named profiles: "live" (the default) and "roomy".

export interface RouteBudget {
  limit: number;
  windowMs: number;
}

/** A budget per route; `routes` (keyed "GET /listings", by template) override it route by route. */
export interface RateLimitOptions extends RouteBudget {
  routes?: Readonly<Record<string, RouteBudget>>;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * As recorded live (docs/live-service.md): `GET /listings` 200 an hour with its reset an hour
 * ahead, `GET /listings/{listing_id}` 50,000 with its reset about 15 hours ahead. No other route's
 * budget was recorded: 1,000 an hour each is a choice within the reported range.
 */
export const LIVE_RATE_LIMIT: RateLimitOptions = {
  limit: 1_000,
  windowMs: HOUR,
  routes: {
    "GET /listings": { limit: 200, windowMs: HOUR },
    "GET /listings/{listing_id}": { limit: 50_000, windowMs: 15 * HOUR },
  },
};
/** The live per-address budget, every key together, "over a window of a few minutes": a choice. */
export const LIVE_ADDRESS_RATE_LIMIT: RouteBudget = { limit: 1_500, windowMs: 5 * MINUTE };

/** Far above what a test or the playground sends: 1,000 a minute on every route, no address budget. */
export const ROOMY_RATE_LIMIT: RateLimitOptions = { limit: 1_000, windowMs: MINUTE };

export const RATE_LIMIT_PROFILES = {
  live: { perKey: LIVE_RATE_LIMIT, perAddress: LIVE_ADDRESS_RATE_LIMIT },
  roomy: { perKey: ROOMY_RATE_LIMIT, perAddress: undefined },
} as const satisfies Record<string, { perKey: RateLimitOptions; perAddress: RouteBudget | undefined }>;
export type RateLimitProfile = keyof typeof RATE_LIMIT_PROFILES;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

interface Window {
  start: number;
  used: number;
  windowMs: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  /** `enforce: false` counts and reports but never refuses. */
  constructor(
    private readonly opts: RateLimitOptions,
    private readonly enforce: boolean,
  ) {}

  /** The budget of a route ("GET /listings/{listing_id}"). */
  budget(route: string): RouteBudget {
    return this.opts.routes?.[route] ?? this.opts;
  }

  /** One request of `identity` (a key or an address) on `route` ("METHOD /template"). */
  take(identity: string, route: string, now: number): RateDecision {
    const budget = this.budget(route);
    const bucket = `${identity} ${route}`;
    let w = this.windows.get(bucket);
    if (!w || now >= w.start + w.windowMs) {
      w = { start: now, used: 0, windowMs: budget.windowMs };
      this.windows.set(bucket, w);
      if (this.windows.size > 50_000) this.prune(now);
    }
    const resetMs = w.start + w.windowMs;
    const allowed = !this.enforce || w.used < budget.limit;
    if (allowed) w.used += 1;
    const remaining = Math.max(0, budget.limit - w.used);
    return {
      allowed,
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      headers: {
        "X-RateLimit-Limit": String(budget.limit),
        "X-RateLimit-Remaining": String(remaining),
        // A unix time in seconds, as the live service sends.
        "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
      },
    };
  }

  /** Headers for an answer that did not consume budget (e.g. an injected 429). */
  exhausted(route: string, now: number, retryAfterSeconds: number): Record<string, string> {
    return {
      "X-RateLimit-Limit": String(this.budget(route).limit),
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.ceil(now / 1000) + retryAfterSeconds),
    };
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + w.windowMs) this.windows.delete(k);
  }
}

/**
 * The per-address budget the live service also keeps ("over a window of a few minutes", every
 * key together; docs/live-service.md): a sliding window per client address, reported by no header, only by
 * 429s with Retry-After. On in the live profile, or when asked for (`addressRateLimit`).
 */
export class AddressLimiter {
  private readonly sent = new Map<string, number[]>();

  constructor(private readonly opts: RouteBudget) {}

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

// Discord's rate limits as the local Discord applies them: a per-channel message budget with
// x-ratelimit-* headers, and the bot's global limit on every authenticated request.
import { DiscordApiFailure, rateLimited } from "./validation.ts";

export interface SendBudget {
  /** Messages per channel per window before 429. */
  readonly limit: number;
  readonly windowMs: number;
}

export interface GlobalLimit {
  /** Authenticated requests per second for the bot, all routes together. Discord: 50. */
  readonly perSecond: number;
}

/** Discord's global limit for a bot (docs: rate limits, "Global Rate Limit"). */
export const DISCORD_GLOBAL_LIMIT: GlobalLimit = { perSecond: 50 };

/** Headers-only budget when no send budget is configured: generous, never refused. */
const DEFAULT_HEADER_BUDGET: SendBudget = { limit: 1000, windowMs: 1000 };

/**
 * Counts a send against the channel's window and returns the x-ratelimit-* headers; throws a
 * 429 (scope user) when the configured budget is spent.
 */
export function channelSendBudget(
  budgetOf: () => SendBudget | undefined,
): (channelId: string) => Record<string, string> {
  const windows = new Map<string, { count: number; resetAt: number; budget: SendBudget }>();
  return (channelId) => {
    const budget = budgetOf();
    const current = budget ?? DEFAULT_HEADER_BUDGET;
    const { limit, windowMs } = current;
    const now = Date.now();
    let window = windows.get(channelId);
    // A new budget starts a fresh window: counts under the previous setting do not carry over.
    if (!window || now >= window.resetAt || window.budget !== current) {
      window = { count: 0, resetAt: now + windowMs, budget: current };
      windows.set(channelId, window);
    }
    const resetAfter = Math.max(0, window.resetAt - now) / 1000;
    const base = {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-reset": (window.resetAt / 1000).toFixed(3),
      "x-ratelimit-reset-after": resetAfter.toFixed(3),
      "x-ratelimit-bucket": `double-messages-${limit}`,
    };
    if (budget && window.count >= limit) {
      throw rateLimited(resetAfter, { ...base, "x-ratelimit-remaining": "0" });
    }
    window.count += 1;
    return { ...base, "x-ratelimit-remaining": String(Math.max(0, limit - window.count)) };
  };
}

/**
 * The bot's global limit with no allowance: no more than `perSecond` authenticated requests in
 * any one second, whatever its phase (a sliding window, the strictest shape Discord's undocumented
 * window can have, so a bot that passes here passes there). discord.js's own fixed windows are not
 * enough against it: the bot spaces its requests (src/discord/outbound/globalPacer.ts). Interaction
 * callbacks and webhooks carry no bot token and are not counted, as on Discord; a refused request
 * takes nothing. Over the limit: 429 with `global: true`, `X-RateLimit-Global: true`,
 * `X-RateLimit-Scope: global`, no per-route headers, and a `retry-after` until the oldest request
 * of the window leaves it.
 */
export function globalRequestLimit(limitOf: () => GlobalLimit | undefined): () => void {
  /** Times of the requests counted in the last second, oldest first. */
  let times: number[] = [];
  let limit: GlobalLimit | undefined;
  return () => {
    const current = limitOf();
    if (current === undefined) return;
    const now = performance.now();
    // A new setting starts afresh.
    if (current !== limit) {
      limit = current;
      times = [];
    }
    while (times.length > 0 && now - (times[0] as number) >= WINDOW_MS) times.shift();
    if (times.length >= current.perSecond) {
      throw globallyRateLimited(((times[0] as number) + WINDOW_MS - now) / 1000);
    }
    times.push(now);
  };
}

const WINDOW_MS = 1000;

function globallyRateLimited(retryAfterSeconds: number): DiscordApiFailure {
  const seconds = Math.max(0.001, retryAfterSeconds);
  return new DiscordApiFailure(
    429,
    0,
    "You are being rate limited.",
    undefined,
    {
      "retry-after": seconds.toFixed(3),
      "x-ratelimit-global": "true",
      "x-ratelimit-scope": "global",
    },
    { retry_after: seconds, global: true },
  );
}

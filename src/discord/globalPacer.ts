// Keeps the bot's authenticated requests under Discord's global limit by spacing them, so no
// window of any shape or phase ever sees more than the limit: discord.js's own limiter counts
// fixed one-second windows by the bot's clock, and two of those can put twice the limit inside one
// second as Discord counts it. Interaction callbacks and webhooks carry no bot token and are not
// bound by the global limit: they are never held here (an acknowledgement never waits behind a
// fan-out).
/** What the pacer reads of a request: discord.js's `makeRequest` init (undici's RequestInit). */
interface RequestInit {
  headers?: unknown;
}

export interface GlobalPacerOptions {
  /** The bot's share of Discord's global limit, requests per second (DISCORD_REQUESTS_PER_SECOND). */
  readonly perSecond: number;
  /**
   * Requests per second kept in hand under that share, for timers that fire late and requests
   * that arrive closer together than they left. Default 2 (at 50: one request every 20.8 ms).
   */
  readonly marginPerSecond?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface GlobalPacer {
  /** Resolves when a request with a bot token may leave; at once for one without. */
  slot(init: Pick<RequestInit, "headers">): Promise<void>;
  /** The least time between two authenticated requests, ms. */
  readonly spacingMs: number;
}

function hasBotToken(headers: unknown): boolean {
  if (headers === undefined || headers === null) return false;
  if (Array.isArray(headers)) return headers.some(([k]) => String(k).toLowerCase() === "authorization");
  if (typeof (headers as { has?: unknown }).has === "function")
    return (headers as { has(name: string): boolean }).has("authorization");
  return Object.keys(headers as Record<string, unknown>).some((k) => k.toLowerCase() === "authorization");
}

export function createGlobalPacer(opts: GlobalPacerOptions): GlobalPacer {
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const rate = Math.max(1, opts.perSecond - (opts.marginPerSecond ?? 2));
  const spacingMs = 1000 / rate;
  /** When the last authenticated request left. */
  let last = -Infinity;
  /** The line: each request waits for the one before it to leave, then one spacing more. */
  let tail: Promise<void> = Promise.resolve();
  return {
    spacingMs,
    slot(init) {
      if (!hasBotToken(init.headers)) return Promise.resolve();
      const turn = tail.then(async () => {
        // Measured from when the last one really left, so a late timer never bunches two.
        for (let wait = last + spacingMs - now(); wait > 0; wait = last + spacingMs - now())
          await sleep(wait);
        last = now();
      });
      tail = turn;
      return turn;
    },
  };
}

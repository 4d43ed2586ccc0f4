// Keeps the bot's authenticated requests under Discord's global limit in every second, whatever
// its phase: discord.js's own limiter counts fixed one-second windows by the bot's clock, and two
// of those can put twice the limit inside one second as Discord counts it. Here a request leaves
// only while fewer than the limit (less a margin) left in the last second and a little more, so
// a burst still leaves at once (the alerts of one listing are not spaced out) and a long fan-out
// runs just under the limit. Interaction callbacks and webhooks carry no bot token and are not
// bound by the global limit: they are never held here (an acknowledgement never waits behind a
// fan-out).

export interface GlobalPacerOptions {
  /** The bot's share of Discord's global limit, requests per second (DISCORD_REQUESTS_PER_SECOND). */
  readonly perSecond: number;
  /**
   * Requests per second kept in hand under that share, for requests that arrive closer together
   * than they left. Default 2.
   */
  readonly marginPerSecond?: number;
  /** How much longer than a second the window is kept, for timers and clocks. Default 25 ms. */
  readonly guardMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface GlobalPacer {
  /** Resolves when a request with a bot token may leave; at once for one without. */
  slot(init: { headers?: unknown }): Promise<void>;
  /** Authenticated requests that may leave in any window. */
  readonly limit: number;
  /** The window, ms: a second and the guard. */
  readonly windowMs: number;
}

function hasBotToken(headers: unknown): boolean {
  if (headers === undefined || headers === null) return false;
  if (Array.isArray(headers))
    return headers.some((h) => String((h as unknown[])[0]).toLowerCase() === "authorization");
  if (typeof (headers as { has?: unknown }).has === "function")
    return (headers as { has(name: string): boolean }).has("authorization");
  return Object.keys(headers as Record<string, unknown>).some((k) => k.toLowerCase() === "authorization");
}

export function createGlobalPacer(opts: GlobalPacerOptions): GlobalPacer {
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const limit = Math.max(1, opts.perSecond - (opts.marginPerSecond ?? 2));
  const windowMs = 1000 + (opts.guardMs ?? 25);
  /** When the authenticated requests of the current window left, oldest first. */
  const left: number[] = [];
  /** The line: requests leave in the order they asked. */
  let tail: Promise<void> = Promise.resolve();
  return {
    limit,
    windowMs,
    slot(init) {
      if (!hasBotToken(init.headers)) return Promise.resolve();
      const turn = tail.then(async () => {
        for (;;) {
          const t = now();
          while (left.length > 0 && t - (left[0] as number) >= windowMs) left.shift();
          if (left.length < limit) {
            left.push(t);
            return;
          }
          await sleep((left[0] as number) + windowMs - t);
        }
      });
      tail = turn;
      return turn;
    },
  };
}

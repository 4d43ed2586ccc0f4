// Keeps the bot's authenticated requests under Discord's global limit in every second, whatever
// its phase: discord.js's own limiter counts fixed one-second windows by the bot's clock, and two
// of those can put twice the limit inside one second as Discord counts it. Here a request leaves
// only while fewer than the limit (less a margin) left in the last second and a little more. A
// burst of up to half that leaves at once (the alerts of one listing are not spaced out); past
// it, requests leave evenly spaced, a window's share spread over the window, so a long fan-out
// runs just under the limit without bunching: a request that reaches Discord late (the network,
// a busy event loop) then meets a second of evenly spaced ones, not the tail of one burst and the
// head of the next (ADR 044). Interaction callbacks and webhooks carry no bot token and are not
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
  /** Requests that may leave at once after a quiet spell; past them, one every window / limit. */
  readonly burst: number;
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
  const burst = Math.max(1, Math.ceil(limit / 2));
  const spacingMs = windowMs / limit;
  /**
   * When the authenticated requests of the current window were due, oldest first. A request that
   * left late (its timer fired late) counts from when it was due, so lateness does not slow a
   * fan-out down request after request; never more than a spacing earlier than it left, which
   * the window's guard covers.
   */
  const left: number[] = [];
  /** When the next request past the burst is due: a spacing after the last one was due. */
  let nextDue = 0;
  /** The line: requests leave in the order they asked. */
  let tail: Promise<void> = Promise.resolve();
  return {
    limit,
    windowMs,
    burst,
    slot(init) {
      if (!hasBotToken(init.headers)) return Promise.resolve();
      const turn = tail.then(async () => {
        /** When this request last asked to leave, if it had to wait: a timer may wake it late. */
        let waitedFor: number | undefined;
        for (;;) {
          const t = now();
          while (left.length > 0 && t - (left[0] as number) >= windowMs) left.shift();
          // Within the burst: now. Past it: a spacing after the last was due. Full: not before
          // the oldest leaves the window.
          const spaced = left.length < burst ? t : nextDue;
          const at = left.length < limit ? spaced : Math.max(spaced, (left[0] as number) + windowMs);
          if (at <= t) {
            // Woken late: counted from when it was due (at most a spacing back, so a stalled
            // event loop lets one more leave at once, not a run). Not waiting at all (the line
            // was idle): from now. Nothing else leaves while it waits, so `at` only moved earlier.
            const due = waitedFor === undefined ? t : Math.max(waitedFor, t - spacingMs);
            left.push(due);
            nextDue = due + spacingMs;
            return;
          }
          waitedFor = at;
          await sleep(at - t);
        }
      });
      tail = turn;
      return turn;
    },
  };
}

// The one gate every marketplace request passes on its way out of this address: a sliding-window
// budget for the address (configured, or learned from 429s that hit several keys at once) shared
// by priority. A user waiting on a command goes first, then money actions, trade deadlines, the
// shared feed, per-user background polls and backfill; lower priorities may not use the headroom
// kept for higher ones, so background work stretches to what is left and never delays the rest.
// Per-key budgets stay with RateLimiter (rateLimit.ts), which reads them from each answer.
// Why no library: docs/decisions/015-request-scheduler.md.

export const PRIORITIES = ["command", "money", "deadline", "feed", "background", "backfill"] as const;
export type Priority = (typeof PRIORITIES)[number];

const RANK: Record<Priority, number> = {
  command: 0,
  money: 1,
  deadline: 2,
  feed: 3,
  background: 4,
  backfill: 5,
};

/**
 * Share of the window each priority may fill, counting everything already sent. Whatever the
 * lower priorities do, the feed always has 25% of the window (from 55% to 80%), money actions 10%
 * more and people waiting on commands the last 10%; deadline polls may go to 55%, background
 * polls to 45%. Deadline polls (a sale waiting on its seller, a deadline within the hour) may
 * also use what of the feed's 25% the feed itself already sent in the window (deadlineCeiling).
 */
const CEILING: Record<Priority, number> = {
  command: 1,
  money: 0.9,
  deadline: 0.55,
  feed: 0.8,
  background: 0.45,
  backfill: 0.25,
};

/** However busy the window, background pollers plan with at least this share of it. */
const MIN_PLANNING_SHARE = 0.05;

export interface AddressBudget {
  /** Requests per window from this address, all keys together. */
  limit: number;
  windowMs: number;
}

export interface SchedulerStats {
  budget: AddressBudget | undefined;
  /** Where the budget came from. */
  source: "configured" | "learned" | "none";
  sentInWindow: number;
  waiting: Record<Priority, number>;
  /** Sent per priority since start. */
  sent: Record<Priority, number>;
  /** 429s that looked address-wide (several keys refused together). */
  addressRefusals: number;
  heldUntil: number | undefined;
}

export interface Scheduler {
  /** Resolves when a request of this priority may leave; counts it as sent from then. */
  admit(priority: Priority): Promise<void>;
  /**
   * A 429 for this key (hashed): several keys refused together teach the address budget. A
   * refusal whose headers say the key itself had no budget left (`keyExhausted`) is the key's
   * own limit and teaches nothing about the address.
   */
  refused(fingerprint: string, retryAfterMs: number | undefined, opts?: { keyExhausted?: boolean }): void;
  /**
   * Requests per second this priority can count on now (Infinity while no budget is known):
   * background pollers size their cycles with it.
   */
  rateFor(priority: Priority): number;
  /**
   * The shortest spacing the feed may poll at (0 while no budget is known): its own share of the
   * window, the 25% between the deadline and feed ceilings, so that however much budget its key
   * has, the feed never eats what background polls and people need.
   */
  feedSpacingMs(): number;
  stats(): SchedulerStats;
}

export interface SchedulerOptions {
  /** Configured budget (MARKET_ADDRESS_BUDGET); without one, the budget is learned from 429s. */
  budget?: AddressBudget | undefined;
  /** Window assumed for a learned budget (the live one is "a few minutes"). Default 5 minutes. */
  learnedWindowMs?: number;
  /** 429s from different keys within this long count as one address-wide refusal. Default 2 s. */
  coincidenceMs?: number;
  now?: () => number;
}

interface Waiter {
  priority: Priority;
  seq: number;
  resolve: () => void;
}

export function createScheduler(opts: SchedulerOptions = {}): Scheduler {
  const now = opts.now ?? Date.now;
  const learnedWindowMs = opts.learnedWindowMs ?? 5 * 60_000;
  const coincidenceMs = opts.coincidenceMs ?? 2000;
  let budget = opts.budget;
  let source: SchedulerStats["source"] = budget ? "configured" : "none";
  /** Send times within the longest window we may need, oldest first, and each one's priority rank. */
  const sentAt: number[] = [];
  const sentRank: number[] = [];
  let head = 0;
  const waiting: Waiter[] = [];
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let heldUntil = 0;
  let addressRefusals = 0;
  const recent429 = new Map<string, number>();
  /** When 429s arrived: refused requests went out but did not count on the server's side. */
  const refusedAt: number[] = [];
  const sent = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<Priority, number>;

  function prune(t: number): void {
    const keep = Math.max(budget?.windowMs ?? 0, learnedWindowMs);
    while (head < sentAt.length && (sentAt[head] as number) <= t - keep) head += 1;
    if (head > 1024 && head * 2 > sentAt.length) {
      sentAt.splice(0, head);
      sentRank.splice(0, head);
      head = 0;
    }
  }

  /**
   * A send counts a little longer than the window: the server saw it a moment after we did, and a
   * request admitted the very millisecond the oldest leaves our window could still meet it there.
   */
  const margin = (windowMs: number) => Math.min(1000, Math.max(100, windowMs * 0.005));

  function inWindow(t: number): number {
    if (budget === undefined) return 0;
    const from = t - budget.windowMs - margin(budget.windowMs);
    // Binary search: the first send inside the window.
    let lo = head;
    let hi = sentAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sentAt[mid] as number) <= from) lo = mid + 1;
      else hi = mid;
    }
    return sentAt.length - lo;
  }

  function allowed(priority: Priority, t: number): boolean {
    if (t < heldUntil) return false;
    if (budget === undefined) return true;
    const ceiling = Math.floor(budget.limit * CEILING[priority]);
    return inWindow(t) < (priority === "deadline" ? deadlineCeiling(budget, ceiling, t) : ceiling);
  }

  /**
   * The feed's share is kept for the feed, and what the feed sent in the window is part of it:
   * counted again as headroom, the feed's steady polls alone would hold deadline polls at 55%
   * less the feed's 25%, so with people running commands a sale waiting on its seller could not
   * be read for minutes. Deadline polls may go past 55% by what the feed has sent (at most its
   * share): the part of the share the feed has not used stays free for it, and as each of its
   * sends leaves the window, the deadline's room shrinks with it.
   */
  function deadlineCeiling(b: AddressBudget, ceiling: number, t: number): number {
    const share = Math.floor(b.limit * CEILING.feed) - ceiling;
    return ceiling + Math.min(share, sentInWindow(t, RANK.feed));
  }

  /** Sends of one priority rank in the window (with inWindow's margin). */
  function sentInWindow(t: number, rank: number): number {
    if (budget === undefined) return 0;
    const from = t - budget.windowMs - margin(budget.windowMs);
    let n = 0;
    for (let i = sentAt.length - 1; i >= head && (sentAt[i] as number) > from; i--)
      if (sentRank[i] === rank) n += 1;
    return n;
  }

  /** When the next send leaves the window (when a waiter may be admitted at the earliest). */
  function nextChange(t: number): number {
    let at = heldUntil > t ? heldUntil : Infinity;
    if (budget !== undefined) {
      const span = budget.windowMs + margin(budget.windowMs);
      const from = t - span;
      for (let i = head; i < sentAt.length; i++) {
        const s = sentAt[i] as number;
        if (s > from) {
          at = Math.min(at, s + span + 1);
          break;
        }
      }
    }
    return at;
  }

  function record(priority: Priority, t: number): void {
    sentAt.push(t);
    sentRank.push(RANK[priority]);
    sent[priority] += 1;
  }

  function pump(): void {
    const t = now();
    prune(t);
    // Highest priority first, then arrival order. A waiter held back by its own ceiling does not
    // hold back a lower rank whose ceiling is higher (deadline polls stop at 55%, the feed at 80%):
    // the ceilings are what keeps each share, the order only decides who goes first.
    waiting.sort((a, b) => RANK[a.priority] - RANK[b.priority] || a.seq - b.seq);
    for (let i = 0; i < waiting.length;) {
      const w = waiting[i] as Waiter;
      if (!allowed(w.priority, t)) {
        i += 1;
        continue;
      }
      waiting.splice(i, 1);
      record(w.priority, t);
      w.resolve();
    }
    schedule(t);
  }

  function schedule(t: number): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const at = nextChange(t);
    if (!Number.isFinite(at)) return;
    timer = setTimeout(pump, Math.max(1, at - t));
    timer.unref?.();
  }

  return {
    admit(priority) {
      const t = now();
      prune(t);
      // Someone of this rank or above who may go now goes first.
      const ahead = waiting.some((w) => RANK[w.priority] <= RANK[priority] && allowed(w.priority, t));
      if (!ahead && allowed(priority, t)) {
        record(priority, t);
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        waiting.push({ priority, seq: seq++, resolve });
        pump();
      });
    },
    refused(fingerprint, retryAfterMs, opts = {}) {
      if (opts.keyExhausted === true) return;
      const t = now();
      refusedAt.push(t);
      while (refusedAt.length > 0 && (refusedAt[0] as number) < t - learnedWindowMs) refusedAt.shift();
      recent429.set(fingerprint, t);
      for (const [k, at] of recent429) if (at < t - coincidenceMs) recent429.delete(k);
      if (recent429.size < 2) return;
      // Several keys refused together: the address is over its budget, whatever each key has
      // left. Learn a budget just under what went out in the assumed window, and hold
      // everything until the refusal's Retry-After (then commands first).
      addressRefusals += 1;
      recent429.clear();
      heldUntil = Math.max(heldUntil, t + (retryAfterMs ?? 1000));
      if (source !== "configured") {
        prune(t);
        const windowMs = budget?.windowMs ?? learnedWindowMs;
        const from = t - windowMs;
        let n = 0;
        for (let i = head; i < sentAt.length; i++) if ((sentAt[i] as number) > from) n += 1;
        // What the server let through: what went out, less what it refused (as far as we know yet).
        const through = n - refusedAt.filter((r) => r > from).length;
        const limit = Math.max(1, Math.floor(through * 0.9));
        budget = { limit: budget === undefined ? limit : Math.min(budget.limit, limit), windowMs };
        source = "learned";
      }
      schedule(t);
    },
    rateFor(priority) {
      if (budget === undefined) return Infinity;
      // What this priority's ceiling leaves once the higher ones' sends in the window are counted.
      const t = now();
      prune(t);
      const from = t - budget.windowMs;
      let higher = 0;
      for (let i = head; i < sentAt.length; i++) {
        if ((sentAt[i] as number) > from && (sentRank[i] as number) < RANK[priority]) higher += 1;
      }
      const room = Math.max(budget.limit * MIN_PLANNING_SHARE, budget.limit * CEILING[priority] - higher);
      return room / (budget.windowMs / 1000);
    },
    feedSpacingMs() {
      if (budget === undefined) return 0;
      return Math.ceil(budget.windowMs / (budget.limit * (CEILING.feed - CEILING.deadline)));
    },
    stats() {
      const t = now();
      prune(t);
      const w = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<Priority, number>;
      for (const x of waiting) w[x.priority] += 1;
      return {
        budget,
        source,
        sentInWindow: inWindow(t),
        waiting: w,
        sent: { ...sent },
        addressRefusals,
        heldUntil: heldUntil > t ? heldUntil : undefined,
      };
    },
  };
}

/** "600/5m", "600/300s", "20/60000ms", or "off": the address budget of MARKET_ADDRESS_BUDGET. */
export function parseAddressBudget(text: string): AddressBudget | undefined {
  const t = text.trim().toLowerCase();
  if (t === "" || t === "off" || t === "none") return undefined;
  const m = /^(\d+)\s*\/\s*(\d+)\s*(ms|s|m|min)?$/.exec(t);
  if (!m) throw new Error('must look like "600/5m" (requests per window: ms, s or m), or "off"');
  const limit = Number(m[1]);
  const n = Number(m[2]);
  const unit = m[3] ?? "s";
  const windowMs = unit === "ms" ? n : unit === "s" ? n * 1000 : n * 60_000;
  if (limit < 1 || windowMs < 1000) throw new Error("needs at least 1 request and a window of 1 s or more");
  return { limit, windowMs };
}

// Arrival times for latency runs: listings placed at stratified phases against the feed's own polls,
// so the median poll wait of one run lands near that of many (see runLatency).
import { sleep } from "./common.ts";

/**
 * Phases in [0, 1) of a poll period, one per weight, spread by weight: the period is cut into
 * spans in proportion to the weights (a listing alerting 4 watchers takes 4 times the span of one
 * alerting 1), in the order given, and each phase is the middle of its span. With the order
 * random, this is a systematic sample of a uniform arrival over the period: weighted, the phases
 * cover it evenly, so the median poll wait over DMs sits within half the middle span of half the
 * period (a random point in each span doubles that bound, and a run's median then depends on
 * the seed's draws by ±10 ms).
 */
export function stratifiedPhases(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const phases: number[] = [];
  let before = 0;
  for (const w of weights) {
    phases.push((before + w / 2) / total);
    before += w;
  }
  return phases;
}

export interface PollClock {
  /** When the next poll after this call is answered (epoch ms). */
  next(): Promise<number>;
  /** The mean spacing of the last polls answered, or `fallbackMs` before there are two. */
  periodMs(fallbackMs: number): number;
  stop(): void;
}

/** Follows the feed's polls as the sandbox answers them (`route`, status 200). */
export function pollClock(
  sandbox: { onAnswer(listener: (route: string, status: number) => void): () => void },
  route = "GET /listings",
  keep = 8,
): PollClock {
  const recent: number[] = [];
  let waiting: Array<(at: number) => void> = [];
  const stop = sandbox.onAnswer((r, status) => {
    if (r !== route || status !== 200) return;
    const at = Date.now();
    recent.push(at);
    if (recent.length > keep) recent.shift();
    const wake = waiting;
    waiting = [];
    for (const resolve of wake) resolve(at);
  });
  return {
    next: () => new Promise<number>((resolve) => waiting.push(resolve)),
    periodMs(fallbackMs) {
      if (recent.length < 2) return fallbackMs;
      return ((recent[recent.length - 1] as number) - (recent[0] as number)) / (recent.length - 1);
    },
    stop,
  };
}

/** Sleeps until the epoch ms `at` (at once when it has passed). */
export async function sleepUntil(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await sleep(wait);
}

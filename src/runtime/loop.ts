// The engine's background rhythm: self-rescheduling loops and queues that keep passes from overlapping.
import type { Logger } from "../log.ts";

export interface Loop {
  start(): void;
  stop(): Promise<void>;
  /** Runs the next pass as soon as the current one (if any) ends. */
  kick(): void;
  /** Started, with no pass running and none due at once (kicked): only a timed pass is ahead. */
  idle(): boolean;
}

/**
 * Runs calls of `fn` one after another. A poller's cycle reads state (the feed mark, the rule
 * index, tracked rows) that a second cycle running beside it could move backwards; the loops
 * never overlap, but tests and tools call run*Once() while the loops run.
 */
export function serialQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = last.then(fn, fn);
    last = run.catch(() => undefined);
    return run;
  };
}

export function serial<T>(fn: () => Promise<T>): () => Promise<T> {
  const queue = serialQueue();
  return () => queue(fn);
}

/**
 * A self-rescheduling timer: one pass at a time, the delay chosen after each pass. `delayMs` is
 * told how long ago the pass was due: its own time plus however late the timer fired (a busy
 * event loop or machine). A loop that subtracts it keeps its passes on a fixed rate instead of
 * drifting later by each timer's lateness.
 */
export function createLoop(
  name: string,
  log: Logger,
  pass: () => Promise<void>,
  delayMs: (sinceDueMs: number) => number,
  clock: () => number = Date.now,
): Loop {
  let timer: NodeJS.Timeout | undefined;
  /** A pass due at once (a kick): the next turn of the event loop, not a timer's 1 ms minimum. */
  let immediate: NodeJS.Immediate | undefined;
  let running: Promise<void> | undefined;
  let active = false;
  let kicked = false;
  /** When the scheduled pass is due (epoch ms). */
  let dueAt = 0;

  const cancel = () => {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
  };
  const schedule = (ms: number) => {
    if (!active) return;
    cancel();
    dueAt = clock() + Math.max(0, ms);
    if (ms <= 0) immediate = setImmediate(run);
    else timer = setTimeout(run, ms);
  };
  function run(): void {
    timer = undefined;
    immediate = undefined;
    if (!active || running) return;
    kicked = false;
    const due = dueAt;
    // Started from a resolved promise: `running` is set before the pass runs, so a kick from
    // its first synchronous part is remembered, and a synchronous throw is caught like the rest.
    running = Promise.resolve()
      .then(pass)
      .catch((err: unknown) => log.error({ err, loop: name }, "background pass failed"))
      .finally(() => {
        running = undefined;
        schedule(kicked ? 0 : delayMs(Math.max(0, clock() - due)));
      });
  }
  return {
    start() {
      if (active) return;
      active = true;
      schedule(0);
    },
    async stop() {
      active = false;
      cancel();
      await running;
    },
    kick() {
      if (running) kicked = true;
      else schedule(0);
    },
    idle() {
      return active && running === undefined && immediate === undefined;
    },
  };
}

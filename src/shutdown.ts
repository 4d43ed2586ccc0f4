// Graceful shutdown on SIGTERM/SIGINT: one orderly stop, exit 0; a second signal or the watchdog forces exit 1.
import type { Logger } from "./log.ts";

export interface ShutdownOptions {
  readonly logger: Logger;
  /** Stops everything (idempotent); exit 0 when it resolves, 1 when it rejects. */
  readonly stop: () => Promise<void>;
  /** Longest orderly stop before the process is forced out. Default 10 s (compose gives 15). */
  readonly timeoutMs?: number;
  readonly signals?: readonly NodeJS.Signals[];
  /** process.exit in production; tests of this module pass their own. */
  readonly exit?: (code: number) => void;
  /**
   * A repeat this soon after the first request is the same request delivered twice (Ctrl+C
   * reaches the whole process group, and npm and tsx relay it again), not an operator insisting.
   */
  readonly repeatWindowMs?: number;
  readonly now?: () => number;
}

export interface ShutdownHandle {
  /** Starts the orderly stop as a signal would (also used after a fatal error). */
  shutdown(reason: string): void;
  /** Removes the signal listeners and cancels the watchdog. */
  dispose(): void;
}

export const SHUTDOWN_TIMEOUT_MS = 10_000;
export const REPEAT_WINDOW_MS = 1_000;

export function installShutdown(opts: ShutdownOptions): ShutdownHandle {
  const log = opts.logger.child({ module: "shutdown" });
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = opts.timeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  const signals = opts.signals ?? (["SIGTERM", "SIGINT"] as const);
  const repeatWindowMs = opts.repeatWindowMs ?? REPEAT_WINDOW_MS;
  const now = opts.now ?? Date.now;
  let startedAt: number | undefined;
  let exited = false;
  let watchdog: NodeJS.Timeout | undefined;

  const finish = (code: number) => {
    if (exited) return;
    exited = true;
    exit(code);
  };

  const shutdown = (reason: string) => {
    if (startedAt !== undefined) {
      if (now() - startedAt < repeatWindowMs) {
        log.info({ reason }, "already shutting down; send the signal again to force an exit");
        return;
      }
      // An operator pressing Ctrl+C twice wants out now, whatever is still closing.
      log.warn({ reason }, "second shutdown request: forcing exit");
      finish(1);
      return;
    }
    startedAt = now();
    log.info({ reason, timeoutMs }, "shutting down");
    watchdog = setTimeout(() => {
      log.fatal({ timeoutMs }, "shutdown did not finish in time: forcing exit");
      finish(1);
    }, timeoutMs);
    opts.stop().then(
      () => {
        clearTimeout(watchdog);
        log.info("shutdown complete");
        finish(0);
      },
      (err: unknown) => {
        clearTimeout(watchdog);
        log.error({ err }, "shutdown failed");
        finish(1);
      },
    );
  };

  const onSignal = (signal: NodeJS.Signals) => shutdown(signal);
  for (const signal of signals) process.on(signal, onSignal);
  return {
    shutdown,
    dispose() {
      clearTimeout(watchdog);
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}

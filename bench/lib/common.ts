// Shared pieces of the benchmarks: the machine's description, percentiles, a quiet log sink and timing helpers.
import os from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createLogger, type Logger } from "../../src/log.ts";

export interface MachineSetup {
  cores: number;
  cpu: string;
  node: string;
  platform: string;
  memoryGb: number;
  /** 1-minute load average when the scenario started: above `cores`, other work shared the CPUs. */
  load1: number;
}

export function machineSetup(): MachineSetup {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    node: process.version,
    platform: `${os.platform()}-${os.arch()}`,
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    load1: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

export interface Distribution {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles (no interpolation: every figure is a value that was observed). */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { n: 0, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    max: sorted[sorted.length - 1] as number,
    mean: sum / sorted.length,
  };
}

export const round = (n: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Re-checks `probe` every `everyMs` until it returns a value, failing after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The same seed gives the same run. */
export { seededRandom } from "../../src/util/rng.ts";

export interface LogSink {
  readonly logger: Logger;
  /** Lines at warn level or above (pino levels: 40 warn, 50 error, 60 fatal). */
  readonly problems: { level: number; msg: string; module?: string }[];
  /** How many lines of each message were seen at warn or above. */
  summary(): Record<string, number>;
}

/**
 * The app's logs while a scenario runs: info and below are dropped (writing them is work the
 * bench would otherwise measure), warnings and errors are kept for the report. BENCH_LOG=1 echoes
 * every line to stderr.
 */
export function logSink(level = "warn"): LogSink {
  const echo = process.env.BENCH_LOG === "1";
  const problems: { level: number; msg: string; module?: string }[] = [];
  const logger = createLogger(
    { level: echo ? "debug" : level, name: "bench" },
    {
      write(text: string) {
        if (echo) process.stderr.write(text);
        for (const line of text.split("\n")) {
          if (line === "") continue;
          try {
            const parsed = JSON.parse(line) as { level?: number; msg?: string; module?: string };
            if ((parsed.level ?? 0) >= 40) {
              problems.push({
                level: parsed.level ?? 40,
                msg: parsed.msg ?? "",
                ...(parsed.module === undefined ? {} : { module: parsed.module }),
              });
            }
          } catch {
            // not JSON: ignore
          }
        }
      },
    },
  );
  return {
    logger,
    problems,
    summary() {
      const out: Record<string, number> = {};
      for (const p of problems) {
        const key = `${p.level >= 50 ? "error" : "warn"}: ${p.module ?? "-"}: ${p.msg}`;
        out[key] = (out[key] ?? 0) + 1;
      }
      return out;
    },
  };
}

/** A full GC (for memory readings), enabling --expose-gc at run time when the process lacks it. */
export const collectGarbage: () => void = (() => {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("gc");
  return typeof gc === "function" ? (gc as () => void) : () => {};
})();

/** Prints one progress line to stderr (stdout stays free for the final table). */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

// Child of the memory scenario: the real app (createApp, as src/main.ts starts it) from the environment;
// prints one JSON line with its memory once the alert engine holds BENCH_EXPECT_RULES rules, then stops.
// Self-contained (only src/ imports) so bench/memory.ts can also run it compiled, as the container does.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createApp } from "../src/app.ts";
import type { BackgroundService } from "../src/background/context.ts";
import type { AlertEngine } from "../src/background/engine.ts";
import { loadConfig } from "../src/config/index.ts";
import { createLogger } from "../src/log.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gc: () => void = (() => {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  const found: unknown = runInNewContext("gc");
  return typeof found === "function" ? (found as () => void) : () => {};
})();

const expected = Number(process.env.BENCH_EXPECT_RULES ?? "0");
const started = performance.now();
const app = await createApp(loadConfig(), { logger: createLogger({ level: "warn" }) });
const readyMs = performance.now() - started;
const service = app.services.find((s: BackgroundService) => "engine" in s) as
  (BackgroundService & { engine: AlertEngine }) | undefined;
if (!service) throw new Error("no alert engine service");
const engine = service.engine;
const deadline = Date.now() + 600_000;
while (!(engine.stats().rules === expected && engine.stats().feed.mark !== undefined)) {
  if (Date.now() > deadline) throw new Error(`the engine did not load ${expected} rules`);
  await sleep(50);
}
const loadedMs = performance.now() - started;
// Settle: V8 shrinks the heap it grew during the load over the next seconds (its memory reducer).
// Collect once a second until RSS holds within 1 MB for three readings (at most 30 s): the steady
// state a long-running process sits at. The peak during the load is reported beside it.
const settleStart = performance.now();
let last = 0;
let stable = 0;
while (stable < 3 && performance.now() - settleStart < 30_000) {
  gc();
  await sleep(1000);
  const rss = process.memoryUsage().rss;
  stable = Math.abs(rss - last) < 1024 * 1024 ? stable + 1 : 0;
  last = rss;
}
const settleMs = performance.now() - settleStart;
const m = process.memoryUsage();
const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    bench: "memory",
    rules: engine.stats().rules,
    rssMb: mb(m.rss),
    heapUsedMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    externalMb: mb(m.external),
    readyMs: Math.round(readyMs),
    loadedMs: Math.round(loadedMs),
    indexLoadMs: engine.ruleIndex.lastLoadMs,
    settleMs: Math.round(settleMs),
    // ru_maxrss: the most this process ever had resident (KiB on Linux).
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  })}\n`,
);
await app.stop();
process.exit(0);

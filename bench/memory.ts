// Memory with the whole rule set in the engine's index: the real app in a child process (its own heap,
// nothing of the bench in it, node's flags as production passes them) on a database holding N rules,
// RSS read after the load and a full GC.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDiscordDouble } from "../src/playground/discord/index.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { progress, seededRandom } from "./lib/common.ts";
import type { BenchPostgres } from "./lib/database.ts";
import { assignOwners, benchUsers, insertRules, insertUsers, ruleSet } from "./lib/population.ts";
import { productionNodeFlags, REPO_ROOT, spawnChild, TSX_LOADER } from "./lib/processes.ts";

export interface MemoryReading {
  /** compiled: plain node on the app compiled to JavaScript (the container's CMD); tsx: `npm start`. */
  runner: "compiled" | "tsx";
  /** node's flags for the child (besides --expose-gc and the tsx loader). */
  nodeFlags: string[];
  /** Whether nodeFlags are the runner's production flags (the Dockerfile's CMD, or `npm start`'s). */
  productionFlags: boolean;
  rules: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  /** createApp -> resolved (login, services started). */
  readyMs: number;
  /** createApp -> every rule in the index. */
  loadedMs: number;
  /** The rule index's full load alone: database -> index (absent in readings taken before it was reported). */
  indexLoadMs?: number;
  /** Index loaded -> RSS steady (GC once a second until it holds). */
  settleMs: number;
  /** The highest RSS the process reached (during the load). */
  peakRssMb: number;
}

export interface MemoryResult {
  users: number;
  /** The same app with no rules, and with all of them: the difference is the index. */
  readings: MemoryReading[];
}

const CHILD = path.join(REPO_ROOT, "bench", "memoryChild.ts");
/** Inside the repository (migrations are found from the file's folder), ignored by git. */
const COMPILED_DIR = path.join(REPO_ROOT, "node_modules", ".cache", "bench", "memory");

/**
 * The child compiled to JavaScript (dependencies left as imports), as `npm run build` compiles the
 * app for the container: no TypeScript loader in the measured process. Split at dynamic imports so
 * code the app loads lazily (the chart renderer) stays out of a start, as with tsc's output.
 */
async function compileChild(): Promise<string> {
  const { build } = await import("esbuild");
  await rm(COMPILED_DIR, { recursive: true, force: true });
  await build({
    entryPoints: [CHILD],
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outdir: COMPILED_DIR,
    logLevel: "warning",
  });
  return path.join(COMPILED_DIR, "memoryChild.js");
}

export interface MemoryRun {
  rules: number;
  runner: "compiled" | "tsx";
  /** node's flags for the child instead of the runner's production flags (e.g. none, to show their effect). */
  nodeFlags?: readonly string[];
  /** Runs of the same configuration (RSS varies from run to run with V8's heap sizing). */
  repeat?: number;
}

export async function runMemory(
  postgres: BenchPostgres,
  opts: { runs: readonly MemoryRun[]; users: number; itemless?: number },
): Promise<MemoryResult> {
  const compiled = opts.runs.some((r) => r.runner === "compiled") ? await compileChild() : undefined;
  const double = await startDiscordDouble();
  const sandbox = await startSandbox({ rateLimit: false });
  const readings: MemoryReading[] = [];
  try {
    for (const count of [...new Set(opts.runs.map((r) => r.rules))]) {
      const db = await postgres.create();
      try {
        progress(`memory: ${count} rules into the database`);
        const rnd = seededRandom(5);
        const users = benchUsers(opts.users);
        const ids = await insertUsers(
          db,
          users.map((u) => u.id),
        );
        const set = ruleSet(count, 44, opts.itemless === undefined ? {} : { itemless: opts.itemless });
        const owners = assignOwners(count, ids, rnd);
        await insertRules(
          db,
          set.filters.map((filters, i) => ({ userId: owners[i] as number, filters })),
        );
        await db.pool.query("VACUUM ANALYZE watch_rules");
        const runs = opts.runs
          .filter((r) => r.rules === count)
          .flatMap((r) => Array.from({ length: r.repeat ?? 1 }, () => r));
        for (const run of runs) {
          const production = await productionNodeFlags(run.runner);
          const flags = run.nodeFlags ?? production;
          progress(
            `memory: the app (${run.runner} ${flags.join(" ")}) in a child process loads ${count} rules`,
          );
          const dataDir = await mkdtemp(path.join(tmpdir(), "bench-mem-"));
          const child = spawnChild(
            run.runner === "compiled" && compiled !== undefined
              ? ["--expose-gc", ...flags, compiled]
              : ["--expose-gc", ...flags, "--import", TSX_LOADER, CHILD],
            {
              DISCORD_TOKEN: "bench-bot-token",
              DISCORD_API_URL: double.apiUrl,
              MARKET_BASE_URL: sandbox.baseUrl,
              MARKET_API_KEY: sandbox.operatorKey,
              DATABASE_URL: db.url,
              ENCRYPTION_KEY: randomBytes(32).toString("base64"),
              DATA_DIR: dataDir,
              HTTP_PORT: "0",
              LOG_LEVEL: "warn",
              NODE_ENV: "production",
              BENCH_EXPECT_RULES: String(count),
            },
            dataDir,
          );
          try {
            const line = await child.waitFor((l) => l.raw.bench === "memory", 600_000, "the memory reading");
            const r = line.raw as unknown as MemoryReading;
            readings.push({
              runner: run.runner,
              nodeFlags: [...flags],
              productionFlags: flags.join(" ") === production.join(" "),
              rules: r.rules,
              rssMb: r.rssMb,
              heapUsedMb: r.heapUsedMb,
              heapTotalMb: r.heapTotalMb,
              externalMb: r.externalMb,
              readyMs: r.readyMs,
              loadedMs: r.loadedMs,
              ...(r.indexLoadMs === undefined ? {} : { indexLoadMs: r.indexLoadMs }),
              settleMs: r.settleMs,
              peakRssMb: r.peakRssMb,
            });
            await child.exited;
          } finally {
            await child.stop(10_000);
            await rm(dataDir, { recursive: true, force: true });
          }
        }
      } finally {
        await db.close();
      }
    }
    return { users: opts.users, readings };
  } finally {
    await sandbox.close();
    await double.close();
  }
}

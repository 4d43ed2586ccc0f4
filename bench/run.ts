// `npm run bench`: every scenario against the real app, the sandbox marketplace, the local Discord and
// Postgres; writes bench/results.json and the tables in bench/README.md and README.md ("Performance").
// `npm run bench:quick` runs smaller counts for development and writes bench/results.quick.json only.
// Options: --only latency,snipe,scale,matching,economy,ack,memory,start,throughput,fan-out,million   (merged into the previous results)
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { format } from "prettier";
import { runAck } from "./ack.ts";
import { runEconomy } from "./economy.ts";
import { runFanOut } from "./fanout.ts";
import { runLatency } from "./latency.ts";
import { machineSetup, progress } from "./lib/common.ts";
import { startBenchPostgres, type BenchPostgres } from "./lib/database.ts";
import { REPO_ROOT } from "./lib/processes.ts";
import {
  markdownTable,
  replaceSection,
  summaryTable,
  type ResultsFile,
  type ScenarioRecord,
  type Scenarios,
} from "./lib/report.ts";
import { buildTable } from "./lib/rows.ts";
import { runMatchingBench } from "./matching.ts";
import { runMemory } from "./memory.ts";
import { runScale } from "./scale.ts";
import { runMillion } from "./million.ts";
import { runSnipe } from "./snipe.ts";
import { runStartup } from "./startup.ts";
import { runThroughput } from "./throughput.ts";

const SCENARIOS = [
  "matching",
  "economy",
  "latency",
  "snipe",
  "scale",
  "ack",
  "throughput",
  "fan-out",
  "memory",
  "start",
  "million",
] as const;
type ScenarioName = (typeof SCENARIOS)[number];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only"));
const onlyValue = onlyArg?.includes("=")
  ? onlyArg.split("=")[1]
  : onlyArg
    ? args[args.indexOf(onlyArg) + 1]
    : undefined;
const only = new Set((onlyValue ?? SCENARIOS.join(",")).split(",").map((s) => s.trim()));
for (const name of only) {
  if (!(SCENARIOS as readonly string[]).includes(name)) {
    process.stderr.write(`unknown scenario "${name}"; known: ${SCENARIOS.join(", ")}\n`);
    process.exit(2);
  }
}

/** Counts: the full run is what the README reports; quick keeps each scenario to seconds. */
const plan = quick
  ? {
      // 30 polls at 1,000 ms and 120 purchases: with 15 polls, where a busy minute's slow polls
      // fell moved the median poll wait by ±35 ms, and a p99 of 60 purchases was their maximum.
      latency: { users: 1000, rules: 10_000, matching: 120, noise: 120, durationMs: 30_000 },
      snipe: { rules: 100_000, armed: 1000, traders: 50, listings: 120, durationMs: 30_000, intervalMs: 250 },
      scale: {
        users: 2000,
        budget: { limit: 120, windowMs: 60_000 },
        durationMs: 90_000,
        trades: 20,
        bids: 100,
        feedListings: 20,
        commands: 40,
        tradeWaitMs: 180_000,
      },
      matching: { ruleCounts: [1000, 10_000, 100_000], listings: 1000, minMs: 100 },
      economy: {
        ruleCounts: [1, 1000, 10_000],
        users: 1000,
        intervalMs: 1000,
        cycles: 3,
        naiveSample: 50,
        naiveConcurrency: 8,
      },
      ack: { rounds: 1, spacingMs: 40, marketLatencyMs: 10_000 },
      throughput: { alerts: 1000, users: 200, budget: { limit: 5, windowMs: 5000 } },
      fanOut: { users: 1000, armed: 20, budget: { limit: 5, windowMs: 5000 } },
      memory: [
        { rules: 0, runner: "compiled" as const },
        { rules: 100_000, runner: "compiled" as const },
      ],
      start: { coldRuns: 1, warmRuns: 1 },
      million: { rules: 200_000, itemless: 0.2, listings: 1000, minMs: 500, users: 1000 },
    }
  : {
      latency: { users: 1000, rules: 10_000, matching: 300, noise: 300, durationMs: 60_000 },
      snipe: { rules: 100_000, armed: 1000, traders: 50, listings: 300, durationMs: 60_000, intervalMs: 250 },
      scale: {
        users: 10_000,
        budget: { limit: 600, windowMs: 300_000 },
        durationMs: 360_000,
        trades: 50,
        bids: 200,
        feedListings: 60,
        commands: 200,
        // Sellers are read by need: under this budget an idle seller's turn comes ~25 min apart, so
        // the run waits (no longer than needed) until every sale's alert is in, well inside its
        // 12 h deadline, rather than stopping at 10 minutes and counting the rest as missing.
        tradeWaitMs: 45 * 60_000,
      },
      matching: { ruleCounts: [1000, 10_000, 100_000], listings: 2000, minMs: 200 },
      economy: {
        ruleCounts: [1, 1000, 10_000],
        users: 1000,
        intervalMs: 1000,
        cycles: 10,
        naiveSample: 200,
        naiveConcurrency: 8,
      },
      ack: { rounds: 5, spacingMs: 40, marketLatencyMs: 10_000 },
      throughput: { alerts: 2000, users: 200, budget: { limit: 5, windowMs: 5000 } },
      fanOut: { users: 5000, armed: 50, budget: { limit: 5, windowMs: 5000 } },
      memory: [
        { rules: 0, runner: "compiled" as const },
        { rules: 100_000, runner: "compiled" as const, repeat: 3 },
        // The same without the CMD's V8 flags (plain `node dist/src/main.js`): what the flags buy.
        { rules: 100_000, runner: "compiled" as const, nodeFlags: [], repeat: 3 },
        { rules: 100_000, runner: "tsx" as const },
      ],
      start: { coldRuns: 1, warmRuns: 3 },
      million: { rules: 1_000_000, itemless: 0.2, listings: 2000, minMs: 2000, users: 5000 },
    };

const resultsFile = path.join(REPO_ROOT, "bench", quick ? "results.quick.json" : "results.json");

async function previous(): Promise<Scenarios> {
  try {
    const parsed = JSON.parse(await readFile(resultsFile, "utf8")) as Partial<ResultsFile>;
    return parsed.scenarios ?? {};
  } catch {
    return {};
  }
}

async function record<T>(database: string, fn: () => Promise<T>): Promise<ScenarioRecord<T>> {
  const machine = machineSetup();
  const at = new Date().toISOString();
  const started = performance.now();
  const result = await fn();
  return { at, machine, database, wallMs: Math.round(performance.now() - started), result };
}

async function main(): Promise<void> {
  const started = performance.now();
  const scenarios: Scenarios = only.size === SCENARIOS.length ? {} : await previous();
  const failures: string[] = [];
  const want = (name: ScenarioName) => only.has(name);
  const attempt = async (name: ScenarioName, fn: () => Promise<void>) => {
    if (!want(name)) return;
    try {
      await fn();
    } catch (error) {
      failures.push(name);
      progress(`${name} FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  };

  // CPU-bound and alone first: nothing else of the bench runs while it measures.
  await attempt("matching", async () => {
    progress("matching: index vs linear scan");
    scenarios.matching = await record("none (in memory)", async () => runMatchingBench(plan.matching));
  });

  const needsDb = (
    ["economy", "latency", "snipe", "scale", "ack", "throughput", "fan-out", "memory", "million"] as const
  ).some(want);
  let postgres: BenchPostgres | undefined;
  if (needsDb) {
    progress("starting the bench database");
    postgres = await startBenchPostgres();
  }
  try {
    if (postgres) {
      const pg = postgres;
      await attempt("economy", async () => {
        scenarios.economy = await record(pg.description, () => runEconomy(pg, plan.economy));
      });
      await attempt("latency", async () => {
        scenarios.latency = await record(pg.description, async () => [
          await runLatency(pg, { ...plan.latency, intervalMs: 1000 }),
          await runLatency(pg, { ...plan.latency, intervalMs: 250 }),
        ]);
      });
      await attempt("snipe", async () => {
        scenarios.snipe = await record(pg.description, () => runSnipe(pg, plan.snipe));
      });
      await attempt("scale", async () => {
        scenarios.scale = await record(pg.description, () => runScale(pg, plan.scale));
      });
      await attempt("ack", async () => {
        scenarios.ack = await record(pg.description, () => runAck(pg, plan.ack));
      });
      await attempt("throughput", async () => {
        scenarios.throughput = await record(pg.description, () => runThroughput(pg, plan.throughput));
      });
      await attempt("fan-out", async () => {
        scenarios.fanOut = await record(pg.description, () => runFanOut(pg, plan.fanOut));
      });
      await attempt("memory", async () => {
        scenarios.memory = await record(pg.description, () =>
          runMemory(pg, { runs: plan.memory, users: 1000 }),
        );
      });
      await attempt("million", async () => {
        scenarios.million = await record(pg.description, () => runMillion(pg, plan.million));
      });
    }
  } finally {
    await postgres?.close();
  }
  // Last, with the bench's own database stopped: each start runs an embedded server of its own.
  await attempt("start", async () => {
    scenarios.start = await record("embedded Postgres (fsync on), its own data folder", () =>
      runStartup(plan.start),
    );
  });

  const table = buildTable(scenarios);
  const partial = only.size !== SCENARIOS.length;
  const file: ResultsFile = {
    generatedAt: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    ...(partial ? { rerun: [...only] } : {}),
    scenarios,
    table,
  };
  // Written as Prettier would format it, so `npm run lint` stays clean whatever the file.
  await writeFile(resultsFile, await format(JSON.stringify(file), { parser: "json", printWidth: 110 }));
  const markdown = markdownTable(table);
  process.stdout.write(`\n${markdown}\n\n`);
  if (!quick) {
    const m = machineSetup();
    const node = m.node.replace(/^v/, "");
    const rerun = [...only].join(", ");
    const when =
      `${file.generatedAt.slice(0, 16).replace("T", " ")} UTC, ${m.cores} cores (${m.cpu}), ` +
      `${m.memoryGb} GB, Node ${node}, ${m.platform}`;
    // A run of some scenarios merges into the previous results: say so, not "full run".
    const header = partial
      ? `Rows from more than one run: ${rerun} re-run ${when}; the other rows from ` +
        `earlier runs (each row's setup names its machine). Raw figures: [results.json](results.json).`
      : `Last full run: ${when}. Raw figures: [results.json](results.json).`;
    if (
      !(await replaceSection(
        path.join(REPO_ROOT, "bench", "README.md"),
        "bench:results",
        `${header}\n\n${markdown}`,
      ))
    ) {
      progress("bench/README.md has no bench:results markers; table not written there");
    }
    const measured = partial
      ? `Rows from more than one run (${rerun} re-run on ${file.generatedAt.slice(0, 10)}, ${m.cores} cores, Node ${node})`
      : `Measured on ${m.cores} cores, Node ${node} (${file.generatedAt.slice(0, 10)})`;
    const summary = `${summaryTable(table)}\n\n${measured}; setups, informative rows and how to run: [bench/README.md](bench/README.md).`;
    if (!(await replaceSection(path.join(REPO_ROOT, "README.md"), "bench:summary", summary))) {
      progress("README.md has no bench:summary markers; summary not written there");
    }
  }
  const missed = table.filter((r) => r.met === false).length;
  progress(
    `done in ${((performance.now() - started) / 1000).toFixed(0)} s: ${table.length} rows, ${missed} targets missed` +
      (failures.length > 0 ? `, FAILED: ${failures.join(", ")}` : "") +
      ` -> ${path.relative(process.cwd(), resultsFile)}`,
  );
  if (failures.length > 0) process.exitCode = 1;
}

await main();

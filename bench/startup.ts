// Cold and warm start of src/main.ts under tsx (what `npm start` runs) on the embedded database: a fresh
// data folder (initdb, migrations, key file, Discord login) and then the same folder again, to "running".
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDiscordDouble } from "../src/playground/discord/index.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { distribution, progress, round, type Distribution } from "./lib/common.ts";
import { MAIN_TS, productionNodeFlags, spawnChild, TSX_LOADER, type ChildRun } from "./lib/processes.ts";

export interface StartRun {
  kind: "cold" | "warm";
  /** spawn -> "the bot is running" logged. */
  readyMs: number;
  /** spawn -> the embedded database answered (started or adopted). */
  databaseMs: number | undefined;
  /** spawn -> "connected to Discord". */
  discordMs: number | undefined;
  /** SIGTERM -> exit (embedded Postgres stopped). */
  stopMs: number;
  exitCode: number | null;
  /** True if the embedded server was found already running (a warm start must start it itself). */
  reusedServer: boolean;
  /** True if this start ran initdb (a cold start must; a warm one must not). */
  initialisedCluster: boolean;
}

export interface StartResult {
  /** Node's flags of every start: `npm start`'s (older results have none). */
  nodeFlags?: string[];
  runs: StartRun[];
  cold: Distribution;
  warm: Distribution;
}

const READY = "the bot is running; press Ctrl+C to stop";

async function startOnce(
  kind: "cold" | "warm",
  env: Record<string, string>,
  cwd: string,
  flags: readonly string[],
): Promise<StartRun> {
  // `node <npm start's flags> --import tsx`, the process `npm start` runs, without npm around it
  // (its own start is not the bot's).
  const child: ChildRun = spawnChild([...flags, "--import", TSX_LOADER, MAIN_TS], env, cwd);
  try {
    const ready = await child.waitFor((l) => l.msg === READY, 180_000, "the bot to be running");
    const database = child.lines.find(
      (l) => l.raw.module === "db.embedded" && /^embedded Postgres (started|already running)/.test(l.msg),
    );
    const discord = child.lines.find((l) => l.msg === "connected to Discord");
    const stopAt = performance.now();
    const exit = await child.stop();
    return {
      kind,
      readyMs: round(ready.t),
      databaseMs: database === undefined ? undefined : round(database.t),
      discordMs: discord === undefined ? undefined : round(discord.t),
      stopMs: round(exit.t - (stopAt - child.spawnedAt)),
      exitCode: exit.code,
      reusedServer: database?.raw.reused === true,
      initialisedCluster: child.lines.some((l) => l.msg.startsWith("initialising embedded Postgres")),
    };
  } catch (error) {
    await child.stop(5_000);
    throw error;
  }
}

export async function runStartup(opts: { warmRuns: number; coldRuns: number }): Promise<StartResult> {
  const double = await startDiscordDouble();
  const sandbox = await startSandbox({ rateLimit: false });
  const runs: StartRun[] = [];
  const folders: string[] = [];
  const flags = await productionNodeFlags("tsx");
  try {
    for (let c = 0; c < opts.coldRuns; c++) {
      // The working folder holds the data folder: no .env of the repository leaks in.
      const cwd = await mkdtemp(path.join(tmpdir(), "bench-start-"));
      folders.push(cwd);
      const env = {
        DISCORD_TOKEN: "bench-bot-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATA_DIR: path.join(cwd, "data"),
        HTTP_PORT: "0",
        LOG_LEVEL: "info",
        NODE_ENV: "production",
      };
      progress(`start: cold start ${c + 1}/${opts.coldRuns} (fresh data folder, embedded initdb)`);
      runs.push(await startOnce("cold", env, cwd, flags));
      for (let w = 0; w < opts.warmRuns; w++) {
        progress(`start: warm start ${w + 1}/${opts.warmRuns} (same data folder)`);
        runs.push(await startOnce("warm", env, cwd, flags));
      }
    }
    return {
      nodeFlags: flags,
      runs,
      cold: distribution(runs.filter((r) => r.kind === "cold").map((r) => r.readyMs)),
      warm: distribution(runs.filter((r) => r.kind === "warm").map((r) => r.readyMs)),
    };
  } finally {
    await sandbox.close();
    await double.close();
    for (const f of folders) await rm(f, { recursive: true, force: true });
  }
}

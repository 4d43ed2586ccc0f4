// SHARD_COUNT: a discord.js ShardingManager runs one bot process per gateway shard; the alert engine's leader lock keeps a single feed among them.
import type { ChildProcess } from "node:child_process";
import { ShardingManager, type Shard } from "discord.js";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { ConfigError, type Config } from "./config/index.ts";
import { startHttpServer, type HttpServer } from "./http/server.ts";
import type { Logger } from "./log.ts";
import { SHARD_PROCESS_FLAG } from "./shardFlag.ts";

export interface ShardManagerOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** The entry file the shards run (main.ts under tsx, dist/src/main.js when compiled). */
  readonly entry: string;
  /** Node flags for the shards (tsx's loader when running from source). */
  readonly execArgv: readonly string[];
  /** discord.js waits this long between shard starts: Discord allows one IDENTIFY per 5 s. */
  readonly spawnDelayMs?: number;
}

export interface ShardManagerHandle {
  readonly manager: ShardingManager;
  readonly http: HttpServer;
  /** Stops respawning, sends SIGTERM to every shard and waits for them (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Shards are separate processes: they can share a database server and a marketplace, not in-process ones. */
export function checkShardingConfig(config: Config): void {
  const problems: string[] = [];
  if (config.DATABASE_URL === undefined) {
    problems.push("DATABASE_URL: required with SHARD_COUNT (every shard process must use the same database)");
  }
  if (config.MARKET_BASE_URL === undefined) {
    problems.push(
      "MARKET_BASE_URL: required with SHARD_COUNT (each shard would otherwise run a sandbox of its own)",
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

export async function startShardManager(opts: ShardManagerOptions): Promise<ShardManagerHandle> {
  const { config } = opts;
  const log = opts.logger.child({ module: "sharding" });
  checkShardingConfig(config);
  const totalShards = config.SHARD_COUNT ?? "auto";
  const token = config.DISCORD_TOKEN;
  if (token === undefined) throw new ConfigError(["DISCORD_TOKEN: required to run shards"]);
  const manager = new ShardingManager(opts.entry, {
    totalShards,
    token,
    execArgv: [...opts.execArgv],
    shardArgs: [SHARD_PROCESS_FLAG],
    respawn: true,
  });
  manager.on("shardCreate", (shard: Shard) => {
    log.info({ shardId: shard.id }, "shard process starting");
    shard.on("ready", () => log.info({ shardId: shard.id }, "shard ready"));
    shard.on("death", (child) => {
      const code = "exitCode" in child ? child.exitCode : undefined;
      log.warn(
        { shardId: shard.id, code },
        manager.respawn ? "shard process died; respawning" : "shard process exited",
      );
    });
  });

  // The manager's own endpoint: what Docker's HEALTHCHECK probes. Each shard serves its own
  // /healthz and /metrics on HTTP_PORT + 1 + shard id.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "shards_ready",
    help: "Shard processes of this manager that are alive and whose client is ready.",
    registers: [registry],
    collect() {
      this.set(readyShards(manager).length);
    },
  });
  new Gauge({
    name: "shards_expected",
    help: "Shard processes this manager runs.",
    registers: [registry],
    collect() {
      this.set(typeof manager.totalShards === "number" ? manager.totalShards : 0);
    },
  });
  const http = await startHttpServer({
    host: config.HTTP_HOST,
    port: config.HTTP_PORT,
    logger: opts.logger,
    metrics: { render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }) },
    checks: {
      shards: () => {
        const expected = typeof manager.totalShards === "number" ? manager.totalShards : undefined;
        const ready = readyShards(manager).map((s) => s.id);
        const ok = expected !== undefined && ready.length === expected;
        return ok ? { ok, ready, expected } : { ok, ready, expected, detail: "not every shard is ready" };
      },
    },
  });

  let stopping: Promise<void> | undefined;
  const handle: ShardManagerHandle = {
    manager,
    http,
    stop(graceMs = 9_000) {
      stopping ??= (async () => {
        manager.respawn = false;
        await Promise.all([...manager.shards.values()].map((shard) => stopShard(shard, graceMs, log)));
        await http.close();
      })();
      return stopping;
    },
  };

  try {
    await manager.spawn({ amount: totalShards, delay: opts.spawnDelayMs ?? 5_500, timeout: 60_000 });
  } catch (error) {
    await handle.stop();
    throw error;
  }
  log.info({ shards: manager.shards.size }, "all shards ready");
  return handle;
}

function readyShards(manager: ShardingManager): Shard[] {
  return [...manager.shards.values()].filter((s) => s.ready && isAlive(s.process));
}

function isAlive(child: ChildProcess | null): child is ChildProcess {
  return child !== null && child.exitCode === null && child.signalCode === null;
}

async function stopShard(shard: Shard, graceMs: number, log: Logger): Promise<void> {
  const child = shard.process;
  if (!isAlive(child)) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // SIGTERM runs the shard's own graceful shutdown (src/shutdown.ts).
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    log.warn({ shardId: shard.id }, "shard did not stop in time: killing it");
    child.kill("SIGKILL");
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

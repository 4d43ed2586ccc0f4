// Entry point: load the configuration, start the bot (or, without a Discord token, the browser
// playground; with SHARD_COUNT, a ShardingManager), and stop cleanly on SIGINT/SIGTERM.
// First, before any library loads: empty variables are removed from the environment.
import "./config/emptyMeansUnset.ts";
import { fileURLToPath } from "node:url";
import { ConfigError, loadConfig, type Config } from "./config/index.ts";
import type { Database } from "./db/index.ts";
import { hasEmbeddedPostgres } from "./db/embedded.ts";
import { createLogger, type Logger } from "./log.ts";
import { SHARD_PROCESS_FLAG } from "./shardFlag.ts";
import { installShutdown } from "./shutdown.ts";
import { PortUnavailableError } from "./util/listen.ts";

async function main(): Promise<void> {
  let config: Config;
  try {
    // Every problem at once, before anything connects (database, Discord, marketplace).
    config = loadConfig(undefined, undefined, "bot", { embeddedPostgres: hasEmbeddedPostgres() });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      process.exit(1);
    }
    throw error;
  }
  const pretty =
    config.LOG_FORMAT === "pretty" ||
    (config.LOG_FORMAT === "auto" && process.stdout.isTTY === true && config.NODE_ENV !== "production");
  const logger = createLogger({ level: config.LOG_LEVEL, pretty });
  const log = logger.child({ module: "main" });
  // discord.js reports some malformed gateway payloads only as rejections: log, keep serving.
  process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection"));

  const shardProcess = process.argv.includes(SHARD_PROCESS_FLAG);
  if (config.SHARD_COUNT !== undefined && !shardProcess) {
    if (config.playground) log.warn("SHARD_COUNT is ignored by the playground (no DISCORD_TOKEN)");
    else return runShardManager(config, logger);
  }
  if (shardProcess) {
    // The manager put this shard's id and the total in the environment, where discord.js reads
    // them. Every shard process sends (delivery runs in each): they split the global limit.
    const shards = typeof config.SHARD_COUNT === "number" ? Math.max(1, config.SHARD_COUNT) : 1;
    config = {
      ...config,
      SHARD_COUNT: undefined,
      DISCORD_REQUESTS_PER_SECOND: Math.max(1, Math.floor(config.DISCORD_REQUESTS_PER_SECOND / shards)),
    };
  }

  let running: { stop(): Promise<void> } | undefined;
  let opening: Promise<Database> | undefined;
  // Installed before the start: a SIGTERM while connecting still stops cleanly.
  let starting: Promise<{ stop(): Promise<void> }> | undefined;
  installShutdown({
    logger,
    stop: async () => {
      await (starting ?? Promise.resolve(undefined)).catch(() => undefined);
      await running?.stop();
      // Stopped while the app's modules were still loading: the database opened early still closes.
      await closeUnused(opening);
    },
  });
  try {
    if (config.playground) {
      // Imported only here: with a token, nothing of the playground is loaded or started.
      const { startPlayground, announcePlayground } = await import("./playground/index.ts");
      const playground = startPlayground({ config, logger });
      starting = playground;
      const started = await playground;
      running = started;
      announcePlayground(started, logger);
      return;
    }
    // The database layer loads first, and the database opens (the embedded server starts,
    // migrations run) while the rest of the app loads: the server's start waits on other
    // processes, the loading on this one's CPU. Marked handled here; createApp awaits it.
    const { openDatabase } = await import("./db/index.ts");
    opening = openDatabase({ config, logger, startEngine: true });
    opening.catch(() => undefined);
    const { createApp } = await import("./app.ts");
    const app = createApp(config, { logger, opening });
    starting = app;
    const started = await app;
    running = started;
    log.info({ healthUrl: `${started.http.url}/healthz` }, "the bot is running; press Ctrl+C to stop");
  } catch (error) {
    await closeUnused(opening);
    if (error instanceof ConfigError || error instanceof PortUnavailableError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      log.fatal({ err: error }, "the bot could not start");
    }
    process.exit(1);
  }
}

/** Closes a database opened early (idempotent: the app may have closed it already). */
async function closeUnused(opening: Promise<Database> | undefined): Promise<void> {
  await opening?.then((database) => database.close()).catch(() => undefined);
}

async function runShardManager(config: Config, logger: Logger): Promise<void> {
  const log = logger.child({ module: "main" });
  // Imported only here: discord.js's ShardingManager is not on the single process's path.
  const starting = import("./sharding.ts").then(({ startShardManager }) =>
    startShardManager({
      config,
      logger,
      entry: fileURLToPath(import.meta.url),
      execArgv: process.execArgv,
    }),
  );
  installShutdown({
    logger,
    stop: async () => {
      const handle = await starting.catch(() => undefined);
      await handle?.stop();
    },
  });
  try {
    const handle = await starting;
    log.info(
      { healthUrl: `${handle.http.url}/healthz`, shards: handle.manager.shards.size },
      "the bot is running in shards",
    );
  } catch (error) {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else log.fatal({ err: error }, "the shards could not start");
    process.exit(1);
  }
}

await main();

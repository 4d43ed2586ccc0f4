// End-to-end harness: the sandbox marketplace, the local Discord double, a fresh database and the
// real app (real discord.js client) wired together. `const bot = await startBot()` ... `await bot.stop()`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AlertEngine } from "../../src/background/engine.ts";
import { createApp, type App, type AppOverrides } from "../../src/app.ts";
import { loadConfig } from "../../src/config/index.ts";
import type { Database } from "../../src/db/index.ts";
import type { AlertEngineService } from "../../src/background/alertService.ts";
import type { CommandModule } from "../../src/discord/command.ts";
import type { RouterMetrics } from "../../src/discord/router.ts";
import { createLogger } from "../../src/log.ts";
import { startSandbox, type DemoUser, type Sandbox } from "../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "./db.ts";
import {
  startDiscordDouble,
  textOf,
  type DiscordDouble,
  type DoubleUser,
  type StoredMessage,
} from "./discord.ts";

/** A Discord user of the double with the sandbox identity of the same name. */
export interface BotUser extends DoubleUser {
  readonly demo: DemoUser;
}

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly module?: string;
  readonly [key: string]: unknown;
}

export interface StartBotOptions {
  /** Every marketplace request is delayed this much (a sandbox latency fault on all routes). */
  readonly marketLatencyMs?: number;
  /** Environment overrides for loadConfig (e.g. { DISCORD_GUILD_ID: "..." }). */
  readonly env?: Readonly<Record<string, string>>;
  /** Test-only command modules added to the real ones. */
  readonly extraCommands?: readonly CommandModule[];
  readonly routerMetrics?: RouterMetrics;
  readonly autocompleteBudgetMs?: number;
  /** Run the app's default background services (alert engine...). Default true. */
  readonly backgroundServices?: boolean;
  /** More app overrides (services, clock...). */
  readonly overrides?: AppOverrides;
  /** Reuse parts of another harness (restarts): reused parts are not closed by this bot's stop(). */
  readonly reuse?: { double?: DiscordDouble; sandbox?: Sandbox; db?: TestDatabase; encryptionKey?: string };
}

export interface Bot {
  readonly app: App;
  readonly double: DiscordDouble;
  readonly sandbox: Sandbox;
  readonly db: TestDatabase;
  readonly users: { readonly alice: BotUser; readonly bob: BotUser };
  /** Every log line of the app, parsed (level 20 debug ... 50 error). */
  readonly logs: LogLine[];
  /** Log lines at error level or above. */
  errorLogs(): LogLine[];
  /** Resolves with the first log line (past or future) matching `predicate`. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Runs /account link with the user's sandbox key; resolves with the bot's answer. */
  link(user: BotUser, key?: string): Promise<StoredMessage>;
  /** Stops the app and starts a new one on the same double, sandbox and database. */
  restart(opts?: Omit<StartBotOptions, "reuse">): Promise<Bot>;
  stop(): Promise<void>;
}

export async function startBot(opts: StartBotOptions = {}): Promise<Bot> {
  const owned: (() => Promise<void>)[] = [];
  const logs: LogLine[] = [];
  const logListeners = new Set<(line: LogLine) => void>();
  const logger = createLogger({ level: "debug", name: "bot" }, memoryDestination(logs, logListeners));
  const cleanup = async () => {
    for (const close of owned.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    const double = opts.reuse?.double ?? (await startDiscordDouble());
    if (!opts.reuse?.double) owned.push(() => double.close());
    const sandbox = opts.reuse?.sandbox ?? (await startSandbox({ rateLimit: false }));
    if (!opts.reuse?.sandbox) owned.push(() => sandbox.close());
    const db = opts.reuse?.db ?? (await freshDatabase());
    if (!opts.reuse?.db) owned.push(() => db.close());
    const dataDir = await mkdtemp(path.join(tmpdir(), "bot-test-"));
    owned.push(() => rm(dataDir, { recursive: true, force: true }));
    if (opts.marketLatencyMs !== undefined) {
      sandbox.control.injectFault({ path: "**", kind: "latency", ms: opts.marketLatencyMs });
    }
    const encryptionKey = opts.reuse?.encryptionKey ?? randomBytes(32).toString("base64");
    const config = loadConfig(
      {
        DISCORD_TOKEN: "test-bot-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: encryptionKey,
        DATA_DIR: dataDir,
        LOG_LEVEL: "debug",
        NODE_ENV: "test",
        HTTP_PORT: "0",
        ...opts.env,
      },
      dataDir,
    );
    const database: Database = {
      prisma: db.prisma,
      url: db.url,
      embedded: false,
      pool: db.pool,
      close: async () => undefined,
    };
    const app = await createApp(config, {
      logger,
      database,
      ...(opts.extraCommands ? { extraCommands: opts.extraCommands } : {}),
      ...(opts.routerMetrics ? { routerMetrics: opts.routerMetrics } : {}),
      ...(opts.autocompleteBudgetMs === undefined ? {} : { autocompleteBudgetMs: opts.autocompleteBudgetMs }),
      ...(opts.backgroundServices === false ? { defaultServices: false } : {}),
      itemCatalog: sandbox.catalog,
      ...opts.overrides,
    });
    const pair = (name: "alice" | "bob"): BotUser => {
      const demo = sandbox.users.find((u) => u.name === name);
      if (!demo) throw new Error(`the sandbox has no demo user ${name}`);
      return { ...double.user(name), demo };
    };
    let stopped: Promise<void> | undefined;
    const bot: Bot = {
      app,
      double,
      sandbox,
      db,
      users: { alice: pair("alice"), bob: pair("bob") },
      logs,
      errorLogs: () => logs.filter((l) => l.level >= 50),
      waitForLog(predicate, timeoutMs = 5000) {
        const found = logs.find(predicate);
        if (found) return Promise.resolve(found);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            logListeners.delete(listener);
            reject(new Error(`no matching log line within ${timeoutMs} ms`));
          }, timeoutMs);
          const listener = (line: LogLine) => {
            if (!predicate(line)) return;
            clearTimeout(timer);
            logListeners.delete(listener);
            resolve(line);
          };
          logListeners.add(listener);
        });
      },
      async link(user, key = user.demo.apiKey) {
        const opened = await double.slash(user, "account link").firstResponse();
        if (opened.type !== 9)
          throw new Error(`/account link did not open a form (response type ${opened.type})`);
        const submit = double.modalSubmit(user, String(opened.data?.custom_id), { key });
        const answer = await submit.finalMessage();
        if (!textOf(answer).includes("Linked")) throw new Error(`linking failed: ${textOf(answer)}`);
        return answer;
      },
      async restart(next = {}) {
        await app.stop();
        // The new bot takes over what this one owned; this one's stop() becomes a no-op.
        const handover = owned.splice(0);
        const started = await startBot({
          ...next,
          reuse: { double, sandbox, db, encryptionKey },
        }).catch(async (error: unknown) => {
          for (const close of handover.reverse()) await close().catch(() => undefined);
          throw error;
        });
        const stop = started.stop;
        return {
          ...started,
          async stop() {
            await stop();
            for (const close of handover.reverse()) await close().catch(() => undefined);
          },
        };
      },
      stop() {
        stopped ??= (async () => {
          await app.stop();
          await cleanup();
        })();
        return stopped;
      },
    };
    return bot;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * A bot for suites that count marketplace requests: the alert engine's background polling is
 * stopped, so that the counts belong to the interactions under test, and `link` users are linked.
 */
export async function startQuietBot(
  link: readonly (keyof Bot["users"])[],
  opts: StartBotOptions = {},
): Promise<Bot> {
  const bot = await startBot(opts);
  try {
    await stopAlertPolling(bot);
    for (const name of link) await bot.link(bot.users[name]);
    return bot;
  } catch (error) {
    await bot.stop();
    throw error;
  }
}

/** Stops the app's alert engine service (feed, bid and trade polling, delivery). */
export async function stopAlertPolling(bot: Bot): Promise<void> {
  const alerts = bot.app.services.find((s) => s.name === "alerts");
  if (!alerts)
    throw new Error(`no alerts service; services: ${bot.app.services.map((s) => s.name).join(", ")}`);
  await alerts.stop();
}

/** The alert engine the app runs as a background service. */
export function alertEngineOf(bot: Bot): AlertEngine {
  const service = bot.app.services.find((s): s is AlertEngineService => s.name === "alerts" && "engine" in s);
  if (!service) throw new Error("the app runs no alert engine");
  return service.engine;
}

/** A synchronous pino destination: every line is parsed and kept, so tests can assert on logs. */
function memoryDestination(
  lines: LogLine[],
  listeners: ReadonlySet<(line: LogLine) => void>,
): { write(text: string): void } {
  const echo = process.env.TEST_LOG === "1";
  return {
    write(text) {
      for (const line of text.split("\n")) {
        if (line.trim() === "") continue;
        let parsed: LogLine;
        try {
          parsed = JSON.parse(line) as LogLine;
        } catch {
          parsed = { level: 30, msg: line };
        }
        lines.push(parsed);
        for (const listener of [...listeners]) listener(parsed);
        if (echo) process.stdout.write(`${line}\n`);
      }
    },
  };
}

// Composition root: builds every part from a Config (logger, database, key vault, marketplace,
// Discord client, router, registration, background services) and stops them in reverse order.
import { Events, type Client } from "discord.js";
import { createFateRecorder, type FateRecorder } from "./feed/fateRecorder.ts";
import { createRuleChangeHub } from "./watch/changes.ts";
import { commandModules } from "../commands/index.ts";
import { ConfigError, type Config } from "./config/index.ts";
import { openDatabase, type Database } from "./db/index.ts";
import { createKeyVault, resolveEncryptionKey, type KeyVault } from "./db/keyVault.ts";
import { assertStoredKeysReadable, upgradeStoredKeys } from "./db/rotateKey.ts";
import { ping, readInventory } from "./db/repos/inventory.ts";
import { depth as outboxDepth } from "./db/repos/outbox.ts";
import type { CommandModule } from "./discord/command.ts";
import { alertEngineService } from "./background/alertService.ts";
import { guardService } from "./background/guards.ts";
import { createDiscordClient } from "./discord/client.ts";
import type { BotDeps } from "./discord/deps.ts";
import { createRegistry, type CommandRegistry } from "./discord/registry.ts";
import {
  dbRegistrationStore,
  ensureCommandsRegistered,
  type RegistrationStore,
} from "./discord/registration.ts";
import { createRouter, type Router, type RouterMetrics } from "./discord/router.ts";
import { isGatewayUp, startOpsServer, type HttpServer } from "./http/index.ts";
import { createLogger, type Logger } from "./log.ts";
import { createMarketClient, type MarketClient, type MarketMetrics } from "./market/client.ts";
import { createScheduler, type Scheduler } from "./market/scheduler.ts";
import { createMetrics, fanOutMarketMetrics, fanOutRouterMetrics, type Metrics } from "./metrics.ts";
import type { Sandbox } from "./sandbox/index.ts";
import { createBotDeps } from "./services.ts";
import { withTimeout } from "./util/timeout.ts";
import type { AppContext, BackgroundService, ServiceFactory } from "./background/context.ts";

export interface AppOverrides {
  readonly logger?: Logger;
  /** Use this marketplace instead of MARKET_BASE_URL or the in-process sandbox. */
  readonly marketBaseUrl?: string;
  /** An open database the app uses but does not close (tests). */
  readonly database?: Database;
  /** A database being opened for this app (main.ts starts it while the app loads); the app closes it. */
  readonly opening?: Promise<Database>;
  /** Replaces the command list (default: commands/index.ts). */
  readonly commands?: readonly CommandModule[];
  /** Added to the command list (test-only commands). */
  readonly extraCommands?: readonly CommandModule[];
  /** Background services added to the defaults (see DEFAULT_SERVICES). */
  readonly services?: readonly ServiceFactory[];
  /** Run DEFAULT_SERVICES (default true). Tests that count marketplace traffic turn them off. */
  readonly defaultServices?: boolean;
  readonly routerMetrics?: RouterMetrics;
  readonly marketMetrics?: MarketMetrics;
  readonly registrationStore?: RegistrationStore;
  readonly autocompleteBudgetMs?: number;
  /** Item names the marketplace knows (tests against a sandbox they started); default: the in-process sandbox's. */
  readonly itemCatalog?: readonly string[];
  readonly now?: () => Date;
  /** Longest wait for the gateway's READY. Default 30 s. */
  readonly readyTimeoutMs?: number;
}

export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly client: Client<true>;
  readonly deps: BotDeps;
  readonly registry: CommandRegistry;
  readonly router: Router;
  readonly database: Database;
  readonly market: MarketClient;
  /** What became of alerted listings, written to their alert rows in batches. */
  readonly fates: FateRecorder;
  /** The address's request budget (what was sent, what waits, by priority). */
  readonly scheduler: Scheduler;
  readonly vault: KeyVault;
  /** The in-process sandbox marketplace, when one runs. */
  readonly sandbox: Sandbox | undefined;
  /** Whether this start sent the command definitions to Discord (false when unchanged). */
  readonly commandsRegistered: boolean;
  readonly services: readonly BackgroundService[];
  readonly metrics: Metrics;
  /** /healthz and /metrics on HTTP_HOST:HTTP_PORT (the bound port is in `http.port`). */
  readonly http: HttpServer;
  /** Stops everything in reverse order of start; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Background services every app runs. The alert engine and the HTTP server register here:
 * `(ctx) => ({ name, start, stop })`. Order matters: stopped in reverse.
 */
export const DEFAULT_SERVICES: readonly ServiceFactory[] = [alertEngineService, guardService];

export async function createApp(given: Config, overrides: AppOverrides = {}): Promise<App> {
  let config = given;
  const logger = overrides.logger ?? createLogger({ level: config.LOG_LEVEL });
  const log = logger.child({ module: "app" });
  const token = config.DISCORD_TOKEN;
  if (token === undefined) {
    throw new ConfigError([
      "DISCORD_TOKEN: required to run the bot (without it, `npm start` runs the playground)",
    ]);
  }
  // Every resource registers its closer as soon as it exists, so a failed start cleans up too.
  const closers: { name: string; close: () => Promise<void> | void }[] = [];
  const closeAll = async () => {
    for (const { name, close } of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        log.warn({ err, part: name }, "stopping a part failed");
      }
    }
  };

  try {
    const metrics = createMetrics({ logger });
    const database =
      overrides.database ??
      (await (overrides.opening ?? openDatabase({ config, logger, startEngine: true })));
    if (!overrides.database) closers.push({ name: "database", close: () => database.close() });
    metrics.watchOutbox(() => outboxDepth(database.prisma));
    metrics.watchDatabase(() => ping(database.prisma));
    metrics.watchInventory(() => readInventory(database.prisma));

    const encryption = await resolveEncryptionKey(config, logger);
    const vault = createKeyVault(encryption.key, encryption.keyId, encryption.ring);
    // Stored keys sealed with a key we do not hold would fail on every poll: refuse to start,
    // naming the fix. Rows in the older format are then sealed again, bound to their user.
    await assertStoredKeysReadable(database.prisma, vault);
    await upgradeStoredKeys(database.prisma, vault, logger);

    let sandbox: Sandbox | undefined;
    let marketBaseUrl = overrides.marketBaseUrl ?? config.MARKET_BASE_URL;
    if (marketBaseUrl === undefined) {
      // Imported only here: with MARKET_BASE_URL set, nothing of the sandbox is loaded.
      const { startSandbox } = await import("./sandbox/index.ts");
      // The roomy budgets, not the live ones (the sandbox's default): the playground promises an
      // alert within a second or two of a listing made in its panel, and 200 listing reads an hour
      // would space the feed's reads 18 s apart.
      sandbox = await startSandbox({ logger, rateLimit: "roomy" });
      const started = sandbox;
      closers.push({ name: "sandbox", close: () => started.close() });
      marketBaseUrl = sandbox.baseUrl;
      // Like the live service, the sandbox refuses keyless reads: the feed reads with its operator key.
      if (config.MARKET_API_KEY === undefined) config = { ...config, MARKET_API_KEY: sandbox.operatorKey };
      announceSandbox(log, sandbox);
    }
    const now = overrides.now ?? (() => new Date());
    // Every single-listing read (View buttons, /buy, the pollers) tells whether an alerted listing
    // sold: the missed-deal report costs no extra request.
    const fates = createFateRecorder({ prisma: database.prisma, logger, now });
    closers.push({ name: "listing fates", close: () => fates.close() });
    const scheduler = createScheduler({ budget: config.MARKET_ADDRESS_BUDGET });
    const market = createMarketClient({
      baseUrl: marketBaseUrl,
      logger,
      scheduler,
      metrics: fanOutMarketMetrics(metrics, overrides.marketMetrics),
      onListingRead: (listing) => fates.observeListing(listing),
    });
    closers.push({ name: "market client", close: () => market.close() });

    const registry = createRegistry([
      ...(overrides.commands ?? commandModules),
      ...(overrides.extraCommands ?? []),
    ]);
    // Rules saved through the handlers reach this process's alert engine at once (it subscribes
    // when it starts, after the handlers' deps exist); other replicas learn of them by their sync.
    const ruleChanges = createRuleChangeHub(logger);
    const deps: BotDeps = createBotDeps({
      config,
      logger,
      db: database.prisma,
      market,
      vault,
      now,
      ruleChanges,
      itemCatalog: overrides.itemCatalog ?? sandbox?.catalog ?? [],
      commands: registry.definitions,
    });

    const client = createDiscordClient(config, logger);
    closers.push({ name: "discord client", close: () => client.destroy() });
    metrics.watchGateway(() => isGatewayUp(client));
    const router = createRouter({
      registry,
      deps,
      logger,
      metrics: fanOutRouterMetrics(metrics, overrides.routerMetrics),
      ...(overrides.autocompleteBudgetMs === undefined
        ? {}
        : { autocompleteBudgetMs: overrides.autocompleteBudgetMs }),
    });
    router.attach(client);
    closers.push({
      name: "in-flight interactions",
      close: () => withTimeout(router.drain(), 5000, { message: "timed out" }),
    });

    const ready = await login(client, token, overrides.readyTimeoutMs ?? 30_000);
    log.info({ user: ready.user.tag, guilds: ready.guilds.cache.size }, "connected to Discord");

    const commandsRegistered = await registerIfChanged(ready, config, registry, {
      store: overrides.registrationStore ?? dbRegistrationStore(database.prisma),
      logger,
    });

    const context: AppContext = {
      config,
      logger,
      client: ready,
      deps,
      database,
      market,
      vault,
      ruleChanges,
      fates,
      metrics,
      scheduler,
    };
    const services: BackgroundService[] = [];
    const defaults = overrides.defaultServices === false ? [] : DEFAULT_SERVICES;
    for (const factory of [...defaults, ...(overrides.services ?? [])]) {
      const service = factory(context);
      await service.start();
      services.push(service);
      closers.push({ name: service.name, close: () => service.stop() });
      log.info({ service: service.name }, "service started");
    }
    // Last to start, first to stop: /healthz answers only while everything behind it runs.
    const http = await startOpsServer(context);
    closers.push({ name: "http server", close: () => http.close() });

    let stopping: Promise<void> | undefined;
    return {
      config,
      logger,
      client: ready,
      deps,
      registry,
      router,
      database,
      market,
      fates,
      scheduler,
      vault,
      sandbox,
      commandsRegistered,
      services,
      metrics,
      http,
      stop() {
        stopping ??= (async () => {
          log.info("stopping");
          await closeAll();
          log.info("stopped");
        })();
        return stopping;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function login(client: Client, token: string, timeoutMs: number): Promise<Client<true>> {
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(token);
  return withTimeout(ready, timeoutMs, { message: "Discord did not send READY in time" });
}

/** Registration failing must not keep the bot down: the previous commands still work. */
async function registerIfChanged(
  client: Client<true>,
  config: Config,
  registry: CommandRegistry,
  opts: { store: RegistrationStore; logger: Logger },
): Promise<boolean> {
  try {
    const result = await ensureCommandsRegistered({
      rest: client.rest,
      applicationId: config.DISCORD_APPLICATION_ID ?? client.application.id,
      guildId: config.DISCORD_GUILD_ID,
      definitions: registry.definitions,
      store: opts.store,
      logger: opts.logger,
    });
    return result.registered;
  } catch (err) {
    opts.logger.error(
      { err, module: "registration" },
      "registering slash commands failed; will retry next start",
    );
    return false;
  }
}

function announceSandbox(log: Logger, sandbox: Sandbox): void {
  // Loud on purpose: nobody should believe real trades happen here.
  log.warn(
    { marketBaseUrl: sandbox.baseUrl },
    "USING THE BUILT-IN SANDBOX MARKETPLACE (no MARKET_BASE_URL set): simulated data, no real money or items move",
  );
  log.warn(
    { demoKeys: sandbox.users.map((u) => `${u.name}: ${u.apiKey}`) },
    "sandbox demo API keys (public test values): link one with /account link",
  );
}

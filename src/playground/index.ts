// startPlayground(): the whole bot on one machine — the local Discord, the real app against it, the sandbox, and the page.
import { pino } from "pino";
import { createApp, type App, type AppOverrides } from "../app.ts";
import type { Config } from "../config/index.ts";
import type { RegistrationStore } from "../discord/registration.ts";
import type { Logger } from "../log.ts";
import {
  DEFAULT_IDS,
  defaultGuild,
  friendsServer,
  startDiscordDouble,
  type DiscordDouble,
} from "./discord/index.ts";
import { startPlaygroundServer, type PlaygroundServer } from "./server.ts";

export interface PlaygroundOptions {
  /** A loaded configuration; its DISCORD_TOKEN and DISCORD_API_URL are replaced by the local Discord's. */
  readonly config: Config;
  readonly logger: Logger;
  /** Port of the page. Default: PLAYGROUND_PORT; 0 picks a free one. */
  readonly port?: number;
  readonly host?: string;
  /** Passed to createApp (tests hand in an open test database). */
  readonly overrides?: AppOverrides;
}

export interface Playground {
  /** The page to open: http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly double: DiscordDouble;
  readonly app: App;
  readonly server: PlaygroundServer;
  /** Stops the page, the bot, then the local Discord; safe to call twice. */
  stop(): Promise<void>;
}

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const { logger } = options;
  // A second server without the bot, where only an account install can be used (ADR 022).
  const double = await startDiscordDouble({
    logger,
    guilds: [defaultGuild(DEFAULT_IDS.application), friendsServer()],
  });
  let app: App | undefined;
  try {
    // The production code path: the real discord.js client, only its REST base points elsewhere.
    app = await createApp(
      { ...options.config, DISCORD_TOKEN: "playground-token", DISCORD_API_URL: double.apiUrl },
      // This local Discord starts empty every time: the commands must be registered on every start,
      // whatever the database remembers from the last run.
      { logger, registrationStore: memoryRegistrationStore(), ...options.overrides },
    );
    const started = app;
    const server = await startPlaygroundServer({
      double,
      sandbox: started.sandbox,
      rulesOf: (discordId) => started.deps.rules.list({ discordId }),
      logger,
      port: options.port ?? options.config.PLAYGROUND_PORT,
      ...(options.host === undefined ? {} : { host: options.host }),
    });
    let stopping: Promise<void> | undefined;
    return {
      url: server.url,
      double,
      app: started,
      server,
      stop() {
        stopping ??= (async () => {
          await server.close();
          await started.stop();
          await double.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await app?.stop();
    await double.close();
    throw error;
  }
}

function memoryRegistrationStore(): RegistrationStore {
  const hashes = new Map<string, string>();
  return {
    get: async (scope) => hashes.get(scope),
    set: async (scope, hash) => {
      hashes.set(scope, hash);
    },
  };
}

/** Prints the banner after every start-up log line (pino writes asynchronously; the banner must come last). */
export function announcePlayground(
  playground: Pick<Playground, "url" | "app">,
  logger: Logger,
  out: NodeJS.WritableStream = process.stdout,
): void {
  const stream: unknown = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  try {
    if (typeof stream === "object" && stream !== null && "flushSync" in stream) {
      (stream as { flushSync(): void }).flushSync();
    }
  } catch {
    // Nothing buffered, or the stream is busy: the banner may then share the screen with a log line.
  }
  out.write(playgroundBanner(playground));
}

/** What `npm start` prints once the playground is up: where to go, what it is, how to leave it. */
export function playgroundBanner(playground: Pick<Playground, "url" | "app">): string {
  const market =
    playground.app.sandbox === undefined
      ? "the marketplace at MARKET_BASE_URL (real: take care)"
      : "the sandbox marketplace: simulated, no real money or items";
  return [
    "",
    `  Playground ready: open ${playground.url}`,
    `  A local Discord in your browser running the real bot, with ${market}.`,
    "  To connect to real Discord instead, set DISCORD_TOKEN in .env (see .env.example) and restart.",
    "",
    "",
  ].join("\n");
}

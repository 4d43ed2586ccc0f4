// Builds the discord.js client: intents, DM partials, the REST base (Discord or a local double), shards.
import { Client, DefaultRestOptions, GatewayIntentBits, Partials, type ClientOptions } from "discord.js";
import type { Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import { createGlobalPacer } from "./outbound/globalPacer.ts";

export const DISCORD_API_DEFAULT = "https://discord.com/api";

/** discord.js wants the base without the version: accept ".../api" and ".../api/v10" alike. */
export function discordRestBase(url: string | undefined): string {
  if (url === undefined) return DISCORD_API_DEFAULT;
  return url.replace(/\/+$/, "").replace(/\/v\d+$/, "");
}

export function createDiscordClient(
  config: Pick<Config, "DISCORD_API_URL" | "SHARD_COUNT" | "DISCORD_REQUESTS_PER_SECOND">,
  logger: Logger,
): Client {
  const log = logger.child({ module: "discord" });
  const pacer = createGlobalPacer({ perSecond: config.DISCORD_REQUESTS_PER_SECOND });
  const shards: Pick<ClientOptions, "shards" | "shardCount"> =
    config.SHARD_COUNT === undefined
      ? {}
      : config.SHARD_COUNT === "auto"
        ? { shards: "auto" }
        : { shards: [...Array(config.SHARD_COUNT).keys()], shardCount: config.SHARD_COUNT };
  const client = new Client({
    // Slash commands, components and DMs need no privileged intents.
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
    // DM channels arrive uncached; without this partial discord.js drops DM events.
    partials: [Partials.Channel],
    // Item names and user text may contain @everyone: the bot never pings by accident.
    allowedMentions: { parse: [] },
    // discord.js queues each route and waits out its bucket from the headers Discord sends; the
    // pacer spaces authenticated requests under this process's share of the global limit, with a
    // margin, so no second as Discord counts it sees more (ADR 018).
    rest: {
      api: discordRestBase(config.DISCORD_API_URL),
      globalRequestsPerSecond: config.DISCORD_REQUESTS_PER_SECOND,
      makeRequest: async (url, init) => {
        await pacer.slot(init);
        return DefaultRestOptions.makeRequest(url, init);
      },
    },
    ...shards,
  });
  client.on("error", (err) => log.error({ err }, "discord client error"));
  client.on("warn", (message) => log.warn({ message }, "discord client warning"));
  client.on("shardDisconnect", (event, shardId) =>
    log.warn({ shardId, code: event.code }, "gateway disconnected"),
  );
  client.on("shardReconnecting", (shardId) => log.info({ shardId }, "gateway reconnecting"));
  client.on("shardResume", (shardId, replayed) => log.info({ shardId, replayed }, "gateway resumed"));
  client.on("shardError", (err, shardId) => log.warn({ err, shardId }, "gateway error"));
  // discord.js tells of its own waits before sending, not of 429s. Waiting for the global budget
  // is how a fan-out runs at Discord's ceiling (hundreds of waits per 5,000 DMs): debug only.
  client.rest.on("rateLimited", (info) => {
    const fields = { route: info.route, retryAfterMs: info.retryAfter, global: info.global };
    if (info.global) log.debug(fields, "waiting for the global request budget");
    else log.warn(fields, "discord rate limit hit");
  });
  return client;
}

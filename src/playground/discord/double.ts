// The local Discord: one in-process HTTP + WebSocket server that the real discord.js client talks to,
// with helpers that play the users' side (slash commands, buttons, modals) and an event API.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import { Gateway } from "./gateway.ts";
import { type DispatchOptions, type PayloadContext, resolveTarget } from "./interactions.ts";
import {
  DEFAULT_IDS,
  defaultGuild,
  defaultUsers,
  memberPermissions,
  type DoubleGuild,
  type DoubleUser,
  type FaultSpec,
  type RecordedRequest,
  type RegisteredCommand,
  type StoredMessage,
} from "./model.ts";
import { DISCORD_GLOBAL_LIMIT, type GlobalLimit, type SendBudget } from "./rateLimits.ts";
import { createRest } from "./rest.ts";
import { MessageBody } from "./validation.ts";
import { World, type DoubleEvents, type InteractionRecord } from "./world.ts";
import { installFields } from "./installs.ts";
import { shardOf, shardReady } from "./ready.ts";
import { requestListener, type PendingFault } from "./requests.ts";
import { DEFAULT_WAIT_MS, waitOnWorld, type InteractionHandle } from "./handles.ts";
import { userActions, type UserActions } from "./actions.ts";

export interface DiscordDoubleOptions {
  /** Default 0: any free port. */
  readonly port?: number;
  readonly host?: string;
  readonly logger?: Logger;
  readonly applicationId?: string;
  /** Human users; default alice and bob. The bot user is derived from the application id. */
  readonly users?: readonly DoubleUser[];
  /** Guilds; default one guild with #general, #deals and a voice channel (see model.ts). */
  readonly guilds?: readonly DoubleGuild[];
  /** Accept only this bot token (default: any non-empty token). */
  readonly token?: string;
  /** How long an interaction token accepts its first callback. Discord: 3000 ms. */
  readonly interactionTokenTtlMs?: number;
  readonly heartbeatIntervalMs?: number;
  /** `max_concurrency` in GET /gateway/bot (shards identifying in parallel). Default 1. */
  readonly maxConcurrency?: number;
  /** Per-channel message budget answering 429 when exceeded. Off by default. */
  readonly sendBudget?: SendBudget;
  /** The bot's global request limit; default Discord's 50/s, false: none. */
  readonly globalLimit?: GlobalLimit | false;
}

export interface DiscordDouble extends UserActions {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** The REST base for discord.js's `rest.api` (without /v10): http://127.0.0.1:PORT/api */
  readonly apiUrl: string;
  readonly gatewayUrl: string;
  readonly applicationId: string;
  readonly botUser: DoubleUser;
  readonly users: readonly DoubleUser[];
  /** A user by username or id; throws when unknown. */
  user(nameOrId: string): DoubleUser;
  readonly guild: DoubleGuild;
  readonly guilds: readonly DoubleGuild[];
  /** The default guild's first text channel. */
  readonly channelId: string;
  readonly requests: readonly RecordedRequest[];
  readonly faults: { add(spec: FaultSpec): void; clear(): void; readonly pending: number };
  interactionTokenTtlMs: number;
  sendBudget: SendBudget | undefined;
  /** The bot's global request limit in force (undefined: none). */
  globalLimit: GlobalLimit | undefined;
  /** From now on, sends to this user's DM channel answer 403 code 50007. */
  closeDms(userId: string): void;
  openDms(userId: string): void;
  /** The user installs the app to their account (true) or removes it (false): see installs.ts. */
  setAccountInstall(userId: string, installed: boolean): void;
  hasAccountInstall(userId: string): boolean;
  /** Whether Discord's client offers this command to the user there (installs and contexts). */
  offers(user: DoubleUser, command: RegisteredCommand, opts?: DispatchOptions): boolean;
  /** Closes every gateway socket with a resumable code; resolves once all sessions RESUMEd. */
  dropGateway(timeoutMs?: number): Promise<void>;
  /** True once a bot identified on the shard that serves this guild (or DMs). */
  isBotConnected(): boolean;
  /** Puts a message in a channel as if it had been sent earlier (default author: the bot). */
  postMessage(
    channelId: string,
    body: { content?: string; components?: unknown[]; embeds?: unknown[] },
    author?: DoubleUser,
  ): StoredMessage;
  message(id: string): StoredMessage | undefined;
  messagesIn(channelId: string): StoredMessage[];
  dmChannelOf(userId: string): string | undefined;
  /** The user's DM channel with the bot, opened if needed (as the bot's POST /users/@me/channels does). */
  openDm(userId: string): string;
  dmsTo(userId: string): StoredMessage[];
  waitForDm(
    userId: string,
    predicate?: (m: StoredMessage) => boolean,
    timeoutMs?: number,
  ): Promise<StoredMessage>;
  registeredCommands(guildId?: string): readonly RegisteredCommand[];
  interactions(): InteractionRecord[];
  /** One interaction by id: who ran what, for showing a reply's origin. */
  interaction(id: string): InteractionRecord | undefined;
  /** Resolves with the first truthy value of `probe`, re-checked after every change. */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  on<K extends keyof DoubleEvents>(event: K, listener: (...args: DoubleEvents[K]) => void): void;
  off<K extends keyof DoubleEvents>(event: K, listener: (...args: DoubleEvents[K]) => void): void;
  close(): Promise<void>;
}

export async function startDiscordDouble(options: DiscordDoubleOptions = {}): Promise<DiscordDouble> {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ module: "discord-double" });
  const applicationId = options.applicationId ?? DEFAULT_IDS.application;
  const { bot, humans } = defaultUsers(applicationId);
  const users = options.users ?? humans;
  const guilds = options.guilds ?? [defaultGuild(bot.id)];
  const world = new World(applicationId, bot, users, guilds);
  let interactionTokenTtlMs = options.interactionTokenTtlMs ?? 3000;
  let sendBudget = options.sendBudget;
  let globalLimit = options.globalLimit === false ? undefined : (options.globalLimit ?? DISCORD_GLOBAL_LIMIT);
  const faults: PendingFault[] = [];
  let address = "";

  const acceptToken = (token: string) =>
    token.length > 0 && (options.token === undefined || token === options.token);

  const gateway = new Gateway({
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    acceptToken,
    resumeUrl: () => `ws://${address}/gateway`,
    logger,
    onEvent: (event) => {
      world.emit("gateway", event);
      world.changed();
    },
    readyFor: (shardId, shardCount) => shardReady(world, bot, applicationId, shardId, shardCount),
  });

  const rest = createRest({
    world,
    baseUrl: () => `http://${address}`,
    gatewayUrl: () => `ws://${address}/gateway`,
    maxConcurrency: options.maxConcurrency ?? 1,
    sendBudget: () => sendBudget,
    globalLimit: () => globalLimit,
  });

  const server: Server = createServer(requestListener({ world, rest, acceptToken, faults, logger }));
  server.on("upgrade", (req, socket, head) => gateway.handleUpgrade(req, socket, head));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  address = `${options.host ?? "127.0.0.1"}:${port}`;
  logger.info({ url: `http://${address}` }, "discord double listening");

  const defaultGuildId = guilds[0]?.id;
  const payloadContext = (): PayloadContext => ({
    world,
    defaultGuildId,
    tokenTtlMs: interactionTokenTtlMs,
  });

  const waitFor = waitOnWorld(world);

  const actions = userActions({
    world,
    gateway,
    payloadContext,
    waitFor,
    postMessage: (channelId, body) => double.postMessage(channelId, body),
    defaultChannelId: () => double.channelId,
  });

  const double: DiscordDouble = {
    url: `http://${address}`,
    apiUrl: `http://${address}/api`,
    gatewayUrl: `ws://${address}/gateway`,
    applicationId,
    botUser: bot,
    users,
    user(nameOrId) {
      const found = [...world.users.values()].find((u) => u.username === nameOrId || u.id === nameOrId);
      if (!found) throw new Error(`the double has no user "${nameOrId}"`);
      return found;
    },
    get guild() {
      const first = guilds[0];
      if (!first) throw new Error("the double was started without guilds");
      return first;
    },
    guilds,
    get channelId() {
      const channel = double.guild.channels.find((c) => c.type === 0);
      if (!channel) throw new Error("the default guild has no text channel");
      return channel.id;
    },
    requests: world.requests,
    faults: {
      add(spec) {
        faults.push({ spec, left: spec.times ?? 1 });
      },
      clear() {
        faults.length = 0;
      },
      get pending() {
        return faults.reduce((n, f) => n + f.left, 0);
      },
    },
    get interactionTokenTtlMs() {
      return interactionTokenTtlMs;
    },
    set interactionTokenTtlMs(ms: number) {
      interactionTokenTtlMs = ms;
    },
    get sendBudget() {
      return sendBudget;
    },
    set sendBudget(budget: SendBudget | undefined) {
      sendBudget = budget;
    },
    get globalLimit() {
      return globalLimit;
    },
    set globalLimit(limit: GlobalLimit | undefined) {
      globalLimit = limit;
    },
    closeDms(userId) {
      world.closedDms.add(userId);
    },
    openDms(userId) {
      world.closedDms.delete(userId);
    },
    setAccountInstall(userId, installed) {
      if (installed) world.accountInstalls.add(userId);
      else world.accountInstalls.delete(userId);
      world.changed();
    },
    hasAccountInstall: (userId) => world.accountInstalls.has(userId),
    offers(user, command, opts = {}) {
      const { guild, channel } = resolveTarget(payloadContext(), user, opts);
      try {
        installFields(world, user, guild, channel, command);
        return true;
      } catch {
        return false;
      }
    },
    async dropGateway(timeoutMs = DEFAULT_WAIT_MS) {
      const resumed = new Set<string>();
      const onEvent = (e: { type: string; sessionId?: string }) => {
        if (e.type === "resume" && e.sessionId) resumed.add(e.sessionId);
      };
      world.on("gateway", onEvent);
      try {
        const dropped = gateway.drop();
        if (dropped.length === 0) throw new Error("dropGateway: no bot is connected");
        await waitFor(() => dropped.every((id) => resumed.has(id)), timeoutMs, "the bot to RESUME");
      } finally {
        world.off("gateway", onEvent);
      }
    },
    isBotConnected() {
      return gateway.shards.length > 0 && gateway.shards.every((s) => gateway.isConnected(s));
    },
    ...actions,
    postMessage(channelId, body, author = bot) {
      if (!world.channels.has(channelId)) throw new Error(`unknown channel ${channelId}`);
      return world.createMessage({ channelId, author, body: MessageBody.parse(body), files: [] });
    },
    message: (id) => world.messages.get(id),
    messagesIn: (channelId) => world.messagesIn(channelId),
    dmChannelOf: (userId) => world.dmByUser.get(userId),
    openDm(userId) {
      const user = world.users.get(userId);
      if (!user || user.bot) throw new Error(`openDm: ${userId} is not a human user of the double`);
      return world.dmChannelFor(userId).id;
    },
    dmsTo(userId) {
      const channelId = world.dmByUser.get(userId);
      return channelId ? world.messagesIn(channelId).filter((m) => m.author.id === bot.id) : [];
    },
    waitForDm(userId, predicate = () => true, timeoutMs = DEFAULT_WAIT_MS) {
      return waitFor(() => double.dmsTo(userId).find(predicate), timeoutMs, `a DM to ${userId}`);
    },
    registeredCommands(guildId) {
      return guildId ? (world.guildCommands.get(guildId) ?? []) : world.globalCommands;
    },
    interactions: () => [...world.interactions.values()],
    interaction: (id) => world.interactions.get(id),
    waitFor,
    // EventEmitter's conditional listener type does not narrow for a generic K; the signature above is the contract.
    on(event, listener) {
      world.on(event, listener as never);
    },
    off(event, listener) {
      world.off(event, listener as never);
    },
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return double;
}

export { memberPermissions, shardOf };
export type { InteractionHandle };

// The bench's world: the sandbox marketplace, the local Discord, a fresh database and the real app
// (createApp: discord.js client, router, alert engine, delivery) wired as src/main.ts wires them.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createApp, type App, type AppOverrides } from "../../src/app.ts";
import type { BackgroundService } from "../../src/background/context.ts";
import type { AlertEngine } from "../../src/background/engine.ts";
import { loadConfig } from "../../src/config/index.ts";
import {
  DEFAULT_IDS,
  defaultGuild,
  defaultUsers,
  startDiscordDouble,
  type DiscordDouble,
  type DoubleUser,
  type SendBudget,
} from "../../src/playground/discord/index.ts";
import { startSandbox, type RateLimitOptions, type Sandbox } from "../../src/sandbox/index.ts";
import { logSink, type LogSink } from "./common.ts";
import type { BenchDatabase, BenchPostgres } from "./database.ts";

export interface BenchWorldOptions {
  postgres: BenchPostgres;
  /** Extra Discord users (members of the guild, DM-able); alice and bob are always there. */
  users?: readonly DoubleUser[];
  /** The sandbox's per-key budget; false: never refuse (headers still sent). Default: the sandbox default. */
  sandboxRateLimit?: RateLimitOptions | false;
  /** The sandbox's budget for this address, all keys together (none by default). */
  sandboxAddressRateLimit?: RateLimitOptions;
  sendBudget?: SendBudget;
  /** Environment for loadConfig on top of the bench's (POLL_INTERVAL_MS...). */
  env?: Readonly<Record<string, string>>;
  overrides?: AppOverrides;
  /** Called with the empty database before the app starts (bulk inserts of users and rules). */
  seed?: (db: BenchDatabase) => Promise<void>;
}

export interface BenchWorld {
  readonly app: App;
  readonly double: DiscordDouble;
  readonly sandbox: Sandbox;
  readonly db: BenchDatabase;
  readonly logs: LogSink;
  /** The app's alert engine (the default "alerts" background service). */
  engine(): AlertEngine;
  stop(): Promise<void>;
}

/**
 * Opens each user's DM channel at the double and keeps it in `users.dm_channel_id`, as the bot
 * does after a first DM or when the user saves a rule (ADR 039). Returns the channel ids in order.
 */
export async function keepDmChannels(world: BenchWorld, discordIds: readonly string[]): Promise<string[]> {
  const channelOf = discordIds.map((id) => world.double.openDm(id));
  await world.db.pool.query(
    `UPDATE users u SET dm_channel_id = t.c FROM unnest($1::text[], $2::text[]) AS t(d, c) WHERE u.discord_id = t.d`,
    [discordIds, channelOf],
  );
  return channelOf;
}

function hasEngine(s: BackgroundService): s is BackgroundService & { engine: AlertEngine } {
  return "engine" in s && typeof (s as { engine?: unknown }).engine === "object";
}

/** The app's alert engine (the default "alerts" background service). */
export function engineOf(app: App): AlertEngine {
  const service = app.services.find(hasEngine);
  if (!service) throw new Error("the app runs no alert engine service");
  return service.engine;
}

export async function startBenchWorld(opts: BenchWorldOptions): Promise<BenchWorld> {
  const closers: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    const logs = logSink();
    const { bot, humans } = defaultUsers(DEFAULT_IDS.application);
    const guild = defaultGuild(bot.id);
    const extra = opts.users ?? [];
    const double = await startDiscordDouble({
      users: [...humans, ...extra],
      guilds: [{ ...guild, members: [...guild.members, ...extra.map((u) => ({ userId: u.id, roles: [] }))] }],
      ...(opts.sendBudget ? { sendBudget: opts.sendBudget } : {}),
    });
    closers.push(() => double.close());
    const sandbox = await startSandbox({
      // The roomy budgets unless a bench asks for others: the recorded figures were measured on them
      // (the sandbox's default, the live budgets, would pace the feed to 200 reads an hour).
      rateLimit: opts.sandboxRateLimit ?? "roomy",
      ...(opts.sandboxAddressRateLimit === undefined
        ? {}
        : { addressRateLimit: opts.sandboxAddressRateLimit }),
    });
    closers.push(() => sandbox.close());
    const db = await opts.postgres.create();
    closers.push(() => db.close());
    if (opts.seed) await opts.seed(db);
    const dataDir = await mkdtemp(path.join(tmpdir(), "bench-app-"));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = loadConfig(
      {
        DISCORD_TOKEN: "bench-bot-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        NODE_ENV: "production",
        HTTP_PORT: "0",
        ...opts.env,
      },
      dataDir,
    );
    const app = await createApp(config, { logger: logs.logger, database: db, ...opts.overrides });
    closers.push(() => app.stop());
    return {
      app,
      double,
      sandbox,
      db,
      logs,
      engine: () => engineOf(app),
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** A Discord user linked to a sandbox account, stored as /account link would store it. */
export interface LinkedTrader {
  discordId: string;
  market: { name: string; platformId: string; apiKey: string };
  dbId: number;
}

/**
 * Links `discordId` to a new sandbox account with `balance` cents: the user row first, then its
 * sealed key (bound to the row). `caps` overrides the default spend caps (null: no cap).
 */
export async function linkTrader(
  world: BenchWorld,
  discordId: string,
  name: string,
  opts: { balance?: number; caps?: { perPurchaseCents: bigint | null; dailyCents: bigint | null } } = {},
): Promise<LinkedTrader> {
  const market = world.sandbox.control.createUser({ name, balance: opts.balance ?? 1_000_000 });
  const vault = world.app.vault;
  const row = await world.db.prisma.user.create({ data: { discordId, status: "unlinked" } });
  await world.db.prisma.user.update({
    where: { id: row.id },
    data: {
      encryptedKey: vault.encrypt(market.apiKey, row.id),
      keyId: vault.keyId,
      keyFingerprint: vault.fingerprint(market.apiKey),
      platformId: market.platformId,
      platformName: market.name,
      status: "active",
      linkedAt: new Date(),
      ...(opts.caps === undefined
        ? {}
        : { perPurchaseCapCents: opts.caps.perPurchaseCents, dailyCapCents: opts.caps.dailyCents }),
    },
  });
  return { discordId, market, dbId: row.id };
}

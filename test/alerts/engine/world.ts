// The alert engine's test world: sandbox marketplace over HTTP, a fresh Postgres database, the local
// Discord with a real discord.js client, and engines built from them the way src/app.ts builds one.
import { randomBytes } from "node:crypto";
import type { Client } from "discord.js";
import { createAlertEngine, type AlertEngine, type AlertEngineDeps } from "../../../src/background/engine.ts";
import type { AlertSender } from "../../../src/outbox/sender.ts";
import { createKeyVault, type KeyVault } from "../../../src/db/keyVault.ts";
import { createDiscordAlertSender } from "../../../src/discord/outbound/alertSender.ts";
import { createLogger, type Logger } from "../../../src/log.ts";
import { createMarketClient, type MarketClient } from "../../../src/market/client.ts";
import {
  startSandbox,
  type DemoUser,
  type RateLimitOptions,
  type Sandbox,
} from "../../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import {
  connectClient,
  DEFAULT_IDS,
  defaultUsers,
  startDiscordDouble,
  type DiscordDouble,
  type DoubleUser,
} from "../../support/discord.ts";

export interface World {
  sandbox: Sandbox;
  db: TestDatabase;
  market: MarketClient;
  double: DiscordDouble;
  client: Client<true>;
  vault: KeyVault;
  logger: Logger;
  sender: AlertSender;
  /** An engine on this world's database (a replica when called twice). */
  engine(overrides?: Partial<AlertEngineDeps>): AlertEngine;
  /** The sandbox's demo account of that name (alice, bob...); throws when there is none. */
  demo(name: string): DemoUser;
  /** A Discord user with a linked marketplace account (active key). */
  linkUser(discordUser: DoubleUser, market: DemoUser, settings?: Record<string, unknown>): Promise<number>;
  /** The double's user and the sandbox's demo account of that name, linked: both and the row id. */
  linkDemo(name: string): Promise<{ user: DoubleUser; demo: DemoUser; id: number }>;
  /** A Discord user without a linked key (enough for watch rules). */
  plainUser(discordUser: DoubleUser): Promise<number>;
  /** Stores a rule directly (the /watch command has its own tests). */
  addRule(
    userId: number,
    name: string,
    filters: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<number>;
  close(): Promise<void>;
}

export const FAST_CONFIG = {
  POLL_INTERVAL_MS: 2000,
  BID_POLL_INTERVAL_MS: 15000,
  TRADE_POLL_INTERVAL_MS: 30000,
  MARKET_API_KEY: undefined,
} as const;

export async function startWorld(
  opts: {
    sandboxClock?: () => number;
    sandboxRateLimit?: RateLimitOptions;
    /** Discord users besides alice and bob. */
    users?: readonly DoubleUser[];
  } = {},
): Promise<World> {
  const logger = createLogger({ level: "silent" });
  const sandbox = await startSandbox({
    port: 0,
    rateLimit: opts.sandboxRateLimit ?? false,
    ...(opts.sandboxClock ? { clock: opts.sandboxClock } : {}),
  });
  const db = await freshDatabase();
  const market = createMarketClient({ baseUrl: sandbox.baseUrl, logger, retry: { attempts: 1 } });
  const double = await startDiscordDouble(
    opts.users ? { users: [...defaultUsers(DEFAULT_IDS.application).humans, ...opts.users] } : {},
  );
  const client = await connectClient(double);
  const vault = createKeyVault(randomBytes(32));
  const sender = createDiscordAlertSender(client, logger);
  const engines: AlertEngine[] = [];

  const world: World = {
    sandbox,
    db,
    market,
    double,
    client,
    vault,
    logger,
    sender,
    engine(overrides = {}) {
      const engine = createAlertEngine({
        // The feed reads with the operator key, as against the live service.
        config: { ...FAST_CONFIG, MARKET_API_KEY: sandbox.operatorKey },
        prisma: db.prisma,
        databaseUrl: db.url,
        market,
        sender,
        openKey: (sealed, userId) => vault.decrypt(sealed, userId),
        logger,
        ...overrides,
      });
      engines.push(engine);
      return engine;
    },
    demo(name) {
      const u = sandbox.users.find((d) => d.name === name);
      if (!u) throw new Error(`no sandbox user ${name}`);
      return u;
    },
    async linkDemo(name) {
      const user = double.user(name);
      const demo = world.demo(name);
      return { user, demo, id: await world.linkUser(user, demo) };
    },
    async linkUser(discordUser, account, settings = {}) {
      // The sealed key is bound to the user's row: the row first, then its key.
      const row = await db.prisma.user.create({ data: { discordId: discordUser.id, status: "unlinked" } });
      const user = await db.prisma.user.update({
        where: { id: row.id },
        data: {
          encryptedKey: vault.encrypt(account.apiKey, row.id),
          keyId: vault.keyId,
          keyFingerprint: vault.fingerprint(account.apiKey),
          platformId: account.platformId,
          platformName: account.name,
          status: "active",
          linkedAt: new Date(),
          ...settings,
        },
      });
      return user.id;
    },
    async plainUser(discordUser) {
      const user = await db.prisma.user.create({ data: { discordId: discordUser.id, status: "unlinked" } });
      return user.id;
    },
    async addRule(userId, name, filters, extra = {}) {
      const rule = await db.prisma.watchRule.create({
        data: {
          userId,
          name,
          filters: filters as object,
          itemKey: typeof filters.item === "string" ? filters.item.toLowerCase() : null,
          ...extra,
        },
      });
      return rule.id;
    },
    async close() {
      await Promise.all(engines.map((e) => e.stop()));
      await client.destroy();
      await double.close();
      await market.close();
      await sandbox.close();
      await db.close();
    },
  };
  return world;
}

/** A market_hash_name no seeded listing carries, so rules on it match only what a test creates. */
export function uniqueItemName(tag: string): string {
  return `Test Blade | ${tag} ${randomBytes(3).toString("hex")} (Pristine)`;
}

/** Re-checks `probe` every few ms until it holds; fails with `what` after the deadline. */
export async function waitUntil(
  probe: () => boolean | Promise<boolean>,
  deadlineMs: number,
  what: string,
): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

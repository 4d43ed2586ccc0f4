// Test world for the trading verbs: a real sandbox over HTTP, a fresh real database, and users
// that exist in both (a sandbox account with a key, a bot user row with caps).
import { updateSettings, ensureUser } from "../../src/db/repos/users.ts";
import { createLogger } from "../../src/log.ts";
import { createMarketClient, type MarketApi, type MarketClient } from "../../src/market/client.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { TradingDeps } from "../../src/trading/deps.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";

export interface Trader {
  /** Bot user id (users.id). */
  userId: number;
  platformId: string;
  apiKey: string;
  market: MarketApi;
  deps: TradingDeps;
}

export interface TradingWorld {
  sandbox: Sandbox;
  db: TestDatabase;
  client: MarketClient;
  /** A new sandbox account and bot user; caps in cents (null: none). */
  trader(opts?: {
    balance?: number;
    perPurchaseCapCents?: number | null;
    dailyCapCents?: number | null;
  }): Promise<Trader>;
  /** Another client on the same sandbox, e.g. with a short timeout; closed with the world. */
  extraClient(opts: { timeoutMs?: number }): MarketClient;
  /** Requests the sandbox received for "METHOD /template". */
  hits(route: string): number;
  close(): Promise<void>;
}

const logger = createLogger({ level: "silent" });
let traderCounter = 0;

export async function startTradingWorld(): Promise<TradingWorld> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false });
  const db = await freshDatabase();
  const client = createMarketClient({ baseUrl: sandbox.baseUrl, logger });
  const extra: MarketClient[] = [];

  return {
    sandbox,
    db,
    client,
    async trader(opts = {}) {
      traderCounter += 1;
      const account = sandbox.control.createUser({
        name: `trader${traderCounter}`,
        balance: opts.balance ?? 1_000_000,
      });
      const row = await ensureUser(db.prisma, `9000000000${process.pid}${traderCounter}`);
      await updateSettings(db.prisma, row.id, {
        perPurchaseCapCents: opts.perPurchaseCapCents ?? null,
        dailyCapCents: opts.dailyCapCents ?? null,
      });
      const market = client.forKey(account.apiKey);
      return {
        userId: row.id,
        platformId: account.platformId,
        apiKey: account.apiKey,
        market,
        deps: { market, prisma: db.prisma, logger },
      };
    },
    extraClient(opts) {
      const c = createMarketClient({
        baseUrl: sandbox.baseUrl,
        logger,
        ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
      });
      extra.push(c);
      return c;
    },
    hits(route) {
      return sandbox.control.stats().routes[route]?.total ?? 0;
    },
    async close() {
      for (const c of extra) await c.close();
      await client.close();
      await sandbox.close();
      await db.close();
    },
  };
}

/** Runs `fn` and returns the UserFacingError (or other error) it must throw. */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, but the call resolved");
}

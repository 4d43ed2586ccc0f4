// startSandbox(): a stateful simulator of the whole marketplace spec over real HTTP, with a control surface.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import { listenOn } from "../util/listen.ts";
import { catalogItems } from "./catalog.ts";
import { buildControlRouter, createControl, type SandboxControl } from "./control/index.ts";
import { DriftBook } from "./drift.ts";
import { FaultBook } from "./faults.ts";
import {
  AddressLimiter,
  RATE_LIMIT_PROFILES,
  RateLimiter,
  ROOMY_RATE_LIMIT,
  type RateLimitOptions,
  type RateLimitProfile,
  type RouteBudget,
} from "./rateLimit.ts";
import { createRng } from "./rng.ts";
import { buildApiRouter } from "./routes/index.ts";
import { SANDBOX_OPERATOR_KEY, seedWorld, type DemoUser } from "./seed.ts";
import { API_PREFIX, CONTROL_PREFIX, createHandler, type Pending } from "./server.ts";
import { Store } from "./state/index.ts";
import { StatsBook } from "./stats.ts";

export type { SandboxControl, ListingTemplate, UserInfo, InventoryAsset } from "./control/index.ts";
export type { DemoUser } from "./seed.ts";
export type { FaultSpec } from "./faults.ts";
export type { DriftSpec } from "./drift.ts";
export type { Stats, RouteStats } from "./stats.ts";
export type { RateLimitOptions, RateLimitProfile, RouteBudget } from "./rateLimit.ts";
export { LIVE_ADDRESS_RATE_LIMIT, LIVE_RATE_LIMIT, ROOMY_RATE_LIMIT } from "./rateLimit.ts";
export type {
  BidJson,
  BuyOrderJson,
  ListingJson,
  OfferJson,
  TradeJson,
  TransactionJson,
  UserSummaryJson,
} from "./render/index.ts";
export { DEMO_USERS, DEMO_BALANCE, DEMO_ASSET_IDS, SANDBOX_OPERATOR_KEY } from "./seed.ts";
export { EXAMPLE_ITEM } from "./catalog.ts";
export { ErrorCode } from "./errors.ts";

export interface SandboxOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** How the user sets the port, named when it is taken (the CLI: "--port"). */
  portSetting?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seed of the generated data; the same seed (and clock) gives the same world. Default 1. */
  seed?: number;
  /**
   * Per (key or address) and endpoint budget: a named profile, "live" (the default: the budgets
   * recorded live, per route, and a per-address budget) or "roomy" (1,000 a minute everywhere, no
   * address budget), or budgets of your own. false: never refuse, still send the headers.
   */
  rateLimit?: RateLimitOptions | RateLimitProfile | false;
  /** The per-address budget, all keys together; default the profile's (live: on), else none. */
  addressRateLimit?: RouteBudget | false;
  /** Default: silent. */
  logger?: Logger;
  /** Base clock in ms since epoch (default Date.now); the sandbox clock adds advanceClock offsets. */
  clock?: () => number;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT/api/v1 */
  baseUrl: string;
  /** http://127.0.0.1:PORT/_control */
  controlUrl: string;
  users: DemoUser[];
  /** The operator's key (MARKET_API_KEY): keyless reads are refused, as they are live. */
  operatorKey: string;
  /** Every item name the sandbox knows (src/sandbox/catalog.ts), for the panel and autocomplete. */
  catalog: readonly string[];
  control: SandboxControl;
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const logger = (opts.logger ?? pino({ level: "silent" })).child({ module: "sandbox" });
  const store = new Store(createRng(opts.seed ?? 1), opts.clock ?? Date.now);
  store.onEventError = (err) => logger.error({ err }, "sandbox scheduled event failed");
  const world = seedWorld(store);
  const faults = new FaultBook();
  const drift = new DriftBook();
  const stats = new StatsBook();
  const rate = opts.rateLimit ?? "live";
  const profile = typeof rate === "string" ? RATE_LIMIT_PROFILES[rate] : undefined;
  const limiter =
    rate === false
      ? new RateLimiter(ROOMY_RATE_LIMIT, false)
      : new RateLimiter(profile?.perKey ?? (rate as RateLimitOptions), true);
  const perAddress =
    opts.addressRateLimit === false ? undefined : (opts.addressRateLimit ?? profile?.perAddress);
  const control = createControl(store, world, faults, stats, drift);
  const pending: Pending = { hung: new Set(), timers: new Set() };
  const handler = createHandler(
    {
      store,
      api: buildApiRouter(store),
      control: buildControlRouter(control, faults),
      limiter,
      ...(perAddress ? { addressLimiter: new AddressLimiter(perAddress) } : {}),
      faults,
      drift,
      stats,
      logger,
    },
    pending,
  );
  const server = createServer({ keepAliveTimeout: 5_000 }, handler);
  const host = opts.host ?? "127.0.0.1";
  await listenOn(server, opts.port ?? 0, host, opts.portSetting ?? "the sandbox's port");
  const { port } = server.address() as AddressInfo;
  const publicHost =
    host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const origin = `http://${publicHost}:${port}`;
  logger.info({ origin }, "sandbox listening");
  let closed: Promise<void> | undefined;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    controlUrl: `${origin}${CONTROL_PREFIX}`,
    users: world.demo.map((u) => ({ name: u.name, platformId: u.platformId, apiKey: u.apiKey })),
    operatorKey: SANDBOX_OPERATOR_KEY,
    catalog: catalogItems().map((c) => c.name),
    control,
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const t of pending.timers) clearTimeout(t);
        pending.timers.clear();
        for (const res of pending.hung) res.destroy();
        pending.hung.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

// What a background service is built from and how it runs: the contract between the composition
// root (src/app.ts), which fills it, and the services and endpoints it starts.
import type { Client } from "discord.js";
import type { FateRecorder } from "../feed/fateRecorder.ts";
import type { RuleChangeHub } from "../watch/changes.ts";
import type { Config } from "../config/index.ts";
import type { Database } from "../db/index.ts";
import type { KeyVault } from "../db/keyVault.ts";
import type { BotDeps } from "../discord/deps.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { Scheduler } from "../market/scheduler.ts";
import type { Metrics } from "../metrics.ts";

/** Something that runs beside the bot (alert engine, pollers, HTTP server): started after login. */
export interface BackgroundService {
  readonly name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** What a background service may be built from. */
export interface AppContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly client: Client;
  readonly deps: BotDeps;
  readonly database: Database;
  readonly market: MarketClient;
  /** Opens users' stored keys (the pollers act with them). */
  readonly vault: KeyVault;
  /** Every rule change the handlers write, for the alert engine's matcher to follow at once. */
  readonly ruleChanges: RuleChangeHub;
  /** Where listing reads and the feed report listings that left the market. */
  readonly fates: FateRecorder;
  /** The app's Prometheus registry and the hooks that feed it. */
  readonly metrics: Metrics;
  /** The address's request budget, shared by every key and priority. */
  readonly scheduler: Scheduler;
}

export type ServiceFactory = (ctx: AppContext) => BackgroundService;

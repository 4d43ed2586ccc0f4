// What command handlers may use, built once by the composition root (src/app.ts, through
// src/services.ts createBotDeps) and passed in. No database client: handlers call feature services.
import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from "discord.js";
import type { AccountService } from "../accounts/service.ts";
import type { AlertService } from "../outbox/service.ts";
import type { RuleService } from "../watch/service.ts";
import type { AutomationService } from "../automation/service.ts";
import type { Config } from "../config/index.ts";
import type { DraftService } from "../drafts/service.ts";
import type { GuardSettings } from "../guards/settings.ts";
import type { Logger } from "../log.ts";
import type { MarketReads } from "../accounts/reads.ts";
import type { ItemNameIndex } from "../market/itemNames.ts";
import type { PortfolioService } from "../portfolio/service.ts";
import type { PrivacyService } from "../privacy/service.ts";
import type { ArmingService } from "../snipe/service.ts";
import type { TradingService } from "../trading/service.ts";

/**
 * One service per feature, each the domain verbs bound to the database, the clock and the rest of
 * their wiring. Handlers call them with plain data (ids, cents, names): `ctx.deps.rules.add(...)`.
 */
export interface FeatureServices {
  /** Watch rules, seed tiers, "Watch similar", item-name suggestions; every change reaches the matcher at once. */
  readonly rules: RuleService;
  /** Snipe mode: arm (shadow, or live after a confirmation), disarm, the shadow report. */
  readonly arming: ArmingService;
  /** Actions waiting for a confirmation button, taken once. */
  readonly drafts: DraftService;
  /** The acting user as a Trader: buys, bids, offers, buy orders with their key. */
  readonly trading: TradingService;
  /** Link, unlink, status, key check, settings, and the marketplace for reads on a user's behalf. */
  readonly accounts: AccountService;
  readonly portfolio: PortfolioService;
  /** Setting and turning off buy-order and listing guards. */
  readonly guards: GuardSettings;
  /** What runs on its own for the user, Stop everything, trade auto-accept. */
  readonly automation: AutomationService;
  /** Export and delete of the user's data. */
  readonly privacy: PrivacyService;
  /** Recent alerts, and the closed-DM notice. */
  readonly alerts: AlertService;
}

/**
 * Handlers reach every feature through `ctx.deps`. Extend FeatureServices when a new feature needs
 * wiring, and build it in src/services.ts.
 */
export interface BotDeps extends FeatureServices {
  readonly config: Config;
  readonly logger: Logger;
  /** The marketplace for reads, its key chosen for the handler (a user's own, or the operator's). */
  readonly reads: MarketReads;
  readonly now: () => Date;
  /**
   * The one item-name index (every `item` autocomplete, typed-name checks): the sandbox's catalog
   * when the bot runs against it, names learnt from the market as it goes, names rules use.
   */
  readonly itemNames: ItemNameIndex;
  /** Every registered command definition (for /help). */
  readonly commands: readonly RESTPostAPIChatInputApplicationCommandsJSONBody[];
}

// Builds what handlers get as `ctx.deps`: every feature service, once per app. The composition root
// (src/app.ts) calls it, and so does anything that needs the handlers' wiring without Discord, so
// tests exercise the production wiring.
import { createSharedReads } from "./accounts/sharedReads.ts";
import { createMarketReads } from "./accounts/reads.ts";
import { createAccountService } from "./accounts/service.ts";
import { createAlertService } from "./outbox/service.ts";
import type { RuleChangeHub } from "./watch/changes.ts";
import type { RuleChange } from "./watch/rules.ts";
import { createRuleService } from "./watch/service.ts";
import { ruleItemNames } from "./db/repos/rules.ts";
import { createAutomationService } from "./automation/service.ts";
import type { Config } from "./config/index.ts";
import type { KeyVault } from "./db/keyVault.ts";
import type { BotDeps } from "./discord/deps.ts";
import { createDraftService } from "./drafts/service.ts";
import type { Db } from "./db/types.ts";
import { createGuardSettings } from "./guards/settings.ts";
import type { Logger } from "./log.ts";
import type { MarketClient } from "./market/client.ts";
import { createItemNameIndex } from "./market/itemNames.ts";
import { feeModel, percentToBps } from "./market/fees.ts";
import { createPortfolioService } from "./portfolio/service.ts";
import { createPrivacyService } from "./privacy/service.ts";
import { createArmingService } from "./snipe/service.ts";
import { createTradingService } from "./trading/service.ts";

export interface BotDepsOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** The database the services speak to; handlers never see it. */
  readonly db: Db;
  readonly market: MarketClient;
  readonly vault: KeyVault;
  readonly now: () => Date;
  /** Where rule changes go, so the alert engine of this process applies them at once. */
  readonly ruleChanges: Pick<RuleChangeHub, "publish">;
  /** Item names the marketplace is known to have (the sandbox's catalog; none live). */
  readonly itemCatalog: readonly string[];
  readonly commands: BotDeps["commands"];
}

export function createBotDeps(opts: BotDepsOptions): BotDeps {
  const { config, logger, db, market, now } = opts;
  const fees = feeModel(percentToBps(config.SELLER_FEE_PERCENT));
  const onChange: (change: RuleChange) => void = (change) => opts.ruleChanges.publish(change);
  const accounts = createAccountService({
    db,
    market,
    vault: opts.vault,
    sharedReads: createSharedReads({ market, key: config.MARKET_API_KEY }),
    logger,
  });
  const drafts = createDraftService({ db, now });
  return {
    config,
    logger,
    reads: createMarketReads({
      market,
      operatorKey: config.MARKET_API_KEY,
      forUser: (discordId) => accounts.marketForReads(discordId),
    }),
    now,
    itemNames: createItemNameIndex({
      now: () => now().getTime(),
      known: opts.itemCatalog,
      ruleNames: (text, take) => ruleItemNames(db, text, take),
    }),
    commands: opts.commands,
    rules: createRuleService({
      db,
      logger,
      maxRulesPerUser: config.MAX_RULES_PER_USER,
      fees,
      onChange,
      marketFor: (discordId) => accounts.marketForReads(discordId),
    }),
    arming: createArmingService({ db, logger, now, drafts, onChange }),
    drafts,
    trading: createTradingService({ db, accounts, now }),
    accounts,
    portfolio: createPortfolioService({ accounts, now, fees }),
    guards: createGuardSettings({ db, accounts, now }),
    automation: createAutomationService({ db, accounts, onChange }),
    privacy: createPrivacyService({ db, logger, now }),
    alerts: createAlertService({ db }),
  };
}

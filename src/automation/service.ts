// Automation as one service for the handlers (/automation, /trades autoaccept): what runs for the
// user on its own, the one stop for all of it (told to the rule-change hub, so armed rules stop
// buying at once), and trade auto-accept's switch. Built once by src/services.ts.
import type { AccountService } from "../accounts/service.ts";
import type { RuleChange } from "../watch/rules.ts";
import type { StoppedAutomation } from "../db/repos/automation.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { Cents } from "../money.ts";
import { setAutoAccept, type AutoAcceptSettings } from "../autoAccept/settings.ts";
import { automationOverview, stopEverything, type AutomationOverview } from "./overview.ts";

export interface AutomationService {
  overview(discordUserId: string): Promise<AutomationOverview>;
  /** Every armed rule, guard and auto-accept off, at once. */
  stopEverything(discordUserId: string, log: Logger): Promise<StoppedAutomation>;
  /** Trade auto-accept on (with its conditions) or off; it runs on the user's key, so a linked one is required. */
  setAutoAccept(
    input: {
      discordUserId: string;
      enabled: boolean;
      minPriceCents: Cents | undefined;
      itemContains: string | undefined;
    },
    log: Logger,
  ): Promise<AutoAcceptSettings>;
}

export interface AutomationServiceOptions {
  readonly db: Db;
  readonly accounts: Pick<AccountService, "require">;
  /** Where disarmed rules are published (the rule-change hub). */
  readonly onChange: (change: RuleChange) => void;
}

export function createAutomationService(opts: AutomationServiceOptions): AutomationService {
  return {
    overview: (discordUserId) => automationOverview(opts.db, discordUserId),
    stopEverything: (discordUserId, log) =>
      stopEverything({ prisma: opts.db, logger: log, onChange: opts.onChange }, discordUserId),
    async setAutoAccept({ discordUserId, ...input }, log) {
      const { user } = await opts.accounts.require(discordUserId);
      const saved = await setAutoAccept(opts.db, { ...input, userId: user.id });
      log.info({ userId: user.id, enabled: saved.enabled }, "auto-accept set");
      return saved;
    },
  };
}

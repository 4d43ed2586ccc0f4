// The account verbs as one service for the handlers (/account, and every command that acts with
// or reads for the user): bound to the database, the key vault, the marketplace client and the
// operator key's fair share. Handlers never see a key or a database client. Built once by
// src/services.ts.
import type { KeyVault } from "../db/keyVault.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketApi, MarketClient } from "../market/client.ts";
import { accountStatus, type AccountStatus } from "./accountStatus.ts";
import { checkAccountKey, type KeyCheck } from "./checkAccountKey.ts";
import type { AccountDeps } from "./deps.ts";
import { linkAccount, type LinkedAccount } from "./linkAccount.ts";
import { marketForReads } from "./readMarket.ts";
import { requireAccount, type LinkedUser } from "./requireAccount.ts";
import { changeSettings, showSettings, type SettingsChange, type SettingsView } from "./settings.ts";
import type { SharedReads } from "./sharedReads.ts";
import { unlinkAccount, type UnlinkResult } from "./unlinkAccount.ts";

export interface AccountService {
  link(input: { discordUserId: string; apiKey: string }): Promise<LinkedAccount>;
  unlink(input: { discordUserId: string }): Promise<UnlinkResult>;
  status(input: { discordUserId: string }): Promise<AccountStatus>;
  /** Asks the marketplace whether the stored key still works. */
  checkKey(input: { discordUserId: string }): Promise<KeyCheck>;
  /** The linked user and the marketplace bound to their key; throws "link first" when there is none. */
  require(discordUserId: string): Promise<LinkedUser>;
  /** Public reads on the user's behalf: their own key when usable, else the operator key's fair share. */
  marketForReads(discordUserId: string): Promise<MarketApi>;
  readonly settings: {
    show(input: { discordUserId: string }): Promise<SettingsView>;
    change(input: { discordUserId: string; change: SettingsChange }): Promise<SettingsView>;
  };
}

export interface AccountServiceOptions {
  readonly db: Db;
  readonly market: MarketClient;
  readonly vault: KeyVault;
  readonly sharedReads: SharedReads;
  readonly logger: Logger;
}

export function createAccountService(opts: AccountServiceOptions): AccountService {
  const deps: AccountDeps = { prisma: opts.db, market: opts.market, vault: opts.vault, logger: opts.logger };
  const readDeps = { ...deps, sharedReads: opts.sharedReads };
  return {
    link: (input) => linkAccount(deps, input),
    unlink: (input) => unlinkAccount(deps, input),
    status: (input) => accountStatus(deps, input),
    checkKey: (input) => checkAccountKey(deps, input),
    require: (discordUserId) => requireAccount(deps, discordUserId),
    marketForReads: (discordUserId) => marketForReads(readDeps, discordUserId),
    settings: {
      show: (input) => showSettings(deps, input),
      change: (input) => changeSettings(deps, input),
    },
  };
}

// What the account verbs need, passed in by the composition root (or a test): no discord.js here.
import type { KeyVault } from "../db/keyVault.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";

export interface AccountDeps {
  readonly prisma: Db;
  readonly market: MarketClient;
  readonly vault: KeyVault;
  readonly logger: Logger;
}

// What command handlers may use, built once by the composition root (src/app.ts) and passed in.
import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from "discord.js";
import type { SharedReads } from "../accounts/sharedReads.ts";
import type { Config } from "../config/index.ts";
import type { KeyVault } from "../db/keyVault.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../log.ts";
import type { MarketClient } from "../market/client.ts";
import type { ItemNameIndex } from "../market/itemNames.ts";

/**
 * Handlers pass `ctx.deps` (or a part of it) to domain verbs. Extend this interface when a new
 * room needs wiring (alerts, trading...), and fill the field in src/app.ts.
 */
export interface BotDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly prisma: PrismaClient;
  readonly market: MarketClient;
  /** The operator key for users without their own, within each user's fair share. */
  readonly sharedReads: SharedReads;
  readonly vault: KeyVault;
  readonly now: () => Date;
  /**
   * The one item-name index (every `item` autocomplete, typed-name checks): the sandbox's catalog
   * when the bot runs against it, names learnt from the market as it goes, names rules use.
   */
  readonly itemNames: ItemNameIndex;
  /** Every registered command definition (for /help). */
  readonly commands: readonly RESTPostAPIChatInputApplicationCommandsJSONBody[];
}

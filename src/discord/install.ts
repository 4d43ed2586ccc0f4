// Where the app is installed for an interaction (a server, the user's account, or both) and what
// that allows: the install contexts every command is registered with, and whether an answer may
// be public in the channel it came from (ADR 022).
import {
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  type BaseInteraction,
  type PermissionsBitField,
} from "discord.js";
import { UserFacingError } from "../errors.ts";

/**
 * Every command is offered to server installs and to account installs, in servers, in the bot's
 * DM and in other DMs and group DMs. Nothing of ours depends on the server: account and money
 * commands answer privately wherever they run (their handlers defer "ephemeral").
 */
export const EVERYWHERE: {
  readonly integration_types: ApplicationIntegrationType[];
  readonly contexts: InteractionContextType[];
} = {
  integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
  contexts: [
    InteractionContextType.Guild,
    InteractionContextType.BotDM,
    InteractionContextType.PrivateChannel,
  ],
};

export type Surface = "guild" | "bot_dm" | "private_channel";

export interface InstallContext {
  /** Where the interaction was triggered (Discord's `context`). */
  readonly surface: Surface;
  /** The app is installed to the server the interaction came from (or this is the bot's DM). */
  readonly serverInstall: boolean;
  /** The acting user installed the app to their account, and that install authorized this. */
  readonly accountInstall: boolean;
  /**
   * A public answer can be posted here: the bot's DM, a server the app is installed to, or a
   * server where the user's own permissions let their apps answer publicly. Elsewhere
   * (other DMs and group DMs, servers that turn external apps off) the answer is private.
   */
  readonly publicAllowed: boolean;
}

/** Public answers of an account install in a server need the member's Use External Apps. */
const ACCOUNT_PUBLIC_NEEDS = PermissionFlagsBits.SendMessages | PermissionFlagsBits.UseExternalApps;

/** Reads Discord's `context` and `authorizing_integration_owners` as discord.js exposes them. */
export function installContextOf(
  i: Pick<BaseInteraction, "context" | "guildId"> & {
    /** Discord's map (discord.js's AuthorizingIntegrationOwners has the same keys). */
    readonly authorizingIntegrationOwners: {
      readonly [ApplicationIntegrationType.GuildInstall]?: string | undefined;
      readonly [ApplicationIntegrationType.UserInstall]?: string | undefined;
    };
    readonly appPermissions: Readonly<PermissionsBitField> | null;
  },
): InstallContext {
  const owners = i.authorizingIntegrationOwners;
  const guildOwner = owners[ApplicationIntegrationType.GuildInstall];
  const accountInstall = owners[ApplicationIntegrationType.UserInstall] !== undefined;
  const surface: Surface =
    i.context === InteractionContextType.PrivateChannel
      ? "private_channel"
      : i.context === InteractionContextType.BotDM || (i.context === null && i.guildId === null)
        ? "bot_dm"
        : "guild";
  // GUILD_INSTALL's value is the guild id in a server and "0" in the bot's DM. An interaction
  // without any owner (an old payload) is treated as the server install it then always was.
  const serverInstall =
    (guildOwner !== undefined && (guildOwner === i.guildId || guildOwner === "0")) ||
    (guildOwner === undefined && !accountInstall);
  let publicAllowed: boolean;
  if (surface === "bot_dm" || serverInstall) publicAllowed = true;
  else if (surface === "guild") publicAllowed = i.appPermissions?.has(ACCOUNT_PUBLIC_NEEDS) ?? false;
  else publicAllowed = false;
  return { surface, serverInstall, accountInstall, publicAllowed };
}

/**
 * Alerts can go to a server channel only where the app is installed to that server: an account
 * install answers interactions but cannot post on its own (ADR 022).
 */
export function requireServerInstall(install: InstallContext, fallback: string): void {
  if (install.serverInstall) return;
  throw new UserFacingError(
    "missing_permission",
    `I'm installed to your account, not to this server, so I can't post alerts in its channels. ${fallback}`,
    { surface: install.surface },
  );
}

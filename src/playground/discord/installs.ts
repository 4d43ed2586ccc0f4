// Installs in the local Discord: the app is installed to a guild when its bot is a member, and to a
// user's account when that user installed it. This decides an interaction's `context`,
// `authorizing_integration_owners` and `app_permissions`, which commands a user can run where,
// and the limits Discord puts on answers of an app installed only to the user (ADR 022).
import {
  ApplicationIntegrationType,
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
} from "discord.js";
import {
  memberPermissions,
  MessageFlag,
  type DoubleGuild,
  type DoubleUser,
  type RegisteredCommand,
} from "./model.ts";
import { snowflake } from "./snowflake.ts";
import type { ChannelInfo, InteractionRecord, World } from "./world.ts";

/** Discord: at most 5 follow-ups per interaction when only USER_INSTALL authorized it. */
export const ACCOUNT_INSTALL_FOLLOW_UPS = 5;

/** app_permissions in the bot's DM, as Discord sends them. */
const BOT_DM_APP_PERMISSIONS = "559623605571137";
/** In DMs and group DMs with other users Discord grants ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE. */
const PRIVATE_CHANNEL_APP_PERMISSIONS = String(
  PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone,
);

/** The app is installed to a guild exactly when its bot user is a member. */
export function installedInGuild(world: World, guild: DoubleGuild): boolean {
  return guild.members.some((m) => m.userId === world.bot.id);
}

export interface InstallFields {
  readonly context: InteractionContextType;
  readonly authorizing_integration_owners: Record<string, string>;
  readonly app_permissions: string;
}

/**
 * What Discord puts in an interaction from `user` in `channel`. `command` (for slash commands and
 * autocomplete) must be offered there: its `integration_types` and `contexts` are checked as the
 * Discord client does before it shows a command (an unavailable one cannot be run). `inherited`:
 * the owners of the interaction that created the message a component or form belongs to.
 */
export function installFields(
  world: World,
  user: DoubleUser,
  guild: DoubleGuild | undefined,
  channel: ChannelInfo,
  command: RegisteredCommand | undefined,
  inherited?: Readonly<Record<string, string>>,
): InstallFields {
  const context = guild
    ? InteractionContextType.Guild
    : channel.type === ChannelType.DM && channel.recipientId === user.id
      ? InteractionContextType.BotDM
      : InteractionContextType.PrivateChannel;
  if (inherited) {
    // A component or form on a message an interaction created carries that interaction's owners,
    // whoever clicks it: how an app tells the installing user from the clicking one (Discord docs).
    const owners = { ...inherited };
    return {
      context,
      authorizing_integration_owners: owners,
      app_permissions: appPermissions(world, user, guild, context, owners),
    };
  }
  const guildInstalled = guild ? installedInGuild(world, guild) : context === InteractionContextType.BotDM;
  const accountInstalled = world.accountInstalls.has(user.id);
  const types = integrationTypes(command);
  // Unset contexts: Discord's default, a server and the bot's DM.
  const contexts = command
    ? ((command.contexts as readonly number[] | null | undefined) ?? [
        InteractionContextType.Guild,
        InteractionContextType.BotDM,
      ])
    : undefined;
  const owners: Record<string, string> = {};
  // PRIVATE_CHANNEL is only meaningful for account installs (Discord docs, Interaction Contexts).
  if (guildInstalled && types.includes(ApplicationIntegrationType.GuildInstall) && context !== 2) {
    owners[ApplicationIntegrationType.GuildInstall] = guild ? guild.id : "0";
  }
  if (accountInstalled && types.includes(ApplicationIntegrationType.UserInstall)) {
    owners[ApplicationIntegrationType.UserInstall] = user.id;
  }
  const where = contextName(context);
  if (Object.keys(owners).length === 0) {
    throw new Error(
      command
        ? `/${command.name} is not available to ${user.username} in ${where}: the app is not installed there for it`
        : `${user.username} cannot use the app in ${where}: it is not installed there`,
    );
  }
  if (command && contexts !== undefined && !contexts.includes(context)) {
    throw new Error(`/${command.name} is not offered in ${where} (contexts ${JSON.stringify(contexts)})`);
  }
  return {
    context,
    authorizing_integration_owners: owners,
    app_permissions: appPermissions(world, user, guild, context, owners),
  };
}

function integrationTypes(command: RegisteredCommand | undefined): readonly number[] {
  const types = command?.integration_types;
  // Unset: the app's default, which for this double (and new Discord apps) is guild install only
  // for commands registered before account installs existed.
  return Array.isArray(types) ? (types as number[]) : [ApplicationIntegrationType.GuildInstall];
}

function appPermissions(
  world: World,
  user: DoubleUser,
  guild: DoubleGuild | undefined,
  context: InteractionContextType,
  owners: Record<string, string>,
): string {
  if (context === InteractionContextType.BotDM) return BOT_DM_APP_PERMISSIONS;
  if (context === InteractionContextType.PrivateChannel || !guild) return PRIVATE_CHANNEL_APP_PERMISSIONS;
  if (owners[ApplicationIntegrationType.GuildInstall] !== undefined) {
    return String(memberPermissions(guild, world.bot.id));
  }
  // An account install "respects the user's permissions in the surface where it is used".
  return String(memberPermissions(guild, user.id));
}

function contextName(context: InteractionContextType): string {
  return context === InteractionContextType.Guild
    ? "a server"
    : context === InteractionContextType.BotDM
      ? "the bot's DM"
      : "a DM or group DM with other users";
}

/** Only the user's own install authorized this interaction (the app is not in that server). */
export function accountInstallOnly(record: InteractionRecord): boolean {
  const owners = (record.payload.authorizing_integration_owners ?? {}) as Record<string, string>;
  return (
    owners[ApplicationIntegrationType.UserInstall] !== undefined &&
    owners[ApplicationIntegrationType.GuildInstall] === undefined
  );
}

/**
 * Flags Discord gives an answer: an app installed only to the user, in a server where the member
 * may not use external apps (or not send messages), answers ephemerally whatever it asked.
 */
export function answerFlags(world: World, record: InteractionRecord, asked: number): number {
  if (!accountInstallOnly(record) || !record.guildId) return asked;
  const guild = world.guilds.get(record.guildId);
  const perms = guild ? memberPermissions(guild, record.user.id) : 0n;
  const needs = PermissionFlagsBits.UseExternalApps | PermissionFlagsBits.SendMessages;
  return (perms & needs) === needs ? asked : asked | MessageFlag.Ephemeral;
}

/** A group DM of `user` with the other humans: a private channel the bot is not part of. */
export function privateChannelFor(world: World, user: DoubleUser): ChannelInfo {
  const key = `group:${user.id}`;
  const existing = world.privateChannels.get(key);
  if (existing) return existing;
  const channel: ChannelInfo = {
    id: snowflake(),
    type: ChannelType.GroupDM,
    name: `${user.username}'s group`,
    guildId: undefined,
    parentId: undefined,
    recipientId: undefined,
  };
  world.channels.set(channel.id, channel);
  world.privateChannels.set(key, channel);
  return channel;
}

/** The bot can post in a channel only as a member of its guild, or in its own DMs. */
export function botCanPost(world: World, channel: ChannelInfo): boolean {
  if (channel.type === ChannelType.DM) return true;
  if (!channel.guildId) return false;
  const guild = world.guilds.get(channel.guildId);
  return guild !== undefined && installedInGuild(world, guild);
}

/** The authorizing owners of an earlier interaction (the one that made a message or showed a form). */
export function inheritedOwners(
  world: World,
  interactionId: string | undefined,
): Record<string, string> | undefined {
  const owners = interactionId
    ? world.interactions.get(interactionId)?.payload.authorizing_integration_owners
    : undefined;
  return owners && typeof owners === "object" ? (owners as Record<string, string>) : undefined;
}

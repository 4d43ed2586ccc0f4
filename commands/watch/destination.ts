// Where /watch may send a rule's alerts: a channel only from inside a server, only for members who
// may manage it, and only where the bot can post (a DM needs no check).
import {
  ApplicationCommandOptionType,
  PermissionFlagsBits,
  PermissionsBitField,
  type CommandInteractionOption,
  type Guild,
  type GuildMember,
} from "discord.js";
import type { RuleDestination } from "../../src/watch/rules.ts";
import type { CommandContext } from "../../src/discord/command.ts";
import { requireServerInstall } from "../../src/discord/install.ts";
import { UserFacingError } from "../../src/errors.ts";

const MANAGE = PermissionFlagsBits.ManageChannels;
const BOT_NEEDS =
  PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.EmbedLinks;

/**
 * A channel destination is allowed only in a server, only to members who may manage that
 * channel (alerts would otherwise let anyone fill a channel), and only where the bot can post.
 */
export function checkChannelDestination(
  ctx: CommandContext,
  channelId: string,
): RuleDestination & { kind: "channel" } {
  const guildId = ctx.guildId;
  if (guildId === undefined) {
    throw new UserFacingError(
      "invalid_input",
      "Channel alerts are set up from inside a server. Leave `channel` empty for DMs.",
    );
  }
  requireServerInstall(
    ctx.install,
    "Leave `channel` empty to get them by DM, or ask a server admin to add me.",
  );
  const perms = permissionsIn(ctx, channelId);
  if (!perms.member?.has(MANAGE)) {
    throw new UserFacingError(
      "missing_permission",
      `You need the **Manage Channels** permission in <#${channelId}> to send alerts there. Leave \`channel\` empty to get them by DM.`,
      { channelId },
    );
  }
  if (perms.bot !== undefined && !perms.bot.has(BOT_NEEDS)) {
    throw new UserFacingError(
      "missing_permission",
      `I can't post in <#${channelId}>: I need View Channel, Send Messages and Embed Links there.`,
      { channelId },
    );
  }
  return { kind: "channel", guildId, channelId };
}

/**
 * The member's (and the bot's) permissions in the chosen channel. Discord resolves the channel
 * option with the member's permissions in it; when discord.js has the guild cached it computes
 * the same from overwrites. Falls back to the permissions in the channel the command ran in.
 */
function permissionsIn(
  ctx: CommandContext,
  channelId: string,
): { member: Readonly<PermissionsBitField> | undefined; bot: Readonly<PermissionsBitField> | undefined } {
  const option = findChannelOption(ctx.interaction.options.data, channelId);
  const resolved = option?.channel;
  if (resolved && "permissions" in resolved && typeof resolved.permissions === "string") {
    return { member: new PermissionsBitField(BigInt(resolved.permissions)), bot: undefined };
  }
  const guild: Guild | null = ctx.interaction.guild;
  const member = ctx.interaction.member;
  if (
    resolved &&
    "permissionsFor" in resolved &&
    guild !== null &&
    member !== null &&
    "roles" in member &&
    "cache" in member.roles
  ) {
    const me = guild.members.me;
    return {
      member: resolved.permissionsFor(member as GuildMember) ?? ctx.memberPermissions,
      bot: me ? (resolved.permissionsFor(me) ?? undefined) : undefined,
    };
  }
  return { member: ctx.memberPermissions, bot: undefined };
}

function findChannelOption(
  options: readonly CommandInteractionOption[],
  channelId: string,
): CommandInteractionOption | undefined {
  for (const o of options) {
    if (o.type === ApplicationCommandOptionType.Channel && o.value === channelId) return o;
    const inner = o.options ? findChannelOption(o.options, channelId) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

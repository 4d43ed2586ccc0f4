// What every INTERACTION_CREATE the double sends shares: where it happens, the user or member, the
// install fields, the token and its record. Each kind is built in its own file: commandPayloads.ts
// (slash, autocomplete), componentPayloads.ts (button, select), modalPayloads.ts (modal submit).
import { ChannelType, InteractionType } from "discord.js";
import { installFields, privateChannelFor } from "./installs.ts";
import {
  apiUser,
  memberPermissions,
  type DoubleGuild,
  type DoubleUser,
  type RegisteredCommand,
  type StoredMessage,
} from "./model.ts";
import { interactionToken, snowflake } from "./snowflake.ts";
import type { ChannelInfo, InteractionKind, InteractionRecord, InteractionResponse, World } from "./world.ts";

export type OptionValue = string | number | boolean | DoubleUser;
/** Options by name; a subcommand (group) may nest its options: `{ add: { item: "x" } }`. */
export interface NamedOptions {
  readonly [name: string]: OptionValue | NamedOptions;
}
/** Options by name (typed from the registered definition), or raw API options. */
export type SlashOptions = NamedOptions | readonly Record<string, unknown>[];

export interface DispatchOptions {
  /** Guild to use; default: the double's first guild. Ignored with `dm: true`. */
  readonly guildId?: string;
  /** Channel to use; default: the guild's first text channel (or the user's DM channel). */
  readonly channelId?: string;
  /** Send from the user's DM with the bot (no guild_id, `user` instead of `member`). */
  readonly dm?: boolean;
  /** Send from a group DM with other users, the bot not among them (needs an account install). */
  readonly privateChannel?: boolean;
  readonly locale?: string;
  /** Dispatch a token that is already past its 3 s window (callbacks answer 10062). */
  readonly expired?: boolean;
}

export interface PayloadContext {
  readonly world: World;
  readonly defaultGuildId: string | undefined;
  readonly tokenTtlMs: number;
}

export interface Target {
  readonly guild: DoubleGuild | undefined;
  readonly channel: ChannelInfo;
}

export function resolveTarget(ctx: PayloadContext, user: DoubleUser, opts: DispatchOptions): Target {
  const { world } = ctx;
  if (opts.dm) return { guild: undefined, channel: world.dmChannelFor(user.id) };
  if (opts.privateChannel) return { guild: undefined, channel: privateChannelFor(world, user) };
  if (opts.channelId) {
    const channel = world.channels.get(opts.channelId);
    if (!channel) throw new Error(`unknown channel ${opts.channelId}`);
    return { guild: channel.guildId ? world.guilds.get(channel.guildId) : undefined, channel };
  }
  const guild = world.guilds.get(opts.guildId ?? ctx.defaultGuildId ?? "");
  if (!guild) throw new Error("the double has no guild; pass { dm: true }");
  const first = guild.channels.find((c) => c.type === ChannelType.GuildText);
  if (!first) throw new Error(`guild ${guild.id} has no text channel`);
  return { guild, channel: world.channels.get(first.id) as ChannelInfo };
}

/** The fields every interaction carries (ADR 006 and the double's own tests). */
export function basePayload(
  ctx: PayloadContext,
  type: InteractionType,
  user: DoubleUser,
  target: Target,
  opts: DispatchOptions,
  command?: RegisteredCommand,
  inherited?: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const { guild, channel } = target;
  const channelJson = ctx.world.channelJson(channel);
  const install = installFields(ctx.world, user, guild, channel, command, inherited);
  const common = {
    id: snowflake(),
    application_id: ctx.world.applicationId,
    type,
    token: interactionToken(),
    version: 1,
    locale: opts.locale ?? user.locale ?? "en-US",
    entitlements: [],
    attachment_size_limit: 10_485_760,
  };
  if (!guild) {
    return {
      ...common,
      channel_id: channel.id,
      channel: channelJson,
      user: apiUser(user),
      ...install,
    };
  }
  const member = guild.members.find((m) => m.userId === user.id);
  const perms = memberPermissions(guild, user.id);
  return {
    ...common,
    guild_id: guild.id,
    guild: { id: guild.id, locale: guild.locale ?? "en-US", features: [] },
    guild_locale: guild.locale ?? "en-US",
    channel_id: channel.id,
    channel: { ...channelJson, permissions: String(perms) },
    member: {
      user: apiUser(user),
      roles: [...(member?.roles ?? [])],
      permissions: String(perms),
      joined_at: new Date(Date.now() - 86_400_000).toISOString(),
      nick: member?.nick ?? null,
      avatar: null,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    },
    ...install,
  };
}

export interface BuiltInteraction {
  readonly payload: Record<string, unknown>;
  readonly record: InteractionRecord;
  readonly shardGuildId: string | undefined;
}

/** The record of a built interaction, kept by the world once dispatched. */
export function recordInteraction(
  ctx: PayloadContext,
  payload: Record<string, unknown>,
  fields: {
    kind: InteractionKind;
    user: DoubleUser;
    target: Target;
    commandPath?: string;
    customId?: string;
    sourceMessageId?: string;
  },
  opts: DispatchOptions,
): BuiltInteraction {
  const rec: InteractionRecord = {
    id: String(payload.id),
    token: String(payload.token),
    kind: fields.kind,
    user: fields.user,
    channelId: fields.target.channel.id,
    guildId: fields.target.guild?.id,
    commandPath: fields.commandPath,
    customId: fields.customId,
    payload,
    dispatchedAt: performance.now(),
    expiresAt: opts.expired ? Date.now() - 1 : Date.now() + ctx.tokenTtlMs,
    sourceMessageId: fields.sourceMessageId,
    responses: [],
    rejectedCallbacks: [],
    originalMessageId: undefined,
    followUpIds: [],
  };
  return { payload, record: rec, shardGuildId: fields.target.guild?.id };
}

export interface InteractionState {
  readonly record: InteractionRecord;
  readonly responses: readonly InteractionResponse[];
  readonly original: StoredMessage | undefined;
  readonly followUps: readonly StoredMessage[];
}

// The local Discord's world: users, guilds, channels, messages and what it records, as plain data.
import { ChannelType, PermissionFlagsBits } from "discord.js";
import type { APIEmbed } from "discord.js";

export interface DoubleUser {
  readonly id: string;
  readonly username: string;
  readonly globalName?: string;
  readonly bot?: boolean;
  /** Client locale sent with this user's interactions. Default "en-US". */
  readonly locale?: string;
}

export interface DoubleChannel {
  readonly id: string;
  readonly name: string;
  /** ChannelType: 0 text, 2 voice, 4 category, 5 announcement, 15 forum... */
  readonly type: ChannelType;
  readonly parentId?: string;
}

export interface DoubleRole {
  readonly id: string;
  readonly name: string;
  /** Permission bits (PermissionFlagsBits). The @everyone role has the guild's id. */
  readonly permissions: bigint;
}

export interface DoubleMember {
  readonly userId: string;
  /** Role ids besides @everyone. */
  readonly roles: readonly string[];
  readonly nick?: string;
}

export interface DoubleGuild {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  readonly channels: readonly DoubleChannel[];
  readonly roles: readonly DoubleRole[];
  readonly members: readonly DoubleMember[];
  readonly locale?: string;
}

export interface StoredAttachment {
  readonly id: string;
  readonly filename: string;
  readonly contentType: string | undefined;
  readonly size: number;
  readonly data: Buffer;
  readonly description?: string;
}

/** A message as the double keeps it; `toApiMessage` turns it into Discord's JSON. */
export interface StoredMessage {
  readonly id: string;
  readonly channelId: string;
  readonly guildId: string | undefined;
  readonly author: DoubleUser;
  content: string;
  embeds: APIEmbed[];
  /** Top-level components (action rows) exactly as the bot sent them. */
  components: unknown[];
  attachments: StoredAttachment[];
  flags: number;
  readonly createdAt: number;
  editedAt: number | undefined;
  deleted: boolean;
  /** Set for interaction responses and follow-ups. */
  readonly interactionId: string | undefined;
  readonly webhookId: string | undefined;
  /** True for a "thinking…" message of a deferred reply that has not been edited yet. */
  loading: boolean;
}

export const MessageFlag = { Ephemeral: 64, Loading: 128 } as const;

export const isEphemeral = (m: StoredMessage): boolean => (m.flags & MessageFlag.Ephemeral) !== 0;

export interface RecordedRequest {
  readonly method: string;
  /** Decoded path below /api/v10, e.g. "/webhooks/1/abc/messages/@original". */
  readonly path: string;
  readonly query: Record<string, string>;
  /** Parsed JSON, or for multipart the parsed payload_json (files in `files`). */
  readonly body: unknown;
  /** The raw body as text (binary parts included): for "this secret never left" assertions. */
  readonly rawBody: string;
  readonly files: readonly {
    name: string;
    filename: string;
    size: number;
    contentType: string | undefined;
  }[];
  readonly authorized: boolean;
  readonly at: number;
  status: number;
  /** The fault that answered this request, if any. */
  fault: boolean;
}

export interface FaultSpec {
  readonly method?: string;
  /** A substring of the path (below /api/v10) or a regular expression. */
  readonly path: string | RegExp;
  readonly status: 429 | 500 | 502 | 503 | 403 | 404 | 400;
  /** How many matching requests fail; default 1. */
  readonly times?: number;
  /** Seconds, for 429 (sent as retry-after). Default 0.05. */
  readonly retryAfter?: number;
  /** Discord JSON error code for the body. */
  readonly code?: number;
  readonly message?: string;
}

export interface RegisteredCommand {
  readonly id: string;
  readonly application_id: string;
  readonly guild_id?: string;
  readonly version: string;
  readonly name: string;
  readonly description: string;
  readonly type: number;
  readonly options?: readonly unknown[];
  readonly [key: string]: unknown;
}

/** Permission bits granted to @everyone in the default guild. */
export const EVERYONE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseApplicationCommands |
  // On by default in every server: lets members' own (account-installed) apps answer publicly.
  PermissionFlagsBits.UseExternalApps;

/** Everything a bot needs to post alerts and answer in channels (no Administrator). */
export const BOT_PERMISSIONS =
  EVERYONE_PERMISSIONS | PermissionFlagsBits.ManageChannels | PermissionFlagsBits.ManageMessages;

/** Realistic fixed ids, so logs and failing tests read the same on every run. */
export const DEFAULT_IDS = {
  application: "1187364530948214814",
  guild: "1187364777435021392",
  textChannel: "1187364778156449872",
  alertsChannel: "1187364778156449873",
  voiceChannel: "1187364778156449874",
  moderatorRole: "1187364779200663612",
  botRole: "1187364779200663613",
  alice: "284102390284013568",
  bob: "402158847323701249",
} as const;

export function defaultUsers(applicationId: string): { bot: DoubleUser; humans: DoubleUser[] } {
  return {
    bot: { id: applicationId, username: "market-bot", bot: true },
    humans: [
      { id: DEFAULT_IDS.alice, username: "alice", globalName: "Alice" },
      { id: DEFAULT_IDS.bob, username: "bob", globalName: "Bob" },
    ],
  };
}

/** One guild: alice moderates (Manage Channels), bob is a plain member, the bot has its role. */
export function defaultGuild(botId: string): DoubleGuild {
  return {
    id: DEFAULT_IDS.guild,
    name: "Test Traders",
    ownerId: "150000000000000001",
    channels: [
      { id: DEFAULT_IDS.textChannel, name: "general", type: ChannelType.GuildText },
      { id: DEFAULT_IDS.alertsChannel, name: "deals", type: ChannelType.GuildText },
      { id: DEFAULT_IDS.voiceChannel, name: "Voice", type: ChannelType.GuildVoice },
    ],
    roles: [
      { id: DEFAULT_IDS.guild, name: "@everyone", permissions: EVERYONE_PERMISSIONS },
      { id: DEFAULT_IDS.moderatorRole, name: "Moderator", permissions: PermissionFlagsBits.ManageChannels },
      { id: DEFAULT_IDS.botRole, name: "market-bot", permissions: BOT_PERMISSIONS },
    ],
    members: [
      { userId: DEFAULT_IDS.alice, roles: [DEFAULT_IDS.moderatorRole] },
      { userId: DEFAULT_IDS.bob, roles: [] },
      { userId: botId, roles: [DEFAULT_IDS.botRole] },
    ],
  };
}

/** A server of alice's and bob's friends that never added the bot: only account installs work there. */
export function friendsServer(): DoubleGuild {
  return {
    id: "1187364777439215900",
    name: "Friends (no bot)",
    ownerId: "150000000000000003",
    channels: [{ id: "1187364778160000301", name: "hangout", type: ChannelType.GuildText }],
    roles: [{ id: "1187364777439215900", name: "@everyone", permissions: EVERYONE_PERMISSIONS }],
    members: [
      { userId: DEFAULT_IDS.alice, roles: [] },
      { userId: DEFAULT_IDS.bob, roles: [] },
    ],
  };
}

/** The member's permissions: the union of @everyone and their roles; owners hold all. */
export function memberPermissions(guild: DoubleGuild, userId: string): bigint {
  if (guild.ownerId === userId) return ALL_PERMISSIONS;
  const member = guild.members.find((m) => m.userId === userId);
  let bits = guild.roles.find((r) => r.id === guild.id)?.permissions ?? 0n;
  for (const roleId of member?.roles ?? [])
    bits |= guild.roles.find((r) => r.id === roleId)?.permissions ?? 0n;
  if ((bits & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  return bits;
}

const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((a, b) => a | b, 0n);

export function apiUser(u: DoubleUser): Record<string, unknown> {
  return {
    id: u.id,
    username: u.username,
    discriminator: "0",
    global_name: u.globalName ?? null,
    avatar: null,
    ...(u.bot ? { bot: true } : {}),
  };
}

/** Everything a user reads in a message, flattened: content, embed texts, component labels. */
export function textOf(m: Pick<StoredMessage, "content" | "embeds" | "components">): string {
  const parts: string[] = [m.content];
  for (const e of m.embeds) {
    parts.push(e.author?.name ?? "", e.title ?? "", e.description ?? "");
    for (const f of e.fields ?? []) parts.push(f.name, f.value);
    parts.push(e.footer?.text ?? "");
  }
  const labels = (node: unknown): string[] => {
    if (Array.isArray(node)) return node.flatMap(labels);
    if (node === null || typeof node !== "object") return [];
    const r = node as Record<string, unknown>;
    const own = [r.label, r.content, r.placeholder].filter((v): v is string => typeof v === "string");
    return [...own, ...labels(r.components), ...labels(r.component)];
  };
  parts.push(...labels(m.components));
  return parts.filter((p) => p !== "").join("\n");
}

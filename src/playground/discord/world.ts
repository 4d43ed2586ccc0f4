// The local Discord's state and its mutations; every change is announced as an event.
import { EventEmitter } from "node:events";
import { ChannelType } from "discord.js";
import type { APIEmbed } from "discord.js";
import type { GatewayEvent } from "./gateway.ts";
import type { UploadedFile } from "./http.ts";
import {
  apiUser,
  MessageFlag,
  type DoubleGuild,
  type DoubleUser,
  type RecordedRequest,
  type RegisteredCommand,
  type StoredAttachment,
  type StoredMessage,
} from "./model.ts";
import { snowflake } from "./snowflake.ts";
import { DiscordApiFailure, type MessageBody } from "./validation.ts";

export type InteractionKind = "command" | "autocomplete" | "button" | "select" | "modal";

/** One accepted interaction callback (POST /interactions/{id}/{token}/callback). */
export interface InteractionResponse {
  readonly interactionId: string;
  /** InteractionResponseType: 4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 choices, 9 modal. */
  readonly type: number;
  readonly data: Record<string, unknown> | undefined;
  /** Milliseconds from the dispatch of the interaction to this callback. */
  readonly elapsedMs: number;
  readonly at: number;
}

export interface InteractionRecord {
  readonly id: string;
  readonly token: string;
  readonly kind: InteractionKind;
  readonly user: DoubleUser;
  readonly channelId: string;
  readonly guildId: string | undefined;
  /** "account link" for commands and autocomplete. */
  readonly commandPath: string | undefined;
  readonly customId: string | undefined;
  readonly payload: Record<string, unknown>;
  /** performance.now() at dispatch. */
  readonly dispatchedAt: number;
  /** Date.now() after which callbacks answer 10062 Unknown interaction. */
  expiresAt: number;
  readonly sourceMessageId: string | undefined;
  readonly responses: InteractionResponse[];
  /** Callbacks refused (expired token, already acknowledged). */
  readonly rejectedCallbacks: { status: number; code: number; at: number }[];
  originalMessageId: string | undefined;
  readonly followUpIds: string[];
}

export interface ChannelInfo {
  readonly id: string;
  readonly type: ChannelType;
  readonly name: string | undefined;
  readonly guildId: string | undefined;
  readonly parentId: string | undefined;
  /** For DM channels: the human on the other side. */
  readonly recipientId: string | undefined;
}

export interface DoubleEvents {
  request: [RecordedRequest];
  message: [StoredMessage, "create" | "update" | "delete"];
  interaction: [InteractionRecord];
  interactionResponse: [InteractionResponse, InteractionRecord];
  commandsRegistered: [{ guildId: string | undefined; commands: readonly RegisteredCommand[] }];
  gateway: [GatewayEvent];
}

const MAX_RECORDED_REQUESTS = 20_000;

/** Webhook tokens of interactions live 15 minutes on Discord. */
export const WEBHOOK_TOKEN_TTL_MS = 15 * 60_000;

export class World extends EventEmitter<DoubleEvents> {
  readonly users = new Map<string, DoubleUser>();
  readonly guilds = new Map<string, DoubleGuild>();
  readonly channels = new Map<string, ChannelInfo>();
  readonly messages = new Map<string, StoredMessage>();
  readonly channelMessages = new Map<string, string[]>();
  readonly dmByUser = new Map<string, string>();
  readonly closedDms = new Set<string>();
  /** Users who installed the app to their account (installs.ts). */
  readonly accountInstalls = new Set<string>();
  /** Group DMs between humans, the bot not among them, by key (installs.ts). */
  readonly privateChannels = new Map<string, ChannelInfo>();
  readonly globalCommands: RegisteredCommand[] = [];
  readonly guildCommands = new Map<string, RegisteredCommand[]>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly interactionsByToken = new Map<string, InteractionRecord>();
  readonly requests: RecordedRequest[] = [];
  private readonly commandIds = new Map<string, string>();
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly applicationId: string,
    readonly bot: DoubleUser,
    humans: readonly DoubleUser[],
    guilds: readonly DoubleGuild[],
  ) {
    super();
    this.users.set(bot.id, bot);
    for (const user of humans) this.users.set(user.id, user);
    for (const guild of guilds) this.addGuild(guild);
  }

  addGuild(guild: DoubleGuild): void {
    this.guilds.set(guild.id, guild);
    for (const c of guild.channels) {
      this.channels.set(c.id, {
        id: c.id,
        type: c.type,
        name: c.name,
        guildId: guild.id,
        parentId: c.parentId,
        recipientId: undefined,
      });
    }
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.waiters.add(listener);
    return () => this.waiters.delete(listener);
  }

  changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  dmChannelFor(userId: string): ChannelInfo {
    const existing = this.dmByUser.get(userId);
    if (existing) return this.channels.get(existing) as ChannelInfo;
    const channel: ChannelInfo = {
      id: snowflake(),
      type: ChannelType.DM,
      name: undefined,
      guildId: undefined,
      parentId: undefined,
      recipientId: userId,
    };
    this.channels.set(channel.id, channel);
    this.dmByUser.set(userId, channel.id);
    return channel;
  }

  channelJson(channel: ChannelInfo): Record<string, unknown> {
    if (channel.type === ChannelType.DM) {
      const recipient = this.users.get(channel.recipientId ?? "");
      return {
        id: channel.id,
        type: channel.type,
        last_message_id: this.channelMessages.get(channel.id)?.at(-1) ?? null,
        recipients: recipient ? [apiUser(recipient)] : [],
        flags: 0,
      };
    }
    if (channel.type === ChannelType.GroupDM) {
      const humans = [...this.users.values()].filter((u) => !u.bot);
      return {
        id: channel.id,
        type: channel.type,
        name: channel.name,
        recipients: humans.map(apiUser),
        flags: 0,
      };
    }
    return {
      id: channel.id,
      type: channel.type,
      name: channel.name,
      guild_id: channel.guildId,
      parent_id: channel.parentId ?? null,
      position: 0,
      permission_overwrites: [],
      nsfw: false,
      flags: 0,
    };
  }

  messagesIn(channelId: string): StoredMessage[] {
    return (this.channelMessages.get(channelId) ?? [])
      .map((id) => this.messages.get(id))
      .filter((m): m is StoredMessage => m !== undefined && !m.deleted);
  }

  createMessage(input: {
    channelId: string;
    author: DoubleUser;
    body: MessageBody;
    files: readonly UploadedFile[];
    interactionId?: string;
    webhookId?: string;
    loading?: boolean;
  }): StoredMessage {
    const { body } = input;
    const channel = this.channels.get(input.channelId);
    const message: StoredMessage = {
      id: snowflake(),
      channelId: input.channelId,
      guildId: channel?.guildId,
      author: input.author,
      content: body.content ?? "",
      embeds: (body.embeds ?? []) as APIEmbed[],
      components: body.components ?? [],
      attachments: input.files.map(toAttachment),
      flags: (body.flags ?? 0) | (input.loading ? MessageFlag.Loading : 0),
      createdAt: Date.now(),
      editedAt: undefined,
      deleted: false,
      interactionId: input.interactionId,
      webhookId: input.webhookId,
      loading: input.loading ?? false,
    };
    if (!message.loading && isEmpty(message)) {
      throw new DiscordApiFailure(400, 50006, "Cannot send an empty message");
    }
    this.messages.set(message.id, message);
    const list = this.channelMessages.get(message.channelId) ?? [];
    list.push(message.id);
    this.channelMessages.set(message.channelId, list);
    this.emit("message", message, "create");
    this.changed();
    return message;
  }

  editMessage(message: StoredMessage, body: MessageBody, files: readonly UploadedFile[]): StoredMessage {
    if (body.content !== undefined) message.content = body.content ?? "";
    if (body.embeds !== undefined) message.embeds = (body.embeds ?? []) as APIEmbed[];
    if (body.components !== undefined) message.components = body.components ?? [];
    if (body.attachments !== undefined && body.attachments !== null) {
      // `attachments` lists what to keep; uploaded files are added after.
      const keep = new Set(body.attachments.map((a) => String(a.id)));
      message.attachments = message.attachments.filter((a) => keep.has(a.id));
    }
    message.attachments.push(...files.map(toAttachment));
    message.flags &= ~MessageFlag.Loading;
    message.loading = false;
    message.editedAt = Date.now();
    this.emit("message", message, "update");
    this.changed();
    return message;
  }

  deleteMessage(message: StoredMessage): void {
    message.deleted = true;
    this.emit("message", message, "delete");
    this.changed();
  }

  messageJson(m: StoredMessage, baseUrl: string): Record<string, unknown> {
    return {
      id: m.id,
      channel_id: m.channelId,
      ...(m.guildId ? { guild_id: m.guildId } : {}),
      author: apiUser(m.author),
      content: m.content,
      timestamp: new Date(m.createdAt).toISOString(),
      edited_timestamp: m.editedAt === undefined ? null : new Date(m.editedAt).toISOString(),
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: m.attachments.map((a) => ({
        id: a.id,
        filename: a.filename,
        size: a.size,
        url: `${baseUrl}/attachments/${m.channelId}/${a.id}/${encodeURIComponent(a.filename)}`,
        proxy_url: `${baseUrl}/attachments/${m.channelId}/${a.id}/${encodeURIComponent(a.filename)}`,
        ...(a.contentType ? { content_type: a.contentType } : {}),
      })),
      embeds: m.embeds,
      components: m.components,
      pinned: false,
      type: m.interactionId ? 20 : 0,
      flags: m.flags,
      ...(m.webhookId ? { webhook_id: m.webhookId, application_id: this.applicationId } : {}),
    };
  }

  /** Stores a bulk overwrite, keeping ids stable for names that stay (as Discord does). */
  overwriteCommands(
    guildId: string | undefined,
    definitions: readonly Record<string, unknown>[],
  ): RegisteredCommand[] {
    const registered = definitions.map((def) => {
      const name = String(def.name);
      const key = `${guildId ?? "global"}:${name}`;
      const id = this.commandIds.get(key) ?? snowflake();
      this.commandIds.set(key, id);
      return {
        ...def,
        id,
        application_id: this.applicationId,
        ...(guildId ? { guild_id: guildId } : {}),
        version: snowflake(),
        name,
        description: String(def.description ?? ""),
        type: typeof def.type === "number" ? def.type : 1,
      } satisfies RegisteredCommand;
    });
    if (guildId) this.guildCommands.set(guildId, registered);
    else this.globalCommands.splice(0, this.globalCommands.length, ...registered);
    this.emit("commandsRegistered", { guildId, commands: registered });
    this.changed();
    return registered;
  }

  /** The command a user in this guild would see: guild commands shadow global ones. */
  findCommand(name: string, guildId: string | undefined): RegisteredCommand | undefined {
    const inGuild = guildId ? this.guildCommands.get(guildId)?.find((c) => c.name === name) : undefined;
    return inGuild ?? this.globalCommands.find((c) => c.name === name);
  }

  addInteraction(record: InteractionRecord): void {
    this.interactions.set(record.id, record);
    this.interactionsByToken.set(record.token, record);
    this.emit("interaction", record);
    this.changed();
  }

  recordResponse(record: InteractionRecord, response: InteractionResponse): void {
    record.responses.push(response);
    this.emit("interactionResponse", response, record);
    this.changed();
  }

  recordRequest(request: RecordedRequest): void {
    this.requests.push(request);
    // A long playground session must not grow without bound; tests stay far below this.
    if (this.requests.length > MAX_RECORDED_REQUESTS + 1000) this.requests.splice(0, 1000);
  }

  finishRequest(request: RecordedRequest): void {
    this.emit("request", request);
    this.changed();
  }
}

function toAttachment(file: UploadedFile): StoredAttachment {
  return {
    id: snowflake(),
    filename: file.filename,
    contentType: file.contentType,
    size: file.data.length,
    data: file.data,
  };
}

function isEmpty(m: StoredMessage): boolean {
  return m.content === "" && m.embeds.length === 0 && m.components.length === 0 && m.attachments.length === 0;
}

// What the playground page is sent about a message: who may see it, who ran the command it answers, file URLs.
import type { APIEmbed } from "discord.js";
import type { DiscordDouble, DoubleUser, StoredMessage } from "./discord/index.ts";
import { isEphemeral } from "./discord/index.ts";

export interface UserView {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
  readonly bot: boolean;
}

export interface AttachmentView {
  readonly id: string;
  readonly filename: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly size: number;
  /** Shown inside an embed (`attachment://name`), so not again below the message. */
  readonly inEmbed: boolean;
}

export interface MessageView {
  readonly id: string;
  readonly channelId: string;
  readonly author: UserView;
  readonly content: string;
  readonly embeds: readonly APIEmbed[];
  readonly components: readonly unknown[];
  readonly attachments: readonly AttachmentView[];
  readonly ephemeral: boolean;
  /** A deferred reply not edited yet: "market-bot is thinking…". */
  readonly loading: boolean;
  readonly createdAt: number;
  readonly editedAt: number | undefined;
  /** For replies to a slash command: who ran which command ("alice used /watch add"). */
  readonly command: { readonly user: UserView; readonly name: string } | undefined;
}

export function userView(u: DoubleUser): UserView {
  return { id: u.id, username: u.username, displayName: u.globalName ?? u.username, bot: u.bot === true };
}

/** The user who caused an interaction response, follow-up or deferral (ephemeral ones are theirs alone). */
export function ownerOf(double: DiscordDouble, m: StoredMessage): DoubleUser | undefined {
  return m.interactionId ? double.interaction(m.interactionId)?.user : undefined;
}

/**
 * Whether `viewer` sees this message in their client: DMs only to the one human in them,
 * ephemeral replies only to whoever triggered them; everything else in a guild channel to all.
 */
export function isVisibleTo(double: DiscordDouble, m: StoredMessage, viewer: DoubleUser): boolean {
  if (m.deleted) return false;
  if (m.guildId === undefined && double.dmChannelOf(viewer.id) !== m.channelId) return false;
  if (isEphemeral(m)) return ownerOf(double, m)?.id === viewer.id;
  return true;
}

/** Where the page downloads an attachment (served from the double's recorded uploads). */
export function fileUrl(m: StoredMessage, attachment: { id: string; filename: string }): string {
  return `/files/${m.id}/${attachment.id}/${encodeURIComponent(attachment.filename)}`;
}

export function messageView(double: DiscordDouble, m: StoredMessage): MessageView {
  const byName = new Map(m.attachments.map((a) => [a.filename, fileUrl(m, a)]));
  const referenced = new Set<string>();
  // Discord shows `attachment://chart.png` inside the embed; the page gets the real file URL.
  const resolve = (url: string | undefined): string | undefined => {
    if (url === undefined || !url.startsWith("attachment://")) return url;
    const name = url.slice("attachment://".length);
    referenced.add(name);
    return byName.get(name);
  };
  const embeds = m.embeds.map((e): APIEmbed => {
    const image = e.image ? resolve(e.image.url) : undefined;
    const thumbnail = e.thumbnail ? resolve(e.thumbnail.url) : undefined;
    const { image: _image, thumbnail: _thumbnail, ...rest } = e;
    return {
      ...rest,
      ...(image === undefined ? {} : { image: { url: image } }),
      ...(thumbnail === undefined ? {} : { thumbnail: { url: thumbnail } }),
    };
  });
  const interaction = m.interactionId ? double.interaction(m.interactionId) : undefined;
  // While the reply is being created the record does not point at it yet: the first message wins.
  const isOriginalReply =
    interaction?.kind === "command" &&
    (interaction.originalMessageId ?? m.id) === m.id &&
    !interaction.followUpIds.includes(m.id);
  return {
    id: m.id,
    channelId: m.channelId,
    author: userView(m.author),
    content: m.content,
    embeds,
    components: m.components,
    attachments: m.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      url: fileUrl(m, a),
      contentType: a.contentType,
      size: a.size,
      inEmbed: referenced.has(a.filename),
    })),
    ephemeral: isEphemeral(m),
    loading: m.loading,
    createdAt: m.createdAt,
    editedAt: m.editedAt,
    command:
      isOriginalReply && interaction.commandPath
        ? { user: userView(interaction.user), name: `/${interaction.commandPath}` }
        : undefined,
  };
}

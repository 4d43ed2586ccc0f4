// Delivery to a user's DMs or a channel with a typed result: closed DMs and missing access are
// outcomes the caller acts on (tell the user, disable a channel rule), not exceptions.
import {
  DiscordAPIError,
  MessagePayload,
  RateLimitError,
  RESTJSONErrorCodes,
  Routes,
  type APIMessage,
  type Client,
  type MessageCreateOptions,
} from "discord.js";

export type DeliveryFailure =
  "dms_closed" | "unknown_user" | "unknown_channel" | "missing_access" | "rate_limited" | "failed";

export type DeliveryResult =
  | { readonly ok: true; readonly messageId: string; readonly channelId: string }
  | {
      readonly ok: false;
      readonly reason: DeliveryFailure;
      /** Discord's JSON error code or HTTP status, for logs. */
      readonly code?: number;
      readonly retryAfterMs?: number;
    };

export async function sendDm(
  client: Client,
  userId: string,
  message: MessageCreateOptions,
): Promise<DeliveryResult> {
  try {
    const channel = await client.users.createDM(userId);
    const sent = await channel.send(message);
    return { ok: true, messageId: sent.id, channelId: channel.id };
  } catch (error) {
    return failureOf(error);
  }
}

/**
 * A DM through the channel kept from an earlier one: one request instead of two (no
 * POST /users/@me/channels), which at Discord's 50 requests a second doubles a fan-out's pace.
 * Posted straight to the channel route, since discord.js would otherwise fetch or open the
 * channel first; its REST manager still queues the route and keeps the global limit. A kept
 * channel Discord no longer knows falls back to opening the DM.
 */
export async function sendDmVia(
  client: Client,
  userId: string,
  channelId: string,
  message: MessageCreateOptions,
): Promise<DeliveryResult> {
  if (client.user === null) return sendDm(client, userId, message);
  try {
    // The target only lends its client's options (mentions, nonce rules) to the payload.
    const { body, files } = await MessagePayload.create(client.user, message).resolveBody().resolveFiles();
    const sent = (await client.rest.post(Routes.channelMessages(channelId), {
      body,
      files: files ?? [],
    })) as APIMessage;
    return { ok: true, messageId: sent.id, channelId };
  } catch (error) {
    if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownChannel)
      return sendDm(client, userId, message);
    return failureOf(error);
  }
}

export async function sendToChannel(
  client: Client,
  channelId: string,
  message: MessageCreateOptions,
): Promise<DeliveryResult> {
  try {
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isSendable()) return { ok: false, reason: "unknown_channel" };
    const sent = await channel.send(message);
    return { ok: true, messageId: sent.id, channelId };
  } catch (error) {
    return failureOf(error);
  }
}

function failureOf(error: unknown): DeliveryResult {
  if (error instanceof RateLimitError)
    return { ok: false, reason: "rate_limited", retryAfterMs: error.retryAfter };
  if (!(error instanceof DiscordAPIError)) return { ok: false, reason: "failed" };
  const code = typeof error.code === "number" ? error.code : error.status;
  switch (error.code) {
    case RESTJSONErrorCodes.CannotSendMessagesToThisUser:
      return { ok: false, reason: "dms_closed", code };
    case RESTJSONErrorCodes.UnknownUser:
    case RESTJSONErrorCodes.InvalidRecipients:
      return { ok: false, reason: "unknown_user", code };
    case RESTJSONErrorCodes.UnknownChannel:
      return { ok: false, reason: "unknown_channel", code };
    case RESTJSONErrorCodes.MissingAccess:
    case RESTJSONErrorCodes.MissingPermissions:
      return { ok: false, reason: "missing_access", code };
    default:
      return { ok: false, reason: error.status === 429 ? "rate_limited" : "failed", code };
  }
}

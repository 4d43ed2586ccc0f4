// The seam between alert delivery and Discord: the delivery worker only knows this interface.
import type { AlertContent } from "./payload.ts";

export type AlertTarget =
  /** `channelId`: the DM channel kept from an earlier DM, if any (saves opening it again). */
  { kind: "dm"; userId: string; channelId?: string | undefined } | { kind: "channel"; channelId: string };

export interface SendRequest {
  target: AlertTarget;
  /** Discord id of the alert's user: buttons on the message are theirs alone. */
  ownerId: string;
  alert: AlertContent;
  /**
   * Stable per outbox row (<= 25 chars). Sent as the message nonce with enforce_nonce, so a
   * repeat of the same send within Discord's nonce window returns the first message instead of
   * posting a second one (ADR 004).
   */
  nonce: string;
}

export type SendResult =
  /** `channelId`: where it went (for a DM, the channel worth keeping for the next one). */
  | { kind: "sent"; messageId: string; channelId?: string | undefined }
  /** The user does not accept DMs from the bot (Discord 50007 / 403 on a DM). */
  | { kind: "dm_closed" }
  /** Worth trying again later: 5xx, 429 that surfaced, network trouble. */
  | { kind: "retryable"; retryAfterMs: number; reason: string }
  /** Will never succeed as is: unknown channel, missing access, invalid body. */
  | { kind: "permanent"; reason: string };

export interface AlertSender {
  send(request: SendRequest): Promise<SendResult>;
}

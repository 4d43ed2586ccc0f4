// The Discord side of alert delivery: renders an alert and sends it to a DM or channel, mapping outcomes for
// the outbox (the alert engine's background service, src/background/alertService.ts, hands it over).
import type { Client } from "discord.js";
import type { AlertSender, SendResult } from "../../outbox/sender.ts";
import type { Logger } from "../../log.ts";
import { sendDm, sendDmVia, sendToChannel, type DeliveryResult } from "./dm.ts";
import { renderAlert } from "../render/alerts/alerts.ts";

/** When Discord gives no hint, a failed send is tried again after this long (the outbox backs off further). */
const DEFAULT_RETRY_MS = 5_000;

export function createDiscordAlertSender(client: Client, logger: Logger): AlertSender {
  const log = logger.child({ module: "discord.alerts" });
  return {
    async send({ target, ownerId, alert, nonce }) {
      const message = {
        ...renderAlert(alert, ownerId),
        // With enforceNonce, Discord answers a repeat of this nonce (within its window) with the
        // message already created instead of a second one: a re-send after a crash between
        // "sent" and "marked sent" does not duplicate the alert (ADR 004).
        nonce,
        enforceNonce: true,
        allowedMentions: { parse: [] },
      };
      const result =
        target.kind === "channel"
          ? await sendToChannel(client, target.channelId, message)
          : target.channelId === undefined
            ? await sendDm(client, target.userId, message)
            : await sendDmVia(client, target.userId, target.channelId, message);
      const mapped = toSendResult(result, target.kind);
      if (mapped.kind !== "sent")
        log.debug({ target: target.kind, outcome: mapped.kind, result }, "alert not sent");
      return mapped;
    },
  };
}

export function toSendResult(result: DeliveryResult, target: "dm" | "channel"): SendResult {
  if (result.ok) return { kind: "sent", messageId: result.messageId, channelId: result.channelId };
  switch (result.reason) {
    case "dms_closed":
      return target === "dm"
        ? { kind: "dm_closed" }
        : { kind: "permanent", reason: "cannot send here (50007)" };
    case "missing_access":
      // A DM refused with Missing Access: what an account install can get when Discord does not
      // let the app reach the user (ADR 022). Kept and told like closed DMs, not retried forever.
      if (target === "dm") return { kind: "dm_closed" };
      return {
        kind: "permanent",
        reason: `missing_access${result.code === undefined ? "" : ` (${result.code})`}`,
      };
    case "unknown_user":
    case "unknown_channel":
      return {
        kind: "permanent",
        reason: `${result.reason}${result.code === undefined ? "" : ` (${result.code})`}`,
      };
    case "rate_limited":
      return {
        kind: "retryable",
        retryAfterMs: result.retryAfterMs ?? DEFAULT_RETRY_MS,
        reason: "rate limited",
      };
    case "failed":
      // 5xx, network trouble, or something unexpected: retried with backoff, given up after a few.
      return {
        kind: "retryable",
        retryAfterMs: 0,
        reason: `send failed${result.code === undefined ? "" : ` (${result.code})`}`,
      };
  }
}

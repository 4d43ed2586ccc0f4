// The Discord nonce of each send (ADR 004): stable per alert, so a send repeated after a crash is
// the same message to Discord.
import { createHash } from "node:crypto";

/**
 * The Discord nonce of one send: at most 25 characters, the same for every retry of the row.
 * A row for an alert takes it from the alert's dedupe key, so a row written again for the same
 * alert (after a crash took the first back, ADR 037) carries the same nonce and Discord keeps
 * one message; other rows take it from their id and creation time.
 */
export function outboxNonce(
  tag: string,
  row: { id: number; createdAt: Date; dedupeKey?: string | null | undefined },
  target: "dm" | "channel",
): string {
  const end = target === "channel" ? "c" : "d";
  if (row.dedupeKey != null) {
    const digest = createHash("sha256").update(row.dedupeKey).digest("base64url");
    return `${`${tag}${digest}`.slice(0, 24)}${end}`;
  }
  return `${tag}${row.id.toString(36)}.${row.createdAt.getTime().toString(36)}${end}`.slice(0, 25);
}

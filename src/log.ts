// The root pino logger: object first, secrets redacted by configuration.
import { pino, type DestinationStream, type Logger } from "pino";

/** Paths whose values must never reach a log line. */
export const REDACT_PATHS = [
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
  "authorization",
  "Authorization",
  "*.authorization",
  "*.Authorization",
  "headers.authorization",
  "*.headers.authorization",
  "req.headers.authorization",
  "trade_token",
  "*.trade_token",
  "*.*.trade_token",
  "tradeToken",
  "*.tradeToken",
  "token",
  "*.token",
  "encryptedKey",
  "*.encryptedKey",
  "DISCORD_TOKEN",
  "ENCRYPTION_KEY",
  "MARKET_API_KEY",
];

export type { Logger };

export function createLogger(
  opts: { level?: string; name?: string } = {},
  destination?: DestinationStream,
): Logger {
  const options = {
    level: opts.level ?? "info",
    name: opts.name ?? "bot",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

// The root pino logger: object first, secrets redacted by configuration.
import { pino, type DestinationStream, type Logger } from "pino";
import { PinoPretty } from "pino-pretty";

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

/**
 * Readable lines for a person at a terminal; JSON lines for machines. Pretty output is written
 * synchronously in-process (no worker thread), so shutdown and the playground banner stay ordered.
 */
export function prettyDestination(out?: NodeJS.WritableStream): DestinationStream {
  return PinoPretty({
    colorize: out === undefined,
    sync: true,
    translateTime: "SYS:HH:MM:ss",
    singleLine: true,
    messageFormat: "{if module}{module}: {end}{msg}",
    ignore: "name,module",
    ...(out === undefined ? {} : { destination: out }),
  });
}

export function createLogger(
  opts: { level?: string; name?: string; pretty?: boolean } = {},
  destination: DestinationStream | undefined = opts.pretty ? prettyDestination() : undefined,
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

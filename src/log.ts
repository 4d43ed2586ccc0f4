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

/**
 * Names whose values are secrets at any depth, compared case-insensitively and ignoring "-" and
 * "_" (so `Authorization`, `AUTHORIZATION`, `x-api-key` and `X_API_KEY` are all caught).
 */
const SECRET_NAMES = new Set(
  [
    "apiKey",
    "key",
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "cookie",
    "set-cookie",
    "password",
    "trade_token",
    "token",
    "encryptedKey",
    "DISCORD_TOKEN",
    "ENCRYPTION_KEY",
    "NEW_ENCRYPTION_KEY",
    "MARKET_API_KEY",
  ].map((n) => normaliseName(n)),
);

function normaliseName(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

const MAX_DEPTH = 12;

/**
 * A copy of a log object with every secret replaced, at any depth (pino's own paths stop at the
 * depths written down). Plain objects and arrays are copied; the caller's objects are never changed.
 */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value) || depth > MAX_DEPTH) return "[redacted: too deep]";
  if (Array.isArray(value)) {
    seen.add(value);
    return value.map((v) => redactDeep(v, depth + 1, seen));
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  const plain = proto === Object.prototype || proto === null;
  // Errors go through pino's err serializer; headers objects of undici/Node are plain or Maps.
  if (value instanceof Map) {
    seen.add(value);
    return Object.fromEntries(
      [...value.entries()].map(([k, v]) => [
        String(k),
        SECRET_NAMES.has(normaliseName(String(k))) ? CENSOR : redactDeep(v, depth + 1, seen),
      ]),
    );
  }
  if (!plain) return value;
  seen.add(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      SECRET_NAMES.has(normaliseName(k)) && v !== undefined && v !== null
        ? CENSOR
        : redactDeep(v, depth + 1, seen);
  }
  return out;
}

const CENSOR = "[redacted]";

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
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    // Any depth, any letter case: the paths above are a fast first pass only.
    formatters: { log: (object: Record<string, unknown>) => redactDeep(object) as Record<string, unknown> },
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

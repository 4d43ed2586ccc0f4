// The one place that reads the environment: parses it once with zod and lists every problem.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseDotenv } from "dotenv";
import { z } from "zod";
import { parseAddressBudget } from "../market/scheduler.ts";

const intFromEnv = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(def);

/** A decimal such as "2" or "2.5" within [min, max]. */
const decimalFromEnv = (def: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, "must be a number such as 2 or 2.5")
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    .default(def);

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .pipe(z.url({ message: "must be a URL such as http://127.0.0.1:8080" }).optional())
  .optional();

const snowflake = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .pipe(
    z
      .string()
      .regex(/^\d{5,25}$/, "must be a Discord id (digits)")
      .optional(),
  )
  .optional();

/**
 * Exactly 32 bytes in canonical base64 (padding optional). Node's decoder skips characters it does
 * not know, so "decodes to 32 bytes" alone would accept strings that are not the key meant.
 */
function isBase64Of32Bytes(v: string): boolean {
  const bytes = Buffer.from(v, "base64");
  return bytes.length === 32 && bytes.toString("base64").replace(/=+$/, "") === v.replace(/=+$/, "");
}

export const EnvSchema = z.object({
  DISCORD_TOKEN: optionalString,
  DISCORD_APPLICATION_ID: snowflake,
  DISCORD_GUILD_ID: snowflake,
  DISCORD_API_URL: optionalUrl,
  MARKET_BASE_URL: optionalUrl,
  MARKET_API_KEY: optionalString,
  /** The marketplace's screenshot page, "{id}" standing for a listing's game_screenshot_id; unset: no screenshot links. */
  MARKET_SCREENSHOT_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^https:\/\/\S*\{id\}\S*$/, { message: "must be an https URL containing {id}" })
        .optional(),
    )
    .optional(),
  /**
   * Requests per window this address may send the marketplace, all keys together ("600/5m");
   * "off" (default): learned from 429s that hit several keys at once.
   */
  MARKET_ADDRESS_BUDGET: z
    .string()
    .trim()
    .default("off")
    .transform((v, ctx) => {
      try {
        return parseAddressBudget(v);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  DATABASE_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must start with postgresql://")
        .optional(),
    )
    .optional(),
  DATA_DIR: z.string().trim().default("data"),
  ENCRYPTION_KEY: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(
      z
        .string()
        .refine(isBase64Of32Bytes, "must be exactly 32 bytes encoded in base64 (openssl rand -base64 32)")
        .optional(),
    )
    .optional(),
  /** Only for `npm run db:rotate-key`: the key to re-encrypt stored keys under. */
  NEW_ENCRYPTION_KEY: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(
      z
        .string()
        .refine(isBase64Of32Bytes, "must be exactly 32 bytes encoded in base64 (openssl rand -base64 32)")
        .optional(),
    )
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** auto: readable coloured lines on a terminal, JSON lines otherwise (files, Docker, collectors). */
  LOG_FORMAT: z.enum(["auto", "pretty", "json"]).default("auto"),
  HTTP_PORT: intFromEnv(8080, 0, 65535),
  HTTP_HOST: z.string().trim().default("127.0.0.1"),
  POLL_INTERVAL_MS: intFromEnv(2000, 100),
  BID_POLL_INTERVAL_MS: intFromEnv(15000, 500),
  TRADE_POLL_INTERVAL_MS: intFromEnv(30000, 500),
  MAX_RULES_PER_USER: intFromEnv(50, 1, 10000),
  /** The marketplace's seller fee, percent: every profit figure and profit filter is after it. */
  SELLER_FEE_PERCENT: decimalFromEnv(2, 0, 100),
  /**
   * How long after verification a trade can still be reversed, when the trade does not say
   * (it normally carries trade_protection_ends_at): /trades shows the window left on sales.
   */
  REVERSAL_WINDOW_HOURS: intFromEnv(168, 0, 24 * 365),
  /** Where the published privacy policy (PRIVACY.md) can be read; /help links to it. */
  PRIVACY_POLICY_URL: optionalUrl,
  /**
   * How long each kind of record lives before the leader prunes it (PRIVACY.md "How long"): the
   * alert log (and its dedupe keys), delivered or given-up outbox rows, what became of alerted
   * listings, guard events, settled auto-buys, and unconfirmed drafts after they expire.
   */
  RETENTION_ALERT_LOG_DAYS: intFromEnv(90, 14, 3650),
  RETENTION_OUTBOX_DAYS: intFromEnv(7, 1, 3650),
  RETENTION_FATES_DAYS: intFromEnv(30, 8, 3650),
  RETENTION_GUARD_EVENTS_DAYS: intFromEnv(30, 2, 3650),
  RETENTION_AUTO_BUYS_DAYS: intFromEnv(90, 1, 3650),
  RETENTION_DRAFTS_DAYS: intFromEnv(1, 1, 3650),
  SHARD_COUNT: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.union([z.literal("auto"), z.string().regex(/^\d+$/).transform(Number)]).optional())
    .optional(),
  /**
   * Discord allows a bot 50 requests per second in all; this is the share of one bot process,
   * enforced by discord.js's REST manager. Shard processes split it between them; replicas
   * (several containers on one token) must be given 50 / replicas each (ADR 018).
   */
  DISCORD_REQUESTS_PER_SECOND: intFromEnv(50, 1, 50),
  PLAYGROUND_PORT: intFromEnv(3000, 0, 65535),
  /** Asks for the local playground where it would otherwise be refused (production, a DATABASE_URL). */
  PLAYGROUND: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" }).optional())
    .transform((v) => v === "true" || v === "1" || v === "yes")
    .optional(),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config extends Env {
  /** True when no Discord token is set: `npm start` runs the local playground. */
  readonly playground: boolean;
  /** True when no MARKET_BASE_URL is set: the built-in sandbox runs in-process. */
  readonly sandboxInProcess: boolean;
  /** True when no DATABASE_URL is set: an embedded Postgres runs from DATA_DIR. */
  readonly embeddedDatabase: boolean;
  /** Absolute data folder. */
  readonly dataDir: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * An empty value means "unset" everywhere: `.env` files and compose pass `KEY=` lines through, and
 * some libraries read the environment themselves (discord.js takes SHARD_COUNT and SHARDS from it;
 * `SHARD_COUNT=` made it refuse to start). Called first thing at start; returns what it removed.
 */
export function dropEmptyEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const dropped = Object.keys(env).filter((k) => env[k]?.trim() === "");
  for (const k of dropped) delete env[k];
  return dropped;
}

/** Reads `.env` (if present) under the given environment; real environment variables win. */
export function readDotenv(cwd: string = process.cwd()): Record<string, string> {
  const file = path.join(cwd, ".env");
  if (!existsSync(file)) return {};
  return parseDotenv(readFileSync(file));
}

/**
 * Defaults that differ in the playground (no DISCORD_TOKEN): alerts arrive within a second or
 * two of a listing made in the control panel, not after production's gentler pace.
 */
export const PLAYGROUND_DEFAULTS = {
  POLL_INTERVAL_MS: 1000,
  BID_POLL_INTERVAL_MS: 3000,
  TRADE_POLL_INTERVAL_MS: 5000,
} as const satisfies Partial<Env>;

/** The entries of `defaults` whose variable was not given: an explicit setting always wins. */
function unsetOf<T extends Partial<Env>>(defaults: T, given: Record<string, unknown>): Partial<T> {
  return Object.fromEntries(Object.entries(defaults).filter(([k]) => given[k] === undefined)) as Partial<T>;
}

/** What this installation holds, where it bears on the configuration. */
export interface Installation {
  /** False where the embedded Postgres is not installed (the Docker image): DATABASE_URL is then required. */
  readonly embeddedPostgres?: boolean;
}

export function loadConfig(
  env: Record<string, string | undefined> = { ...readDotenv(), ...process.env },
  cwd: string = process.cwd(),
  /** "tool": a command-line tool (migrate, rotate a key) that never starts a playground. */
  purpose: "bot" | "tool" = "bot",
  installation: Installation = {},
): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.shape).flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]])),
  );
  const parsed = EnvSchema.safeParse(known);
  // Every problem at once: each variable on its own, then the rules between them.
  const problems = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((i) => `${i.path.join(".") || "(environment)"}: ${i.message}`)),
    ...crossFieldProblems(known, purpose),
    ...installationProblems(known, installation),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const playground = e.DISCORD_TOKEN === undefined;
  return {
    ...e,
    ...(playground ? unsetOf(PLAYGROUND_DEFAULTS, known) : {}),
    playground,
    sandboxInProcess: e.MARKET_BASE_URL === undefined,
    embeddedDatabase: e.DATABASE_URL === undefined,
    dataDir: path.resolve(cwd, e.DATA_DIR),
  };
}

/** Rules between variables, on the raw values (an empty value means unset). */
function crossFieldProblems(env: Record<string, unknown>, purpose: "bot" | "tool"): string[] {
  const given = (k: keyof Env) => typeof env[k] === "string" && env[k].trim() !== "";
  const problems: string[] = [];
  if (given("MARKET_BASE_URL") && !given("MARKET_API_KEY")) {
    // The live service refuses keyless reads (403), so the shared feed would never see a listing.
    problems.push(
      "MARKET_API_KEY: required with MARKET_BASE_URL: the marketplace refuses reads without a key, and the shared listing feed and market data for users without a linked key use this one (leave MARKET_BASE_URL unset to use the built-in sandbox)",
    );
  }
  // No token means the local playground: never by accident on a production setup or database.
  const playgroundAsked =
    typeof env["PLAYGROUND"] === "string" && /^(true|1|yes)$/i.test(env["PLAYGROUND"].trim());
  if (purpose === "bot" && !given("DISCORD_TOKEN") && !playgroundAsked) {
    if (typeof env["NODE_ENV"] === "string" && env["NODE_ENV"].trim() === "production") {
      problems.push(
        "DISCORD_TOKEN: required with NODE_ENV=production (without a token the bot would start the local playground; set PLAYGROUND=true if that is what you want)",
      );
    } else if (given("DATABASE_URL")) {
      problems.push(
        "DISCORD_TOKEN: required with DATABASE_URL (without a token the bot would start the local playground on that database; set PLAYGROUND=true if that is what you want)",
      );
    }
  }
  // Shards are separate processes: they can share a database server and a marketplace, not
  // in-process ones (the playground, without a token, ignores SHARD_COUNT).
  if (purpose === "bot" && given("SHARD_COUNT") && given("DISCORD_TOKEN")) {
    if (!given("DATABASE_URL")) {
      problems.push(
        "DATABASE_URL: required with SHARD_COUNT (every shard process must use the same database)",
      );
    }
    if (!given("MARKET_BASE_URL")) {
      problems.push(
        "MARKET_BASE_URL: required with SHARD_COUNT (each shard would otherwise run a sandbox of its own)",
      );
    }
  }
  // Keys travel in a header: never in clear text over a network.
  const base = given("MARKET_BASE_URL") ? URL.parse(String(env["MARKET_BASE_URL"]).trim()) : null;
  if (base !== null && base.protocol !== "https:" && !isLoopback(base.hostname)) {
    problems.push(
      `MARKET_BASE_URL: must use https (API keys travel in a header); plain http is only allowed for a marketplace on this machine (got ${base.protocol}//${base.hostname})`,
    );
  }
  return problems;
}

/** Settings this installation cannot do without (reported with every other problem, before any connection). */
function installationProblems(env: Record<string, unknown>, installation: Installation): string[] {
  const databaseUrl = typeof env["DATABASE_URL"] === "string" ? env["DATABASE_URL"].trim() : "";
  if (installation.embeddedPostgres === false && databaseUrl === "") {
    return [
      "DATABASE_URL: required here: this installation has no embedded Postgres (the Docker image leaves it out; docker-compose.yml sets DATABASE_URL to its Postgres service)",
    ];
  }
  return [];
}

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

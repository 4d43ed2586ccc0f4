// The doctor's configuration: the marketplace to examine and the keys to read it with, parsed once
// from the environment and its flags, every problem listed. Keys are never echoed back.
import { z } from "zod";

export interface DoctorConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly secondApiKey: string | undefined;
  readonly json: boolean;
  /** An item name to probe the history routes with when the listings do not yield one. */
  readonly item: string | undefined;
  readonly timeoutMs: number;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

const DoctorEnv = z.object({
  MARKET_BASE_URL: z
    .string({ error: "MARKET_BASE_URL: required (the marketplace's base URL, ending in /api/v1)" })
    .trim()
    .url("MARKET_BASE_URL: must be a URL ending in /api/v1")
    .refine((v) => {
      const url = new URL(v);
      return url.protocol === "https:" || (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname));
    }, "MARKET_BASE_URL: must use https (API keys travel in a header); plain http only for a marketplace on this machine"),
  MARKET_API_KEY: z
    .string({ error: "MARKET_API_KEY: required (the doctor reads with it; it is never printed)" })
    .trim()
    .min(1, "MARKET_API_KEY: must not be empty"),
  MARKET_SECOND_API_KEY: z.string().trim().min(1).optional(),
  DOCTOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
});

export class DoctorConfigError extends Error {
  override readonly name = "DoctorConfigError";
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
  }
}

export const DOCTOR_USAGE = `Usage: npm run doctor -- [--json] [--second-key-env NAME] [--item "<item name>"]

Reads every marketplace endpoint the bot uses (never buys, bids, lists, edits, accepts or cancels)
and reports what differs from what the bot reads. Environment: MARKET_BASE_URL, MARKET_API_KEY,
optionally MARKET_SECOND_API_KEY (a second user's key). Exit 0: nothing the bot relies on is
missing or changed; 1: drift found; 2: the doctor could not run.`;

export function loadDoctorConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): DoctorConfig | "help" {
  const problems: string[] = [];
  let json = false;
  let item: string | undefined;
  let secondEnv = "MARKET_SECOND_API_KEY";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") json = true;
    else if (arg === "--help" || arg === "-h") return "help";
    else if (arg === "--item") item = argv[++i];
    else if (arg === "--second-key-env") secondEnv = argv[++i] ?? secondEnv;
    else problems.push(`unknown argument: ${arg ?? ""} (see --help)`);
  }
  if (item !== undefined && item.trim() === "") problems.push("--item: needs an item name");
  const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v);
  const parsed = DoctorEnv.safeParse({
    MARKET_BASE_URL: blank(env["MARKET_BASE_URL"]),
    MARKET_API_KEY: blank(env["MARKET_API_KEY"]),
    MARKET_SECOND_API_KEY: blank(env[secondEnv]),
    DOCTOR_TIMEOUT_MS: blank(env["DOCTOR_TIMEOUT_MS"]),
  });
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => i.message));
  if (problems.length > 0 || !parsed.success) throw new DoctorConfigError(problems);
  return {
    baseUrl: parsed.data.MARKET_BASE_URL,
    apiKey: parsed.data.MARKET_API_KEY,
    secondApiKey: parsed.data.MARKET_SECOND_API_KEY,
    json,
    item,
    timeoutMs: parsed.data.DOCTOR_TIMEOUT_MS,
  };
}

// `npm run sandbox [-- --port 8787 --seed 1 --rate-limit live|roomy|off]`: runs the sandbox until Ctrl-C and prints its keys.
import { parseArgs } from "node:util";
import { createLogger } from "../log.ts";
import { startSandbox } from "./index.ts";

const USAGE = `usage: npm run sandbox -- [--port 8787] [--host 127.0.0.1] [--seed 1] [--rate-limit live|roomy|off] [--no-rate-limit]`;
const RATE_LIMITS = { live: "live", roomy: "roomy", off: false } as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8787" },
      host: { type: "string", default: "127.0.0.1" },
      seed: { type: "string", default: "1" },
      "rate-limit": { type: "string", default: "live" },
      "no-rate-limit": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  const seed = Number(values.seed);
  const rateName = values["no-rate-limit"] ? "off" : values["rate-limit"];
  const rateLimit = Object.hasOwn(RATE_LIMITS, rateName)
    ? RATE_LIMITS[rateName as keyof typeof RATE_LIMITS]
    : undefined;
  if (
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65_535 ||
    !Number.isInteger(seed) ||
    rateLimit === undefined
  ) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const logger = createLogger({ name: "sandbox", level: "warn" });
  const sandbox = await startSandbox({
    port,
    portSetting: "--port",
    host: values.host,
    seed,
    logger,
    rateLimit,
  });
  const lines = [
    "Sandbox marketplace is running.",
    `  base URL:    ${sandbox.baseUrl}`,
    `  control URL: ${sandbox.controlUrl}`,
    "  demo API keys (send as the Authorization header, no prefix):",
    ...sandbox.users.map((u) => `    ${u.name.padEnd(8)} ${u.apiKey}  (platform id ${u.platformId})`),
    `  point the bot at it with MARKET_BASE_URL=${sandbox.baseUrl}`,
    "Press Ctrl-C to stop.",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping sandbox");
    sandbox.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "sandbox did not close cleanly");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

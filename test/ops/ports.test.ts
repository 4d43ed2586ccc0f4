// A busy port: every server the bot, the playground and the sandbox bind says, in one line, which
// setting to change; the bot process prints that line and exits 1 without a stack trace.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../../src/http/server.ts";
import { createLogger } from "../../src/log.ts";
import { startPlaygroundServer } from "../../src/playground/server.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { PortUnavailableError } from "../../src/util/listen.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, withDeadline, type DiscordDouble } from "../support/discord.ts";
import { spawnBot, type BotProcess } from "./support.ts";

const logger = createLogger({ level: "silent" });
let holder: Server;
let busyPort: number;

beforeAll(async () => {
  // Holds a port the way a second `npm start` finds it held by the first.
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  busyPort = (holder.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => holder.close(() => resolve()));
});

/** The rejection of `start`, checked to be the one-line busy-port error naming `setting`. */
async function refusal(start: Promise<unknown>, setting: string): Promise<PortUnavailableError> {
  const error = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PortUnavailableError);
  const busy = error as PortUnavailableError;
  expect(busy.message).toBe(
    `Port ${busyPort} on 127.0.0.1 is already in use (is another copy running?): set ${setting} to a free port, or 0 for any free one.`,
  );
  expect(busy.message).not.toContain("\n");
  return busy;
}

describe("binding a busy port", () => {
  it("GIVEN HTTP_PORT is taken WHEN the health server starts THEN it names HTTP_PORT", async () => {
    await refusal(
      startHttpServer({
        host: "127.0.0.1",
        port: busyPort,
        logger,
        checks: {},
        metrics: { render: async () => ({ contentType: "text/plain", body: "" }) },
      }),
      "HTTP_PORT",
    );
  });

  it("GIVEN PLAYGROUND_PORT is taken WHEN the playground page starts THEN it names PLAYGROUND_PORT", async () => {
    const double: DiscordDouble = await startDiscordDouble();
    try {
      await refusal(
        startPlaygroundServer({
          double,
          sandbox: undefined,
          rulesOf: async () => [],
          logger,
          port: busyPort,
          host: "127.0.0.1",
        }),
        "PLAYGROUND_PORT",
      );
    } finally {
      await double.close();
    }
  });

  it("GIVEN the sandbox CLI's port is taken WHEN the sandbox starts THEN it names --port", async () => {
    await refusal(startSandbox({ port: busyPort, portSetting: "--port", rateLimit: false }), "--port");
  });
});

describe("the bot process on a busy HTTP_PORT", () => {
  let double: DiscordDouble;
  let sandbox: Sandbox;
  let db: TestDatabase;
  let workDir: string;
  let bot: BotProcess | undefined;

  beforeAll(async () => {
    double = await startDiscordDouble();
    sandbox = await startSandbox({ rateLimit: false });
    db = await freshDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), "bot-ports-"));
  });

  afterEach(async () => {
    await bot?.kill();
    bot = undefined;
  });

  afterAll(async () => {
    await double?.close();
    await sandbox?.close();
    await db?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("GIVEN HTTP_PORT is held by another process WHEN the bot starts THEN it prints one line naming HTTP_PORT and exits 1, without a stack trace", async () => {
    bot = spawnBot(
      {
        DISCORD_TOKEN: "ports-test-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        DATA_DIR: workDir,
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: String(busyPort),
        LOG_LEVEL: "info",
        NODE_ENV: "test",
      },
      workDir,
    );
    const exit = await withDeadline(bot.exited, 60_000, "the process to exit");
    const output = bot.output();
    expect(exit, output).toEqual({ code: 1, signal: null });
    expect(output).toContain(`Port ${busyPort} on 127.0.0.1 is already in use`);
    expect(output).toContain("set HTTP_PORT to a free port");
    expect(output, "no stack trace for a busy port").not.toMatch(/\n\s+at /);
    expect(bot.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});

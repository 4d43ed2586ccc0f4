// Graceful shutdown: the real bot as a child process (src/main.ts under tsx) stopped by SIGTERM and SIGINT,
// and the shutdown module's watchdog and second-signal rules.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toOutboxPayload } from "../../src/outbox/payload.ts";
import { enqueueMessage } from "../../src/db/repos/outbox.ts";
import { ensureUser } from "../../src/db/repos/users.ts";
import { createLogger } from "../../src/log.ts";
import type { GatewayEvent } from "../../src/playground/discord/gateway.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { installShutdown, REPEAT_WINDOW_MS, type ShutdownHandle } from "../../src/shutdown.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble } from "../support/discord.ts";
import { startBot } from "../support/harness.ts";
import { eventually, health, spawnBot, type BotProcess, type ProcessLogLine } from "./support.ts";

describe("the bot process", () => {
  let double: DiscordDouble;
  let sandbox: Sandbox;
  let db: TestDatabase;
  let workDir: string;
  let bot: BotProcess | undefined;
  const gatewayEvents: GatewayEvent[] = [];
  const encryptionKey = randomBytes(32).toString("base64");

  beforeAll(async () => {
    double = await startDiscordDouble();
    double.on("gateway", (event) => gatewayEvents.push(event));
    sandbox = await startSandbox({ rateLimit: false });
    db = await freshDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), "bot-shutdown-"));
  });

  afterEach(async () => {
    await bot?.kill();
    bot = undefined;
    double.faults.clear();
  });

  afterAll(async () => {
    await double?.close();
    await sandbox?.close();
    await db?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const isRunning = (l: ProcessLogLine) => l.msg === "the bot is running; press Ctrl+C to stop";

  /** Starts the bot and waits until it says it runs and /healthz agrees. */
  async function start(): Promise<{ bot: BotProcess; healthUrl: string }> {
    const child = spawnBot(
      {
        DISCORD_TOKEN: "shutdown-test-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: encryptionKey,
        DATA_DIR: workDir,
        HTTP_PORT: "0",
        LOG_LEVEL: "info",
        NODE_ENV: "test",
      },
      workDir,
    );
    bot = child;
    const running = await child.waitForLog(isRunning, 30_000, "the bot to start");
    const healthUrl = String(running.healthUrl);
    const baseUrl = healthUrl.replace(/\/healthz$/, "");
    await eventually(async () => (await health(baseUrl)).status === 200, 10_000, "/healthz 200");
    return { bot: child, healthUrl };
  }

  /** Waits until a message send made after `from` (an index into the double's requests) got the injected 429. */
  const rateLimitedSince = (from: number) =>
    double.waitFor(
      () =>
        double.requests.slice(from).some((r) => r.method === "POST" && r.fault && /\/messages$/.test(r.path)),
      10_000,
      "the DM send to be rate limited",
    );

  const closesSince = (from: number) =>
    gatewayEvents.slice(from).filter((e) => e.type === "close" && e.code === 1000);

  it("GIVEN a DM delivery in flight WHEN the process gets SIGTERM THEN the DM is finished, no outbox lease is left, the gateway is closed and it exits 0 within 10 s", async () => {
    const { bot } = await start();
    const alice = double.user("alice");
    const user = await ensureUser(db.prisma, alice.id);
    // Discord answers the DM with 429 twice: discord.js waits and retries while we shut down.
    double.faults.add({
      method: "POST",
      path: /^\/channels\/\d+\/messages$/,
      status: 429,
      retryAfter: 1.5,
      times: 2,
    });
    const requestsBefore = double.requests.length;
    const eventsBefore = gatewayEvents.length;
    const outboxId = await enqueueMessage(db.prisma, {
      userId: user.id,
      destination: "dm",
      payload: toOutboxPayload({ kind: "key_revoked" }),
    });
    await rateLimitedSince(requestsBefore);

    const signalledAt = Date.now();
    bot.child.kill("SIGTERM");
    const exit = await withDeadline(bot.exited, 10_000, "the process to exit");

    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    const row = await db.prisma.outbox.findUniqueOrThrow({ where: { id: outboxId } });
    expect(row.status).toBe("sent");
    expect(await db.prisma.outbox.count({ where: { status: "sending" } })).toBe(0);
    expect(double.dmsTo(alice.id)).toHaveLength(1);
    // Finished during the shutdown, not before it began.
    const order = (msg: string) => bot.logs.findIndex((l) => l.msg === msg);
    expect(order("shutting down")).toBeGreaterThanOrEqual(0);
    expect(order("alert sent")).toBeGreaterThan(order("shutting down"));
    expect(closesSince(eventsBefore).length).toBeGreaterThanOrEqual(1);
    expect(bot.logs.some((l) => l.msg === "shutdown complete")).toBe(true);
  });

  it("GIVEN a running bot WHEN Ctrl+C sends SIGINT to its process group, twice in a row THEN it closes the gateway and exits 0", async () => {
    const { bot } = await start();
    const eventsBefore = gatewayEvents.length;

    // A terminal signals the whole group, and npm/tsx relay it again: one request, not two.
    bot.child.kill("SIGINT");
    bot.child.kill("SIGINT");
    const exit = await withDeadline(bot.exited, 10_000, "the process to exit");

    expect(exit).toEqual({ code: 0, signal: null });
    expect(closesSince(eventsBefore).length).toBeGreaterThanOrEqual(1);
    expect(bot.logs.find((l) => l.msg === "shutting down")?.reason).toBe("SIGINT");
    // A normal Ctrl+C is not trouble: nothing from then on is a warning or worse.
    const from = bot.logs.findIndex((l) => l.msg === "shutting down");
    expect(bot.logs.slice(from).filter((l) => l.level >= 40)).toEqual([]);
  });

  it("GIVEN a shutdown stuck behind a long Discord rate limit WHEN a second SIGTERM arrives THEN the process exits 1 at once and says so", async () => {
    const { bot } = await start();
    const user = await ensureUser(db.prisma, double.user("bob").id);
    double.faults.add({
      method: "POST",
      path: /^\/channels\/\d+\/messages$/,
      status: 429,
      retryAfter: 60,
      times: 1,
    });
    const requestsBefore = double.requests.length;
    await enqueueMessage(db.prisma, {
      userId: user.id,
      destination: "dm",
      payload: toOutboxPayload({ kind: "key_revoked" }),
    });
    await rateLimitedSince(requestsBefore);

    bot.child.kill("SIGTERM");
    const first = await bot.waitForLog((l) => l.msg === "shutting down", 5_000, "the shutdown to begin");
    // Past the window in which a repeat counts as the same request (REPEAT_WINDOW_MS).
    await eventually(
      () => Date.now() - Date.parse(String(first.time)) > REPEAT_WINDOW_MS,
      5_000,
      "the repeat window",
    );
    bot.child.kill("SIGTERM");
    const exit = await withDeadline(bot.exited, 3_000, "the forced exit");

    expect(exit.code).toBe(1);
    expect(bot.logs.some((l) => l.msg === "second shutdown request: forcing exit")).toBe(true);
  });
});

describe("app.stop()", () => {
  it("GIVEN a running app WHEN stop() is called twice at once THEN both calls share one stop, which closes the HTTP server", async () => {
    const bot = await startBot();
    try {
      const url = bot.app.http.url;
      const first = bot.app.stop();
      const second = bot.app.stop();
      expect(second).toBe(first);
      await Promise.all([first, second]);
      await bot.app.stop();

      expect(bot.logs.filter((l) => l.module === "app" && l.msg === "stopped")).toHaveLength(1);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      await bot.stop();
    }
  });
});

describe("installShutdown", () => {
  let handle: ShutdownHandle | undefined;
  afterEach(() => handle?.dispose());

  const silent = createLogger({ level: "silent" });
  // Real signals are the child-process tests' job: here the vitest worker's own handlers stay untouched.
  const noSignals = { signals: [] } as const;

  it("GIVEN a stop that never ends WHEN the watchdog runs out THEN it exits 1", async () => {
    const exits: number[] = [];
    handle = installShutdown({
      logger: silent,
      stop: () => new Promise<void>(() => {}),
      timeoutMs: 100,
      exit: (c) => exits.push(c),
      ...noSignals,
    });
    handle.shutdown("test");
    await eventually(() => exits.length > 0, 2_000, "the watchdog");
    expect(exits).toEqual([1]);
  });

  it("GIVEN a stop that resolves WHEN shutdown is requested THEN it exits 0 once, however many requests follow the exit", async () => {
    const exits: number[] = [];
    handle = installShutdown({
      logger: silent,
      stop: async () => {},
      exit: (c) => exits.push(c),
      ...noSignals,
    });
    handle.shutdown("SIGTERM");
    await eventually(() => exits.length > 0, 2_000, "the exit");
    handle.shutdown("SIGTERM");
    expect(exits).toEqual([0]);
  });

  it("GIVEN a stop in progress WHEN a repeat comes within the window THEN it is ignored; WHEN one comes after it THEN it exits 1", () => {
    const exits: number[] = [];
    let clock = 0;
    handle = installShutdown({
      logger: silent,
      stop: () => new Promise<void>(() => {}),
      exit: (c) => exits.push(c),
      now: () => clock,
      ...noSignals,
    });
    handle.shutdown("SIGINT");
    clock += REPEAT_WINDOW_MS - 1;
    handle.shutdown("SIGINT");
    expect(exits).toEqual([]);
    clock += 1;
    handle.shutdown("SIGINT");
    expect(exits).toEqual([1]);
  });

  it("GIVEN a stop that fails WHEN shutdown is requested THEN it exits 1", async () => {
    const exits: number[] = [];
    handle = installShutdown({
      logger: silent,
      stop: async () => {
        throw new Error("database close failed");
      },
      exit: (c) => exits.push(c),
      ...noSignals,
    });
    handle.shutdown("SIGINT");
    await eventually(() => exits.length > 0, 2_000, "the exit");
    expect(exits).toEqual([1]);
  });
});

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// Starting the bot process with a copied .env.example: empty `KEY=` lines mean unset everywhere
// (discord.js too), and configuration problems are all reported before the database is contacted.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { readFileSync } from "node:fs";
import { parse as parseDotenv } from "dotenv";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { emptyDatabase, type EmptyDatabase } from "../support/db.ts";
import { startDiscordDouble, withDeadline, type DiscordDouble } from "../support/discord.ts";
import { eventually, health, REPO_ROOT, spawnBot, type BotProcess } from "./support.ts";

/** .env.example as `cp .env.example .env` hands it to the bot: every `KEY=` line, most of them empty. */
const envExample = parseDotenv(readFileSync(path.join(REPO_ROOT, ".env.example")));

describe("starting the bot process", () => {
  let double: DiscordDouble;
  let db: EmptyDatabase;
  let workDir: string;
  let bot: BotProcess | undefined;

  beforeAll(async () => {
    double = await startDiscordDouble();
    db = await emptyDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), "bot-startup-"));
  });

  afterEach(async () => {
    await bot?.kill();
    bot = undefined;
  });

  afterAll(async () => {
    await double?.close();
    await db?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("GIVEN .env.example's values (empty SHARD_COUNT= and SHARDS= among them) and a token WHEN the bot starts THEN it runs unsharded, healthy, and stops with exit 0", async () => {
    expect(envExample.SHARD_COUNT, ".env.example keeps an empty SHARD_COUNT= line").toBe("");
    bot = spawnBot(
      {
        ...envExample,
        // discord.js reads SHARDS beside SHARD_COUNT in a sharded child: empty, it must be ignored too.
        SHARDS: "",
        DISCORD_TOKEN: "startup-test-token",
        DISCORD_API_URL: double.apiUrl,
        DATABASE_URL: db.url,
        // Not set by .env.example (the image sets it); a free port keeps parallel runs apart.
        HTTP_PORT: "0",
      },
      workDir,
    );
    const running = await bot.waitForLog(
      (l) => l.msg === "the bot is running; press Ctrl+C to stop",
      60_000,
      "the bot to start",
    );
    const baseUrl = String(running.healthUrl).replace(/\/healthz$/, "");
    await eventually(async () => (await health(baseUrl)).status === 200, 15_000, "/healthz 200");
    expect(bot.logs.some((l) => l.msg === "the bot is running in shards")).toBe(false);
    expect(double.registeredCommands().map((c) => c.name)).toContain("help");

    bot.child.kill("SIGTERM");
    expect(await withDeadline(bot.exited, 10_000, "the process to exit")).toEqual({ code: 0, signal: null });
  });

  describe("with configuration problems", () => {
    let server: Server;
    let connections = 0;

    beforeAll(async () => {
      // Stands where the database would be: counts every connection attempt.
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("GIVEN three bad settings and a DATABASE_URL WHEN the bot starts THEN all three are printed at once, it exits 1, and the database is never contacted", async () => {
      const port = (server.address() as { port: number }).port;
      bot = spawnBot(
        {
          ...envExample,
          DISCORD_TOKEN: "startup-test-token",
          DATABASE_URL: `postgresql://bot@127.0.0.1:${port}/bot`,
          HTTP_PORT: "http",
          LOG_LEVEL: "loud",
          MARKET_BASE_URL: "https://market.example/api/v1",
        },
        workDir,
      );
      const exit = await withDeadline(bot.exited, 30_000, "the process to exit");
      const output = bot.output();

      expect(exit, output).toEqual({ code: 1, signal: null });
      expect(output).toContain("Configuration is invalid");
      expect(output).toMatch(/HTTP_PORT: /);
      expect(output).toMatch(/LOG_LEVEL: /);
      expect(output).toMatch(/MARKET_API_KEY: required with MARKET_BASE_URL/);
      expect(output, "no stack trace for a configuration problem").not.toMatch(/\n\s+at /);
      expect(connections).toBe(0);
    });
  });
});

// SHARD_COUNT: the ShardingManager runs one bot process per shard; one of them leads the feed; SIGTERM stops them all.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../src/playground/discord/gateway.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble } from "../support/discord.ts";
import { eventually, health, scrape, spawnBot, valueOf, type BotProcess } from "../ops/support.ts";

/** A port P with P+1 and P+2 free too (the manager and two shards). */
async function freePortRun(count: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    let free = true;
    for (let i = 0; i < count && free; i++) free = await tryListen(base + i);
    if (free) return base;
  }
  throw new Error("no run of free ports found");
}

describe("SHARD_COUNT=2", () => {
  let double: DiscordDouble;
  let sandbox: Sandbox;
  let db: TestDatabase;
  let workDir: string;
  let manager: BotProcess | undefined;
  const events: GatewayEvent[] = [];

  beforeAll(async () => {
    double = await startDiscordDouble();
    double.on("gateway", (e) => events.push(e));
    sandbox = await startSandbox({ rateLimit: false });
    db = await freshDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), "bot-shards-"));
  });

  afterAll(async () => {
    await manager?.kill();
    await double?.close();
    await sandbox?.close();
    await db?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("GIVEN two shards WHEN started THEN each identifies its shard, the manager's /healthz is ok, one shard leads the feed, and SIGTERM stops all with exit 0", async () => {
    const port = await freePortRun(3);
    manager = spawnBot(
      {
        DISCORD_TOKEN: "shard-test-token",
        DISCORD_API_URL: double.apiUrl,
        MARKET_BASE_URL: sandbox.baseUrl,
        MARKET_API_KEY: sandbox.operatorKey,
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        DATA_DIR: workDir,
        HTTP_PORT: String(port),
        SHARD_COUNT: "2",
        LOG_LEVEL: "info",
        NODE_ENV: "test",
      },
      workDir,
    );
    await manager.waitForLog(
      (l) => l.msg === "the bot is running in shards",
      120_000,
      "both shards to be ready",
    );

    const identified = events.filter((e) => e.type === "identify").map((e) => e.shardId);
    expect(new Set(identified)).toEqual(new Set([0, 1]));
    const managerHealth = await health(`http://127.0.0.1:${port}`);
    expect(managerHealth.status).toBe(200);
    expect(managerHealth.body.checks.shards?.ready).toEqual([0, 1]);

    // Each shard serves its own endpoint on HTTP_PORT + 1 + id; exactly one leads the feed.
    const shardUrls = [`http://127.0.0.1:${port + 1}`, `http://127.0.0.1:${port + 2}`];
    for (const url of shardUrls) {
      await eventually(async () => (await health(url)).status === 200, 20_000, `${url}/healthz 200`);
    }
    const leaders = await eventually(
      async () => {
        const values = await Promise.all(
          shardUrls.map(async (u) => valueOf(await scrape(u), "feed_leader") ?? 0),
        );
        const sum = values.reduce((a, b) => a + b, 0);
        return sum === 1 ? values : undefined;
      },
      20_000,
      "exactly one feed leader among the shards",
    );
    expect(leaders.filter((v) => v === 1)).toHaveLength(1);

    const closesBefore = events.length;
    manager.child.kill("SIGTERM");
    const exit = await manager.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    const closed = events.slice(closesBefore).filter((e) => e.type === "close" && e.code === 1000);
    expect(new Set(closed.map((e) => e.shardId))).toEqual(new Set([0, 1]));
  });
});

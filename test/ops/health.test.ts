// /healthz: 200 while Discord, the database and the feed are fine; 503 naming what fails when one is not.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { feedCheck, feedLagLimitMs } from "../../src/http/health.ts";
import { startHttpServer, type HttpServer } from "../../src/http/server.ts";
import { createLogger } from "../../src/log.ts";
import { createMetrics } from "../../src/metrics.ts";
import { testServerUrl } from "../support/db.ts";
import { startBot, type Bot } from "../support/harness.ts";
import { get, health, healthTurns } from "./support.ts";

async function setDatabaseReachable(name: string, reachable: boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: testServerUrl() });
  admin.on("error", () => undefined);
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} WITH ALLOW_CONNECTIONS ${reachable}`);
    if (!reachable) {
      // Existing sessions too: the bot's pool must find the database gone, not keep old connections.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    }
  } finally {
    await admin.end();
  }
}

describe("GET /healthz on a running bot", () => {
  let bot: Bot;

  beforeAll(async () => {
    bot = await startBot();
  });

  afterAll(async () => {
    await setDatabaseReachable(bot.db.name, true).catch(() => undefined);
    await bot?.stop();
  });

  it("GIVEN the gateway is connected and the database answers WHEN probed THEN 200 with every check ok", async () => {
    const { status, body } = await health(bot.app.http.url);

    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(Object.keys(body.checks).sort()).toEqual(["database", "discord", "feed", "market"]);
    expect(body.checks.market).toEqual({ ok: true });
    expect(body.checks.discord?.ok).toBe(true);
    expect(body.checks.database?.ok).toBe(true);
    expect(body.checks.feed?.ok).toBe(true);
  });

  it("GIVEN HTTP_PORT=0 WHEN the app starts THEN it listens on a real port it exposes", () => {
    expect(bot.app.http.port).toBeGreaterThan(0);
    expect(bot.app.http.url).toBe(`http://127.0.0.1:${bot.app.http.port}`);
  });

  it("GIVEN the database refuses connections WHEN probed THEN 503 naming the database; WHEN it is back THEN 200", async () => {
    await setDatabaseReachable(bot.db.name, false);
    const down = await healthTurns(bot.app.http.url, 503, "/healthz to fail");
    expect(down.body.status).toBe("fail");
    expect(down.body.checks.database?.ok).toBe(false);
    expect(down.body.checks.database?.detail).toMatch(/^database unreachable/);
    expect(down.body.checks.discord?.ok).toBe(true);

    await setDatabaseReachable(bot.db.name, true);
    const up = await healthTurns(bot.app.http.url, 200, "/healthz to recover");
    expect(up.body.checks.database?.ok).toBe(true);
  });

  it("GIVEN any other path or method WHEN requested THEN 404 or 405", async () => {
    expect((await get(`${bot.app.http.url}/`)).status).toBe(404);
    expect((await get(`${bot.app.http.url}/healthz/extra`)).status).toBe(404);
    const post = await get(`${bot.app.http.url}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
  });
});

describe("GET /healthz when Discord is gone", () => {
  let bot: Bot;

  beforeAll(async () => {
    bot = await startBot();
  });

  afterAll(async () => {
    await bot?.stop();
  });

  it("GIVEN the Discord gateway goes away WHEN probed THEN 503 naming discord while the database stays ok", async () => {
    expect((await health(bot.app.http.url)).status).toBe(200);

    await bot.double.close();

    const down = await healthTurns(bot.app.http.url, 503, "/healthz to fail");
    expect(down.body.checks.discord?.ok).toBe(false);
    expect(down.body.checks.database?.ok).toBe(true);
  });
});

describe("the feed check", () => {
  let server: HttpServer;
  let clock = 0;
  const metrics = createMetrics({
    logger: createLogger({ level: "silent" }),
    defaultMetrics: false,
    now: () => clock,
  });
  const limitMs = feedLagLimitMs(2_000);

  beforeAll(async () => {
    server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      logger: createLogger({ level: "silent" }),
      metrics,
      checks: { feed: feedCheck(() => metrics.feedHealth(), limitMs) },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("GIVEN this replica leads WHEN its feed has not succeeded for longer than the limit THEN 503; WHEN a cycle succeeds THEN 200", async () => {
    clock = 1_000_000;
    metrics.feedLeadership(true);
    metrics.feedCycle({ ok: true });
    expect((await health(server.url)).status).toBe(200);

    clock += limitMs + 1;
    metrics.feedCycle({ ok: false });
    const stale = await health(server.url);
    expect(stale.status).toBe(503);
    expect(stale.body.checks.feed?.ok).toBe(false);
    expect(stale.body.checks.feed?.role).toBe("leader");

    metrics.feedCycle({ ok: true });
    expect((await health(server.url)).status).toBe(200);
  });

  it("GIVEN another replica holds the leadership WHEN this one's feed is idle THEN the feed check is ok", async () => {
    metrics.feedLeadership(true);
    clock += limitMs * 3;
    expect((await health(server.url)).status).toBe(503);

    metrics.feedLeadership(false);
    const follower = await health(server.url);
    expect(follower.status).toBe(200);
    expect(follower.body.checks.feed?.role).toBe("follower");
  });
});

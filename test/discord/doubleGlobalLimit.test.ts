// The local Discord's global limit: a bot that ignores it is refused as Discord refuses it, and
// discord.js's own limiter keeps under it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "discord.js";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { createDiscordClient } from "../../src/discord/client.ts";
import { createLogger } from "../../src/log.ts";
import {
  connectClient,
  DISCORD_GLOBAL_LIMIT,
  startDiscordDouble,
  type DiscordDouble,
} from "../support/discord.ts";

let double: DiscordDouble;
let client: Client<true>;

beforeAll(async () => {
  double = await startDiscordDouble();
  client = await connectClient(double);
});

afterEach(() => {
  double.globalLimit = DISCORD_GLOBAL_LIMIT;
});

afterAll(async () => {
  await client?.destroy();
  await double?.close();
});

const rawGet = (path: string) =>
  fetch(`${double.apiUrl}/v10${path}`, { headers: { authorization: "Bot test-token" } });

describe("the double's global rate limit", () => {
  it("GIVEN the default double THEN it enforces Discord's 50 requests per second", () => {
    expect(double.globalLimit).toEqual({ perSecond: 50 });
  });

  it("GIVEN a sender that ignores the global limit WHEN it sends past it within a second THEN it gets a 429 with global true, X-RateLimit-Global and scope global", async () => {
    double.globalLimit = { perSecond: 2 };
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await rawGet("/users/@me");
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.arrayBuffer();
    }

    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(refused?.headers.get("x-ratelimit-global")).toBe("true");
    expect(refused?.headers.get("x-ratelimit-scope")).toBe("global");
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused?.headers.get("retry-after"))).toBeLessThanOrEqual(1);
    expect(refused?.headers.has("x-ratelimit-bucket")).toBe(false);
    const body = (await refused?.json()) as { global: boolean; retry_after: number; message: string };
    expect(body).toMatchObject({ global: true, message: "You are being rate limited." });
    expect(body.retry_after).toBeGreaterThan(0);
  });

  it("GIVEN a spent global window WHEN an interaction callback or webhook arrives THEN it is not counted, as on Discord", async () => {
    double.globalLimit = { perSecond: 1 };
    expect((await rawGet("/users/@me")).status).toBe(200);
    expect((await rawGet("/users/@me")).status).toBe(429);

    const unknownWebhook = await fetch(
      `${double.apiUrl}/v10/webhooks/${double.applicationId}/no-such-token`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "x" }),
      },
    );

    expect(unknownWebhook.status).toBe(404);
  });

  it("GIVEN the bot's client (discord.js with the bot's pacer) WHEN it makes 120 requests as fast as it can THEN no second sees more than the limit: none is refused or retried", async () => {
    const bot = createDiscordClient(
      loadConfig({ DISCORD_API_URL: double.apiUrl }, "/tmp"),
      createLogger({ level: "silent" }),
    );
    bot.rest.setToken("test-token");
    try {
      const from = double.requests.length;
      await Promise.all(
        Array.from({ length: 120 }, (_, i) => bot.rest.get(i % 2 === 0 ? "/users/@me" : "/gateway/bot")),
      );
      const made = double.requests.slice(from);

      expect(made).toHaveLength(120);
      expect(made.filter((r) => r.status !== 200)).toEqual([]);
    } finally {
      void bot.destroy();
    }
  });

  it("GIVEN a sender that keeps to the limit in one-second windows of its own WHEN two bursts straddle its window edge THEN one second as Discord counts it sees more: the double refuses", async () => {
    double.globalLimit = { perSecond: 10 };
    const from = double.requests.length;
    // Two bursts of the limit 600 ms apart: each fits a one-second window of its own, not one
    // second as the server counts it.
    await Promise.all(Array.from({ length: 10 }, () => rawGet("/users/@me").then((r) => r.arrayBuffer())));
    await new Promise((r) => setTimeout(r, 600));
    await Promise.all(Array.from({ length: 10 }, () => rawGet("/users/@me").then((r) => r.arrayBuffer())));
    const refused = double.requests.slice(from).filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
  });
});

describe("the bot's share of the global limit", () => {
  it("GIVEN DISCORD_REQUESTS_PER_SECOND WHEN the client is built THEN discord.js's REST manager keeps that many per second; unset, Discord's 50; over 50, refused", () => {
    const logger = createLogger({ level: "silent" });
    const share = createDiscordClient(loadConfig({ DISCORD_REQUESTS_PER_SECOND: "25" }, "/tmp"), logger);
    const whole = createDiscordClient(loadConfig({}, "/tmp"), logger);
    try {
      expect(share.rest.options.globalRequestsPerSecond).toBe(25);
      expect(whole.rest.options.globalRequestsPerSecond).toBe(50);
    } finally {
      void share.destroy();
      void whole.destroy();
    }
    expect(() => loadConfig({ DISCORD_REQUESTS_PER_SECOND: "60" }, "/tmp")).toThrow(ConfigError);
  });
});

// /metrics: the Prometheus exposition of a running bot, counting what the bot really did.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toOutboxPayload } from "../../src/outbox/payload.ts";
import { enqueueMessage } from "../../src/db/repos/outbox.ts";
import { ensureUser } from "../../src/db/repos/users.ts";
import { textOf } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";
import { eventually, get, scrape, valueOf } from "./support.ts";

let bot: Bot;

beforeAll(async () => {
  bot = await startBot();
});

afterAll(async () => {
  await bot?.stop();
});

const METRIC_NAMES = [
  "alerts_sent_total",
  "alert_latency_seconds",
  "market_calls_total",
  "market_call_duration_seconds",
  "market_rate_limit_wait_seconds_total",
  "outbox_depth",
  "outbox_oldest_pending_seconds",
  "interactions_total",
  "interaction_ack_seconds",
  "feed_lag_seconds",
  "feed_leader",
  "feed_cycles_total",
  "discord_gateway_up",
  "feed_listings_total",
  "feed_matches_total",
  "alerts_queued_total",
  "alert_send_failures_total",
  "database_up",
  "watch_rules",
  "users",
  "automatic_actions_24h",
  "spend_committed_24h_dollars",
  // Default process metrics.
  "process_cpu_user_seconds_total",
  "process_resident_memory_bytes",
  "nodejs_eventloop_lag_seconds",
  // A replica restarting in a loop is seen in its changes.
  "process_start_time_seconds",
];

describe("GET /metrics", () => {
  it("GIVEN a running bot WHEN scraped THEN the Prometheus text declares every metric of docs/operations.md", async () => {
    const answer = await get(`${bot.app.http.url}/metrics`);

    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain("text/plain");
    const declared = [...answer.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    for (const name of METRIC_NAMES) expect(declared, name).toContain(name);
  });

  it("GIVEN the gateway is connected WHEN scraped THEN discord_gateway_up is 1", async () => {
    expect(valueOf(await scrape(bot.app.http.url), "discord_gateway_up")).toBe(1);
  });

  it("GIVEN the bot's database answers WHEN scraped THEN database_up is 1", async () => {
    expect(valueOf(await scrape(bot.app.http.url), "database_up")).toBe(1);
  });

  it("GIVEN a /help and a listing lookup WHEN scraped THEN the interaction, its acknowledgement time and the market call are counted", async () => {
    const listing = bot.sandbox.control.createListing({ price: 1_500 });
    const before = await scrape(bot.app.http.url);
    const count = (samples: typeof before, name: string, labels: Record<string, string>) =>
      valueOf(samples, name, labels) ?? 0;

    const help = bot.double.slash(bot.users.alice, "help");
    await help.finalMessage();
    await bot.app.market.forKey(bot.sandbox.operatorKey).getListing(listing.id);

    const after = await eventually(
      async () => {
        const s = await scrape(bot.app.http.url);
        const done =
          count(s, "interactions_total", { kind: "command", outcome: "ok" }) >
          count(before, "interactions_total", { kind: "command", outcome: "ok" });
        return done ? s : undefined;
      },
      5_000,
      "the interaction to be counted",
    );
    const getListing = { endpoint: "GET /listings/{listing_id}", status: "200" };
    expect(
      count(after, "market_calls_total", getListing) - count(before, "market_calls_total", getListing),
    ).toBe(1);
    expect(
      count(after, "market_call_duration_seconds_count", { endpoint: "GET /listings/{listing_id}" }) -
        count(before, "market_call_duration_seconds_count", { endpoint: "GET /listings/{listing_id}" }),
    ).toBe(1);
    expect(
      count(after, "interaction_ack_seconds_count", { kind: "command" }) -
        count(before, "interaction_ack_seconds_count", { kind: "command" }),
    ).toBe(1);
    // Answered within Discord's 3 s: the observation landed in the 3 s bucket.
    expect(
      count(after, "interaction_ack_seconds_bucket", { kind: "command", le: "3" }) -
        count(before, "interaction_ack_seconds_bucket", { kind: "command", le: "3" }),
    ).toBe(1);
  });

  it("GIVEN alerts queued for a user WHEN delivery sends them THEN alerts_sent_total counts them by kind and alert_latency_seconds observes them", async () => {
    const alice = bot.users.alice;
    const user = await ensureUser(bot.db.prisma, alice.id);
    const listedAt = new Date(Date.now() - 2_000);
    await enqueueMessage(bot.db.prisma, {
      userId: user.id,
      destination: "dm",
      payload: toOutboxPayload({ kind: "key_revoked" }),
    });
    await enqueueMessage(bot.db.prisma, {
      userId: user.id,
      destination: "dm",
      payload: toOutboxPayload({
        kind: "listing",
        ruleId: "1",
        ruleName: "metrics test",
        ruleSummary: "any item",
        listingId: "9000000001",
        listingType: "buy_now",
        itemName: "Metrics Test Item",
        priceCents: 1_000,
        stickers: [],
        keychains: [],
        listedAt: listedAt.toISOString(),
      }),
    });

    const samples = await eventually(
      async () => {
        const s = await scrape(bot.app.http.url);
        return valueOf(s, "alerts_sent_total", { kind: "listing" }) === 1 ? s : undefined;
      },
      10_000,
      "the listing alert to be delivered",
    );
    expect(valueOf(samples, "alerts_sent_total", { kind: "key_revoked" })).toBe(1);
    expect(valueOf(samples, "alert_latency_seconds_count", { since: "queued" })).toBe(2);
    expect(valueOf(samples, "alert_latency_seconds_count", { since: "listed" })).toBe(1);
    // Measured from the listing's creation two seconds before it was queued.
    expect(valueOf(samples, "alert_latency_seconds_sum", { since: "listed" })).toBeGreaterThanOrEqual(2);
    expect(bot.double.dmsTo(alice.id).some((m) => textOf(m).includes("Metrics Test Item"))).toBe(true);
  });

  it("GIVEN an undeliverable message in the outbox WHEN scraped THEN outbox_depth reads it from the database", async () => {
    const user = await ensureUser(bot.db.prisma, bot.users.bob.id);
    const before = valueOf(await scrape(bot.app.http.url), "outbox_depth", { status: "failed" });
    await bot.db.prisma.outbox.create({
      data: { userId: user.id, destination: "dm", payload: {}, status: "failed" },
    });

    // Scrapes within a second share one query: wait for a fresh read instead of sleeping.
    const failed = await eventually(
      async () => {
        const v = valueOf(await scrape(bot.app.http.url), "outbox_depth", { status: "failed" });
        return v === (before ?? 0) + 1 ? v : undefined;
      },
      5_000,
      "outbox_depth to count the failed row",
    );
    expect(failed).toBe((before ?? 0) + 1);
    expect(
      valueOf(await scrape(bot.app.http.url), "outbox_depth", { status: "pending" }),
    ).toBeGreaterThanOrEqual(0);
  });

  it("GIVEN the alert engine won the feed leadership WHEN scraped THEN feed_leader is 1 and feed cycles are counted", async () => {
    const samples = await eventually(
      async () => {
        const s = await scrape(bot.app.http.url);
        return (valueOf(s, "feed_cycles_total", { result: "ok" }) ?? 0) > 0 ? s : undefined;
      },
      15_000,
      "a successful feed cycle",
    );
    expect(valueOf(samples, "feed_leader")).toBe(1);
    expect(valueOf(samples, "feed_lag_seconds")).toBeLessThan(60);
    const feedCalls = valueOf(samples, "market_calls_total", { endpoint: "GET /listings", status: "200" });
    expect(feedCalls).toBeGreaterThan(0);
  });

  it("GIVEN a queued DM that cannot be sent WHEN delivery gives it up THEN alert_send_failures_total counts it as a failed DM", async () => {
    const user = await ensureUser(bot.db.prisma, bot.users.bob.id);
    const before = await scrape(bot.app.http.url);
    const count = (s: typeof before) =>
      valueOf(s, "alert_send_failures_total", { target: "dm", result: "failed" }) ?? 0;
    // A payload no version of the bot can read: delivery gives it up at once.
    await bot.db.prisma.outbox.create({ data: { userId: user.id, destination: "dm", payload: {} } });
    const after = await eventually(
      async () => {
        const s = await scrape(bot.app.http.url);
        return count(s) > count(before) ? s : undefined;
      },
      10_000,
      "the unreadable DM to be given up",
    );
    expect(count(after) - count(before)).toBe(1);
  });
});

// Marketplace faults (item 1): 5xx storms, 429 with Retry-After, answers slower than the client's
// timeout, malformed JSON and a route that hangs, on the feed (GET /listings) and on a per-user
// route (GET /me/trades). The pollers keep their schedule without hammering, recover when the fault
// clears, and every alert that fell due during the outage reaches Discord exactly once.
//
// The real app (discord.js, Discord double, Postgres, sandbox over HTTP) runs the real alert engine,
// built here instead of by the app only to give its market client a 0.6 s timeout (the app's is
// 10 s, three tries a call): a storm of timeouts then takes seconds, not minutes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertEngine, type AlertMetrics } from "../../src/background/engine.ts";
import type { ServiceFactory } from "../../src/background/context.ts";
import { createDiscordAlertSender } from "../../src/discord/outbound/alertSender.ts";
import { createMarketClient, type MarketCallEvent } from "../../src/market/client.ts";
import type { FaultSpec } from "../../src/sandbox/faults.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { startBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { until } from "./support.ts";
import {
  alertDms,
  countBySubject,
  deliveryCountsFirst,
  FAULT_USES,
  faultUses,
  recordDelivery,
  tallyDelivery,
  uniqueItem,
  watchItem,
} from "./support-faults.ts";

const tally = deliveryCountsFirst(
  reliabilityTally("faults-market", "Marketplace faults (item 1)", import.meta.url),
);

const POLL_MS = 400;
const TRADE_POLL_MS = 600;
const CLIENT_TIMEOUT_MS = 600;
/** The market client's tries per read (its default): the most one failed call may send. */
const CLIENT_ATTEMPTS = 3;
/** A loaded 2-core machine delays timers and passes; generous, the checks are about order of magnitude. */
const SLACK_MS = 8_000;
const STORM_DEADLINE_MS = 90_000;
const RECOVERY_DEADLINE_MS = 90_000;

interface Storm {
  readonly name: string;
  readonly label: string;
  readonly fault: Omit<FaultSpec, "path" | "method" | "times">;
  /** Most requests one failed cycle may send: the client's tries, or one when it does not retry. */
  readonly perCycle: number;
  /** The service's Retry-After: no two requests closer than this, no cycle sooner after a refusal. */
  readonly retryAfterMs?: number;
  /** Failed cycles to sit through before the fault clears. */
  readonly cycles: number;
}

const STORMS: readonly Storm[] = [
  {
    name: "a 503 storm",
    label: "503",
    fault: { kind: "status", status: 503 },
    perCycle: CLIENT_ATTEMPTS,
    cycles: 3,
  },
  {
    name: "429 with Retry-After 2 s",
    label: "429",
    fault: { kind: "rate_limit", retryAfterSeconds: 2 },
    perCycle: CLIENT_ATTEMPTS,
    retryAfterMs: 2_000,
    cycles: 2,
  },
  {
    name: "answers 2.5 s late (client timeout 0.6 s)",
    label: "timeout",
    fault: { kind: "latency", ms: 2_500 },
    perCycle: CLIENT_ATTEMPTS,
    cycles: 3,
  },
  // A body that does not parse is not retried within the call: one request per cycle.
  { name: "malformed JSON", label: "malformed", fault: { kind: "malformed" }, perCycle: 1, cycles: 3 },
  { name: "a hanging route", label: "hang", fault: { kind: "hang" }, perCycle: CLIENT_ATTEMPTS, cycles: 3 },
];

interface FeedCycle {
  readonly start: number;
  end?: number;
  ok?: boolean;
}
interface Call {
  readonly endpoint: string;
  readonly status: MarketCallEvent["status"];
  /** When the request left (the event arrives with the answer). */
  readonly sentAt: number;
}

const feedCycles: FeedCycle[] = [];
const calls: Call[] = [];
let alertsSent = 0;

const metrics: AlertMetrics = {
  alertSent() {
    alertsSent += 1;
  },
  feedLeadership(leading) {
    if (leading) feedCycles.push({ start: Date.now() });
  },
  feedCycle({ ok }) {
    const cycle = feedCycles.at(-1);
    if (cycle !== undefined && cycle.end === undefined) Object.assign(cycle, { end: Date.now(), ok });
  },
};

/** The app's alert engine, except for the market client's timeout (see the file comment). */
function alertEngineWithShortTimeout(marketBaseUrl: string): ServiceFactory {
  return (ctx) => {
    const market = createMarketClient({
      baseUrl: marketBaseUrl,
      logger: ctx.logger,
      timeoutMs: CLIENT_TIMEOUT_MS,
      metrics: {
        onCall: (e) =>
          calls.push({ endpoint: e.endpoint, status: e.status, sentAt: Date.now() - e.durationMs }),
      },
    });
    const engine = createAlertEngine({
      config: {
        POLL_INTERVAL_MS: POLL_MS,
        TRADE_POLL_INTERVAL_MS: TRADE_POLL_MS,
        BID_POLL_INTERVAL_MS: 60_000,
        // The operator key the app itself reads with (the sandbox refuses keyless reads).
        MARKET_API_KEY: ctx.config.MARKET_API_KEY,
      },
      prisma: ctx.database.prisma,
      databaseUrl: ctx.database.url,
      market,
      sender: createDiscordAlertSender(ctx.client, ctx.logger),
      openKey: (sealed, userId) => ctx.vault.decrypt(sealed, userId),
      logger: ctx.logger,
      now: ctx.deps.now,
      metrics,
      deliveryIntervalMs: 500,
    });
    return {
      name: "alerts",
      start: () => engine.start(),
      async stop() {
        await engine.stop();
        await market.close();
      },
    };
  };
}

let sandbox: Sandbox;
let bot: Bot;
let alice: BotUser;
let item: string;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
  bot = await startBot({
    reuse: { sandbox },
    backgroundServices: false,
    overrides: { services: [alertEngineWithShortTimeout(sandbox.baseUrl)] },
  });
  alice = bot.users.alice;
  await bot.link(alice);
  item = uniqueItem("storm");
  await watchItem(bot, alice, "storm deals", item);
  // Past the first run (it only sets the mark) and with the rule in the index.
  const ruleAddedAt = Date.now();
  await until(
    () => Promise.resolve(feedCycles.some((c) => c.start > ruleAddedAt && c.ok === true)),
    "a healthy feed cycle after the rule was added",
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await bot?.stop();
  await sandbox?.close();
});

const matching = () => bot.sandbox.control.createListing({ market_hash_name: item, price: 1_500 }).id;
const unrelated = () =>
  bot.sandbox.control.createListing({ market_hash_name: uniqueItem("unwatched"), price: 1_500 }).id;
const sale = () => bot.sandbox.control.createSaleForSeller(alice.demo.platformId).id;

const failedFeedCyclesSince = (t: number) =>
  feedCycles.filter((c) => c.start >= t && c.end !== undefined && c.ok === false).length;

/** "trade cycle" lines of cycles in which alice's poll failed, ended after `t`. */
const failedTradeCyclesSince = (t: number) =>
  bot.logs.filter(
    (l) =>
      l.msg === "trade cycle" &&
      typeof l.failed === "number" &&
      l.failed > 0 &&
      typeof l.time === "string" &&
      Date.parse(l.time) >= t,
  ).length;

/** Exponential backoff ceiling of the feed after its n-th failure in a row (src/feed/feedPoller.ts). */
const feedBackoffCeiling = (n: number, retryAfterMs = 0) =>
  Math.max(retryAfterMs, POLL_MS + Math.min(60_000, POLL_MS * 2 ** (n - 1)));

/** Pauses between consecutive requests to `endpoint` sent in [from, to). */
function requestSpacing(endpoint: string, from: number, to: number): number[] {
  const sent = calls
    .filter((c) => c.endpoint === endpoint && c.sentAt >= from && c.sentAt < to)
    .map((c) => c.sentAt)
    .sort((a, b) => a - b);
  return sent.slice(1).map((t, i) => t - (sent[i] as number));
}

async function outboxSettled(): Promise<boolean> {
  return (await bot.db.prisma.outbox.count({ where: { status: { in: ["pending", "sending"] } } })) === 0;
}

describe("the feed (GET /listings) under marketplace faults", () => {
  for (const storm of STORMS) {
    it(
      `GIVEN ${storm.name} on the feed WHEN matching listings appear during it THEN cycles continue at a backed-off pace without hammering, the feed recovers once it clears, and each listing is alerted exactly once`,
      async () => {
        const stormStart = Date.now();
        const { id } = bot.sandbox.control.injectFault({
          method: "GET",
          path: "/listings",
          ...storm.fault,
          times: FAULT_USES,
        });
        const due = [matching(), matching()];
        const ignored = unrelated();
        await until(
          () => Promise.resolve(failedFeedCyclesSince(stormStart) >= 1),
          "the first failed feed cycle",
          STORM_DEADLINE_MS,
        );
        due.push(matching());
        await until(
          () => Promise.resolve(failedFeedCyclesSince(stormStart) >= storm.cycles),
          `${storm.cycles} failed feed cycles`,
          STORM_DEADLINE_MS,
        );
        // Uses first, cycles second: every request counted belongs to a cycle already started.
        const used = await faultUses(bot.sandbox, id);
        const stormEnd = Date.now();
        const inStorm = feedCycles.filter((c) => c.start <= stormEnd && (c.end ?? Infinity) >= stormStart);
        bot.sandbox.control.clearFaults();
        const clearedAt = Date.now();

        // No hammering: the client's tries per cycle at most, and cycles no faster than the nominal pace.
        expect(used).toBeGreaterThanOrEqual(storm.cycles);
        expect(used).toBeLessThanOrEqual(storm.perCycle * inStorm.length);
        expect(inStorm.length).toBeLessThanOrEqual(1 + Math.floor((stormEnd - stormStart) / POLL_MS));
        // Backing off, and still on schedule: each pause after a failure lies between the nominal
        // interval (or Retry-After) and the backoff ceiling for that many failures in a row.
        const failed = inStorm.filter((c) => c.ok === false);
        let streak = 0;
        for (let i = 0; i + 1 < inStorm.length; i++) {
          const cycle = inStorm[i] as FeedCycle;
          const next = inStorm[i + 1] as FeedCycle;
          if (cycle.ok !== false || cycle.end === undefined) continue;
          streak += 1;
          const pause = next.start - cycle.end;
          expect(pause).toBeGreaterThanOrEqual(Math.max(POLL_MS, storm.retryAfterMs ?? 0) - 15);
          expect(pause).toBeLessThanOrEqual(feedBackoffCeiling(streak, storm.retryAfterMs) + SLACK_MS);
        }
        if (storm.retryAfterMs !== undefined) {
          for (const gap of requestSpacing("GET /listings", stormStart, stormEnd)) {
            expect(gap).toBeGreaterThanOrEqual(storm.retryAfterMs - 50);
          }
        }

        await until(
          () => Promise.resolve(feedCycles.some((c) => c.start >= clearedAt && c.ok === true)),
          "a healthy feed cycle after the fault cleared",
          RECOVERY_DEADLINE_MS,
        );
        const recovered = feedCycles.find((c) => c.start >= clearedAt && c.ok === true) as FeedCycle;
        await until(
          async () => {
            const counts = countBySubject(alertDms(bot.double, alice.id), "Listing", due);
            return [...counts.values()].every((n) => n >= 1) && (await outboxSettled());
          },
          "an alert for every listing that appeared during the storm",
          RECOVERY_DEADLINE_MS,
        );
        // Two more healthy cycles and an idle outbox: a duplicate would have surfaced by now.
        const settledAt = Date.now();
        await until(
          async () =>
            feedCycles.filter((c) => c.start >= settledAt && c.ok === true).length >= 2 &&
            (await outboxSettled()),
          "two more healthy feed cycles",
          RECOVERY_DEADLINE_MS,
        );

        const delivery = tallyDelivery(countBySubject(alertDms(bot.double, alice.id), "Listing", due));
        expect(delivery.lost).toEqual([]);
        expect(delivery.duplicates).toEqual({});
        expect(countBySubject(alertDms(bot.double, alice.id), "Listing", [ignored]).get(ignored)).toBe(0);

        tally.add(`feed ${storm.label}: faulted requests`, used);
        tally.add(`feed ${storm.label}: failed cycles`, failed.length);
        tally.set(
          `feed ${storm.label}: recovery after the fault cleared (ms)`,
          (recovered.end ?? clearedAt) - clearedAt,
        );
        recordDelivery(tally, delivery);
      },
      4 * STORM_DEADLINE_MS,
    );
  }
});

describe("a per-user route (GET /me/trades) under marketplace faults", () => {
  for (const storm of STORMS) {
    it(
      `GIVEN ${storm.name} on alice's trades WHEN sales wait on her during it THEN the trade poller keeps its pace without hammering, recovers, tells her of each sale exactly once, and the feed carries on meanwhile`,
      async () => {
        const stormStart = Date.now();
        const { id } = bot.sandbox.control.injectFault({
          method: "GET",
          path: "/me/trades",
          ...storm.fault,
          times: FAULT_USES,
        });
        const due = [sale(), sale()];
        const listing = matching();
        await until(
          () => Promise.resolve(failedTradeCyclesSince(stormStart) >= 1),
          "the first failed trade cycle",
          STORM_DEADLINE_MS,
        );
        due.push(sale());
        // The feed does not share the fault: its alert arrives while the trades still fail.
        await until(
          () =>
            Promise.resolve(
              failedTradeCyclesSince(stormStart) >= storm.cycles &&
                countBySubject(alertDms(bot.double, alice.id), "Listing", [listing]).get(listing) === 1,
            ),
          `${storm.cycles} failed trade cycles and the listing alert`,
          STORM_DEADLINE_MS,
        );
        const used = await faultUses(bot.sandbox, id);
        const failedCycles = failedTradeCyclesSince(stormStart);
        const stormEnd = Date.now();
        bot.sandbox.control.clearFaults();
        expect(countBySubject(alertDms(bot.double, alice.id), "Trade", due).get(due[0] as string)).toBe(0);

        // One call per failed cycle (alice is the only linked user), plus the cycle in flight.
        expect(used).toBeGreaterThanOrEqual(storm.cycles);
        expect(used).toBeLessThanOrEqual(storm.perCycle * (failedCycles + 1));
        expect(failedCycles).toBeLessThanOrEqual(1 + Math.floor((stormEnd - stormStart) / TRADE_POLL_MS));
        if (storm.retryAfterMs !== undefined) {
          for (const gap of requestSpacing("GET /me/trades", stormStart, stormEnd)) {
            expect(gap).toBeGreaterThanOrEqual(storm.retryAfterMs - 50);
          }
        }

        await until(
          async () => {
            const counts = countBySubject(alertDms(bot.double, alice.id), "Trade", due);
            return [...counts.values()].every((n) => n >= 1) && (await outboxSettled());
          },
          "a trade alert for every sale made during the storm",
          RECOVERY_DEADLINE_MS,
        );
        // Two more trade cycles (healthy ones log nothing, so count the requests) and an idle outbox.
        const settledAt = Date.now();
        await until(
          async () =>
            calls.filter((c) => c.endpoint === "GET /me/trades" && c.sentAt >= settledAt && c.status === 200)
              .length >= 2 && (await outboxSettled()),
          "two more healthy trade polls",
          RECOVERY_DEADLINE_MS,
        );

        const delivery = tallyDelivery(countBySubject(alertDms(bot.double, alice.id), "Trade", due));
        expect(delivery.lost).toEqual([]);
        expect(delivery.duplicates).toEqual({});
        expect(countBySubject(alertDms(bot.double, alice.id), "Listing", [listing]).get(listing)).toBe(1);

        tally.add(`trades ${storm.label}: faulted requests`, used);
        tally.add(`trades ${storm.label}: failed cycles`, failedCycles);
        // The trades that fell due, and the listing alert that went out during the storm.
        recordDelivery(tally, {
          ...delivery,
          expected: delivery.expected + 1,
          delivered: delivery.delivered + 1,
        });
      },
      4 * STORM_DEADLINE_MS,
    );
  }
});

describe("the whole run", () => {
  it("GIVEN every storm above WHEN the run ends THEN no alert was given up on and none is left waiting", async () => {
    const rows = await bot.db.prisma.outbox.groupBy({ by: ["status"], _count: { _all: true } });
    const byStatus = Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
    expect(byStatus.failed ?? 0).toBe(0);
    expect((byStatus.pending ?? 0) + (byStatus.sending ?? 0)).toBe(0);
    expect(byStatus.sent ?? 0).toBe(alertsSent);
    expect(alertsSent).toBeGreaterThan(0);
    tally.set("outbox rows sent", alertsSent);
  });
});

// Database faults (item 3): the Postgres server stops mid-run and starts again. While it is down,
// deliveries and leadership checks fail and are retried; once it is back the same bot process
// reconnects on its own, and alerts for listings created before, during and after the outage
// each arrive exactly once, including one whose DM went out while the database could not record it.
// The server is this file's own (embedded binaries, temp folder, free port), never the shared one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { alertEngineOf, startBot, type Bot, type BotUser, type LogLine } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { answer, isEphemeral, textOf, until } from "./support.ts";
import {
  alertDms,
  countBySubject,
  deliveryCountsFirst,
  FAST_FEED_ENV,
  recordDelivery,
  startOwnPostgres,
  tallyDelivery,
  twoFeedCycles,
  uniqueItem,
  watchItem,
  type OwnPostgres,
} from "./support-faults.ts";

const tally = deliveryCountsFirst(
  reliabilityTally("faults-database", "Database faults (item 3)", import.meta.url),
);

/** The outbox lease (60 s, src/outbox/delivery.ts) plus room for a loaded machine. */
const LEASE_DEADLINE_MS = 150_000;
/** How long Discord makes the in-flight send wait: the database is stopped within it. */
const RETRY_AFTER_S = 10;
const SEND = /^\/channels\/\d+\/messages$/;

let server: OwnPostgres;
let bot: Bot;
let alice: BotUser;
let item: string;

const engine = () => alertEngineOf(bot);

beforeAll(async () => {
  // The bot's pool logs through this logger too: connection losses are expected here, keep them quiet.
  server = await startOwnPostgres(createLogger({ level: "error", name: "own-postgres" }));
  bot = await startBot({ reuse: { db: server.db }, env: FAST_FEED_ENV });
  expect(bot.app.config.DATABASE_URL).toBe(server.url);
  alice = bot.users.alice;
  item = uniqueItem("dbfault");
  await watchItem(bot, alice, "db deals", item);
  await twoFeedCycles(bot, "two feed cycles with the rule in place");
}, 180_000);

afterAll(async () => {
  await bot?.stop();
  await server?.destroy();
});

const listing = () => bot.sandbox.control.createListing({ market_hash_name: item, price: 2_000 }).id;
const dmCounts = (ids: readonly string[]) => countBySubject(alertDms(bot.double, alice.id), "Listing", ids);
const at = (l: LogLine) => (typeof l.time === "string" ? Date.parse(l.time) : 0);
const logsSince = (t: number, match: (l: LogLine) => boolean) =>
  bot.logs.filter((l) => at(l) >= t && match(l));
const deliveryFailures = (l: LogLine) => l.msg === "background pass failed" && l.loop === "delivery";

describe("the Postgres server restarted mid-run", () => {
  it(
    "GIVEN the server stops while an alert is being sent WHEN it starts again THEN the bot reconnects without a restart and alerts for listings created before, during and after the outage each arrive exactly once",
    async () => {
      const app = bot.app;
      const before = [listing()];
      await until(
        () => Promise.resolve(dmCounts(before).get(before[0] as string) === 1),
        "the first alert",
        60_000,
      );

      // An alert in flight when the server goes: Discord makes its send wait, the database stops
      // meanwhile, the DM then goes out and the outbox row cannot be marked sent.
      const from = bot.double.requests.length;
      bot.double.faults.add({ method: "POST", path: SEND, status: 429, retryAfter: RETRY_AFTER_S, times: 1 });
      const inFlight = listing();
      before.push(inFlight);
      await until(
        () => Promise.resolve(bot.double.requests.slice(from).some((r) => r.fault && r.status === 429)),
        "the in-flight send to be told to wait",
        60_000,
      );
      before.push(listing());
      const stoppedAt = Date.now();
      await server.stop();
      const stopMs = Date.now() - stoppedAt;
      expect(stopMs).toBeLessThan(RETRY_AFTER_S * 1000);

      // The outage: new listings, a user at the keyboard, and the bot's retries.
      const during = [listing(), listing()];
      const reply = await answer(bot.double.slash(alice, "watch list"));
      expect(isEphemeral(reply)).toBe(true);
      await until(
        () => Promise.resolve(dmCounts([inFlight]).get(inFlight) === 1),
        "the in-flight DM to go out while the database is down",
        60_000,
      );
      await until(
        () =>
          Promise.resolve(
            logsSince(stoppedAt, deliveryFailures).length >= 3 &&
              logsSince(stoppedAt, (l) => l.msg === "leader check failed; will retry").length >= 1,
          ),
        "failed delivery passes and leadership checks while the database is down",
        60_000,
      );
      expect(logsSince(stoppedAt, (l) => l.msg === "lost leadership")).not.toHaveLength(0);
      expect(engine().stats().leader).toBe(false);
      const outageMs = Date.now() - stoppedAt;
      const failedDeliveryPasses = logsSince(stoppedAt, deliveryFailures).length;
      const failedLeaderChecks = logsSince(
        stoppedAt,
        (l) => l.msg === "leader check failed; will retry",
      ).length;

      const restartedAt = Date.now();
      await server.start();
      const after = [listing()];
      const all = [...before, ...during, ...after];
      await until(
        async () =>
          [...dmCounts(all).values()].every((n) => n >= 1) &&
          (await bot.db.prisma.outbox.count({ where: { status: { not: "sent" } } })) === 0,
        "every alert sent and recorded (the in-flight one after its lease)",
        LEASE_DEADLINE_MS,
      );
      await engine().runFeedOnce();
      await engine().runDeliveryOnce();

      // The same process and app, reconnected: leadership regained, the rule still in force.
      expect(bot.app).toBe(app);
      expect(engine().stats().leader).toBe(true);
      expect(logsSince(restartedAt, (l) => l.msg === "became leader")).not.toHaveLength(0);
      expect(bot.logs.filter((l) => l.msg === "alert engine started")).toHaveLength(1);
      const delivery = tallyDelivery(dmCounts(all));
      expect(delivery.lost).toEqual([]);
      expect(delivery.duplicates).toEqual({});
      expect(await bot.db.prisma.alertLog.count({ where: { subjectId: { in: all } } })).toBe(all.length);
      // Re-sent under the same nonce after the lease: Discord handed back the first message.
      const row = await bot.db.prisma.outbox.findFirstOrThrow({
        where: { alert: { subjectId: inFlight } },
        select: { attempts: true, discordMessageId: true },
      });
      expect(row.attempts).toBe(2);
      const dm = alertDms(bot.double, alice.id).find((m) => textOf(m).includes(`Listing ${inFlight}`));
      expect(row.discordMessageId).toBe(dm?.id);
      const list = await answer(bot.double.slash(alice, "watch list"));
      expect(textOf(list)).toContain("db deals");

      tally.add("database restarts", 1);
      tally.set("outage (ms)", outageMs);
      tally.add("failed delivery passes during the outage (retried)", failedDeliveryPasses);
      tally.add("failed leadership checks during the outage (retried)", failedLeaderChecks);
      tally.add("DMs sent while the database was down, recorded after it returned", 1);
      recordDelivery(tally, delivery);
    },
    2 * LEASE_DEADLINE_MS + 120_000,
  );
});

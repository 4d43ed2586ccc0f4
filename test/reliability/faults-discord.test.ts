// Discord faults (item 2): 5xx and 429 on DM sends, closed DMs, the gateway dropped and resumed, and
// interaction tokens that expired before the bot answered. The real app with its own alert engine,
// a real discord.js client against the Discord double, the sandbox and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InteractionHandle, StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { answer, isEphemeral, textOf, until } from "./support.ts";
import {
  alertDms,
  countBySubject,
  deliveryCountsFirst,
  doubleFaultsSince,
  FAST_FEED_ENV,
  recordDelivery,
  tallyDelivery,
  twoFeedCycles,
  uniqueItem,
  watchItem,
  type DeliveryTally,
} from "./support-faults.ts";

const tally = deliveryCountsFirst(
  reliabilityTally("faults-discord", "Discord faults (item 2)", import.meta.url),
);

/** Alerts wait for a feed pass and a delivery pass, and retries for the outbox's backoff (2 s, 4 s...). */
const ALERT_DEADLINE_MS = 60_000;
/** The bot's own messages to a channel or DM: `POST /channels/{id}/messages`. */
const SEND = /^\/channels\/\d+\/messages$/;

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let item: string;

const engine = () => alertEngineOf(bot);

beforeAll(async () => {
  bot = await startBot({ env: FAST_FEED_ENV });
  ({ alice, bob } = bot.users);
  item = uniqueItem("discord");
  await watchItem(bot, alice, "alice deals", item);
  await watchItem(bot, bob, "bob deals", item);
  // Two feed cycles after the rules exist: the mark is set and the rules are in the index.
  await twoFeedCycles(bot, "two feed cycles with the rules in place");
}, 180_000);

afterAll(async () => {
  await bot?.stop();
});

const listing = () => bot.sandbox.control.createListing({ market_hash_name: item, price: 1_250 }).id;

/** Alert DMs per "<user>:<listing>" for both users: every listing matches both rules. */
function dmCounts(ids: readonly string[], users: readonly BotUser[] = [alice, bob]): Map<string, number> {
  const out = new Map<string, number>();
  for (const user of users) {
    for (const [id, n] of countBySubject(alertDms(bot.double, user.id), "Listing", ids)) {
      out.set(`${user.username}:${id}`, n);
    }
  }
  return out;
}

/** Alerts the bot posted in the guild channel (not replies to interactions), per listing. */
const channelAlerts = (ids: readonly string[]) =>
  countBySubject(
    bot.double.messagesIn(bot.double.channelId).filter((m) => m.interactionId === undefined),
    "Listing",
    ids,
  );

async function outboxSettled(): Promise<boolean> {
  return (await bot.db.prisma.outbox.count({ where: { status: { in: ["pending", "sending"] } } })) === 0;
}

/**
 * Waits until every key of `counts()` has a message and the outbox is idle, then runs one more feed
 * and delivery pass, so a duplicate would have arrived before the caller counts.
 */
async function settle(counts: () => Map<string, number>, what: string): Promise<void> {
  await until(
    async () => [...counts().values()].every((n) => n >= 1) && (await outboxSettled()),
    what,
    ALERT_DEADLINE_MS,
  );
  await engine().runFeedOnce();
  await engine().runDeliveryOnce();
}

const record = (delivery: DeliveryTally) => recordDelivery(tally, delivery);

const outboxRowsOf = (listingIds: readonly string[]) =>
  bot.db.prisma.outbox.findMany({
    where: { alert: { subjectId: { in: [...listingIds] }, kind: "listing" } },
    select: { status: true, attempts: true, destination: true, userId: true },
  });

describe("DM sends failing", () => {
  it(
    "GIVEN Discord answering 503 to sends beyond discord.js's own retries WHEN alerts are due THEN the outbox retries them and each user gets each alert exactly once",
    async () => {
      const from = bot.double.requests.length;
      // discord.js tries a 5xx four times; eight failures outlast two sends, so the outbox retries.
      bot.double.faults.add({ method: "POST", path: SEND, status: 503, times: 8 });
      const ids = [listing(), listing()];

      await settle(() => dmCounts(ids), "every alert despite the 503s");

      expect(bot.double.faults.pending).toBe(0);
      const injected = doubleFaultsSince(bot.double, from, 503);
      expect(injected).toBe(8);
      const rows = await outboxRowsOf(ids);
      expect(rows).toHaveLength(4);
      expect(rows.every((r) => r.status === "sent")).toBe(true);
      expect(Math.max(...rows.map((r) => r.attempts))).toBeGreaterThanOrEqual(2);
      const delivery = tallyDelivery(dmCounts(ids));
      expect(delivery.lost).toEqual([]);
      expect(delivery.duplicates).toEqual({});
      tally.add("Discord 503 answers injected", injected);
      record(delivery);
    },
    3 * ALERT_DEADLINE_MS,
  );

  it(
    "GIVEN Discord answering 429 with retry_after to sends WHEN alerts are due THEN the bot waits as told and each user gets each alert exactly once",
    async () => {
      const from = bot.double.requests.length;
      bot.double.faults.add({ method: "POST", path: SEND, status: 429, retryAfter: 1, times: 3 });
      const ids = [listing(), listing()];

      await settle(() => dmCounts(ids), "every alert despite the 429s");

      expect(bot.double.faults.pending).toBe(0);
      const sends = bot.double.requests.slice(from).filter((r) => r.method === "POST" && SEND.test(r.path));
      const refused = sends.filter((r) => r.fault && r.status === 429);
      expect(refused).toHaveLength(3);
      // Nothing went to that channel sooner than retry_after after a refusal (limits are per channel).
      for (const r of refused) {
        const next = sends.find((s) => s.path === r.path && s.at > r.at);
        if (next !== undefined) expect(next.at - r.at).toBeGreaterThanOrEqual(950);
      }
      const delivery = tallyDelivery(dmCounts(ids));
      expect(delivery.lost).toEqual([]);
      expect(delivery.duplicates).toEqual({});
      tally.add("Discord 429 answers injected", refused.length);
      record(delivery);
    },
    3 * ALERT_DEADLINE_MS,
  );
});

describe("closed DMs", () => {
  it(
    "GIVEN alice (a fallback channel on file) and bob (none) closed their DMs WHEN a listing alert is due THEN alice's goes to the channel once, bob's is recorded undelivered and /alerts recent tells him; once reopened the next alert is a DM",
    async () => {
      // A fallback channel on file while listing alerts still go to DMs. /account settings
      // destination:channel now sends listing alerts to the channel outright, so this state comes
      // from the database: delivery falls back to it when a DM bounces.
      await bot.db.prisma.user.update({
        where: { discordId: alice.id },
        data: { defaultDestination: "dm", defaultChannelId: bot.double.channelId },
      });
      bot.double.closeDms(alice.id);
      bot.double.closeDms(bob.id);
      const closed = listing();
      try {
        await settle(() => channelAlerts([closed]), "alice's alert in her fallback channel");
      } finally {
        bot.double.openDms(alice.id);
        bot.double.openDms(bob.id);
        await bot.db.prisma.user.update({ where: { discordId: alice.id }, data: { defaultChannelId: null } });
      }

      expect(channelAlerts([closed]).get(closed)).toBe(1);
      expect(dmCounts([closed]).get(`${alice.username}:${closed}`)).toBe(0);
      expect(dmCounts([closed]).get(`${bob.username}:${closed}`)).toBe(0);
      const users = await bot.db.prisma.user.findMany({
        where: { discordId: { in: [alice.id, bob.id] } },
        select: { id: true, discordId: true, dmClosedAt: true },
      });
      expect(users.every((u) => u.dmClosedAt instanceof Date)).toBe(true);
      const bobId = users.find((u) => u.discordId === bob.id)?.id;
      const rows = await outboxRowsOf([closed]);
      expect(rows.find((r) => r.userId === bobId)?.status).toBe("failed");
      expect(rows.find((r) => r.userId !== bobId)).toMatchObject({ status: "sent", destination: "channel" });

      // Next time bob looks, he is told why he got nothing.
      const recent = await answer(bot.double.slash(bob, "alerts recent"));
      expect(isEphemeral(recent)).toBe(true);
      expect(textOf(recent)).toContain(closed);
      expect(textOf(recent)).toContain("failed");
      expect(textOf(recent)).toContain("DMs were closed");

      // Reopened: the next alert is a DM again, and the closed mark is cleared.
      const reopened = listing();
      await settle(() => dmCounts([reopened]), "the alert after the DMs reopened");
      const after = tallyDelivery(dmCounts([reopened]));
      expect(after.lost).toEqual([]);
      expect(after.duplicates).toEqual({});
      expect(channelAlerts([reopened]).get(reopened)).toBe(0);
      const cleared = await bot.db.prisma.user.findMany({
        where: { discordId: { in: [alice.id, bob.id] } },
        select: { dmClosedAt: true },
      });
      expect(cleared.every((u) => u.dmClosedAt === null)).toBe(true);
      const told = await answer(bot.double.slash(bob, "alerts recent"));
      expect(textOf(told)).not.toContain("DMs were closed");

      tally.add("closed-DM bounces", 2);
      tally.add("alerts redirected to a fallback channel", 1);
      tally.add("alerts recorded undeliverable and shown in /alerts recent", 1);
      // Due to arrive: alice's alert in the channel and both DMs after reopening (bob's first alert
      // had nowhere to go by design: recorded, and he is told).
      record(tallyDelivery(new Map([...channelAlerts([closed]), ...dmCounts([reopened])])));
    },
    3 * ALERT_DEADLINE_MS,
  );
});

describe("the gateway connection", () => {
  it(
    "GIVEN the gateway dropped three times while alerts flow WHEN it resumes THEN interactions sent while it was down and after are answered once each, and every alert arrives exactly once",
    async () => {
      // Discord gives an interaction 3 s; a resume on a loaded test machine can take longer than
      // that, and a late answer is the expired-token case tested below, not this one.
      const ttl = bot.double.interactionTokenTtlMs;
      bot.double.interactionTokenTtlMs = 30_000;
      const ids: string[] = [];
      const handles: InteractionHandle[] = [];
      try {
        for (let round = 0; round < 3; round++) {
          ids.push(listing());
          const resumed = bot.double.dropGateway(30_000);
          // The socket is down now: the double keeps this dispatch and replays it on RESUME.
          expect(bot.double.isBotConnected()).toBe(false);
          handles.push(bot.double.slash(round % 2 === 0 ? alice : bob, "alerts recent"));
          ids.push(listing());
          await resumed;
          handles.push(bot.double.slash(round % 2 === 0 ? bob : alice, "help"));
          for (const h of handles) await answer(h);
        }
      } finally {
        bot.double.interactionTokenTtlMs = ttl;
      }
      await settle(() => dmCounts(ids), "every alert across the drops");

      for (const h of handles) {
        expect(h.record.responses).toHaveLength(1);
        expect(h.record.rejectedCallbacks).toEqual([]);
      }
      // Replayed events never reach a handler twice: every interaction of the run has one answer.
      expect(bot.double.interactions().filter((i) => i.responses.length > 1)).toEqual([]);
      expect(bot.double.isBotConnected()).toBe(true);
      const delivery = tallyDelivery(dmCounts(ids));
      expect(delivery.lost).toEqual([]);
      expect(delivery.duplicates).toEqual({});
      tally.add("gateway drops (resumed)", 3);
      tally.add("interactions across gateway drops", handles.length);
      record(delivery);
    },
    3 * ALERT_DEADLINE_MS,
  );
});

describe("interaction tokens that expired", () => {
  it("GIVEN interactions whose token expired before the bot answered WHEN the bot answers THEN Discord refuses, the bot logs it without an error and keeps serving", async () => {
    const alertDm = alertDms(bot.double, alice.id).at(-1) as StoredMessage;
    expect(alertDm).toBeDefined();
    const listingId = /Listing (\d+)/.exec(textOf(alertDm))?.[1] as string;
    const late = [
      bot.double.slash(alice, "help", {}, { expired: true }),
      bot.double.slash(bob, "alerts recent", {}, { expired: true }),
      bot.double.slash(alice, "watch list", {}, { expired: true }),
      bot.double.button(alice, `alert.view:${listingId}:${alice.id}`, alertDm, { expired: true }),
    ];
    for (const h of late) {
      await h.waitFor((s) => s.record.rejectedCallbacks.length > 0);
      expect(h.record.responses).toHaveLength(0);
      expect(h.record.rejectedCallbacks[0]?.code).toBe(10062);
      await bot.waitForLog((l) => l.interactionId === h.id && l.msg.includes("expired"), 20_000);
      expect(bot.errorLogs().filter((l) => l.interactionId === h.id)).toEqual([]);
    }

    const later = await answer(bot.double.slash(alice, "help"));
    expect(textOf(later)).toContain("/help");
    const view = await answer(bot.double.button(alice, `alert.view:${listingId}:${alice.id}`, alertDm));
    expect(textOf(view)).toContain("$12.50");
    tally.add("expired interaction tokens", late.length);
  }, 120_000);
});

// Durable delivery: every alert reaches Discord exactly once across restarts, crashes and replicas;
// closed DMs, Discord failures and quiet hours are handled without losing or repeating alerts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OutboxPayload } from "../../../src/outbox/payload.ts";
import { writeAlerts } from "../../../src/outbox/store.ts";
import { claimDue } from "../../../src/db/repos/outbox.ts";
import { installTag } from "../../../src/db/repos/state.ts";
import { outboxNonce } from "../../../src/outbox/nonce.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, uniqueItemName, waitUntil, type World } from "./world.ts";

let w: World;
let alice: DoubleUser;
let bob: DoubleUser;
let aliceId: number;
let bobId: number;

beforeAll(async () => {
  w = await startWorld();
  alice = w.double.user("alice");
  bob = w.double.user("bob");
  aliceId = await w.plainUser(alice);
  bobId = await w.plainUser(bob);
  // Set the feed's mark once, so each test sees only its own listings.
  await w.engine().runFeedOnce();
});

afterAll(async () => {
  await w?.close();
});

beforeEach(async () => {
  await w.db.prisma.watchRule.deleteMany({});
  await w.db.prisma.user.updateMany({
    data: { quietHoursStart: null, quietHoursEnd: null, dmClosedAt: null, defaultChannelId: null },
  });
  w.double.openDms(alice.id);
  w.double.openDms(bob.id);
});

const dmsAbout = (user: DoubleUser, listingId: string) =>
  w.double.dmsTo(user.id).filter((m) => textOf(m).includes(`Listing ${listingId}`));

/** Runs delivery passes until `done` holds, failing after the deadline (no fixed sleeps). */
async function deliverUntil(
  engine: ReturnType<World["engine"]>,
  done: () => Promise<boolean> | boolean,
  deadlineMs = 10_000,
) {
  const end = Date.now() + deadlineMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error("delivery did not reach the expected state in time");
    await engine.runDeliveryOnce();
    await new Promise((r) => setImmediate(r));
  }
}

describe("delivery", () => {
  it("GIVEN an alert written but not delivered WHEN the process restarts THEN the new process sends it once", async () => {
    const item = uniqueItemName("restart");
    await w.addRule(aliceId, "restart", { item });
    const detector = w.engine();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_234 });
    await detector.runFeedOnce();
    await detector.stop(); // dies before any delivery pass

    const restarted = w.engine();
    const first = await restarted.runDeliveryOnce();
    const second = await restarted.runDeliveryOnce();

    expect(first.sent).toBe(1);
    expect(second.claimed).toBe(0);
    expect(dmsAbout(alice, listing.id)).toHaveLength(1);
  });

  it("GIVEN a worker that sent but died before marking the row WHEN its lease runs out THEN another worker's re-send does not duplicate the DM", async () => {
    const item = uniqueItemName("midsend");
    await w.addRule(aliceId, "midsend", { item });
    const engine = w.engine({ delivery: { leaseMs: 200 } });
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 2_345 });
    await engine.runFeedOnce();
    // The dying worker: claims the row, sends it (as the real sender would), never records it.
    const [claimed] = await claimDue(w.db.prisma, { workerId: "dead-worker", limit: 10, leaseMs: 200 });
    if (claimed === undefined) throw new Error("the alert's outbox row was not claimable");
    const sent = await w.sender.send({
      target: { kind: "dm", userId: alice.id },
      ownerId: alice.id,
      alert: OutboxPayload.parse(claimed.payload).alert,
      nonce: outboxNonce(await installTag(w.db.prisma), claimed, "dm"),
    });
    expect(sent.kind).toBe("sent");
    expect(dmsAbout(alice, listing.id)).toHaveLength(1);

    await deliverUntil(
      engine,
      async () => (await w.db.prisma.outbox.count({ where: { id: claimed.id, status: "sent" } })) === 1,
    );

    expect(dmsAbout(alice, listing.id)).toHaveLength(1);
    const row = await w.db.prisma.outbox.findUniqueOrThrow({ where: { id: claimed.id } });
    expect(row.attempts).toBe(2);
    expect(row.discordMessageId).toBe(dmsAbout(alice, listing.id)[0]?.id);
  });

  it("GIVEN two replicas on one database WHEN both poll and deliver at the same time THEN each alert is written and sent once", async () => {
    const item = uniqueItemName("replicas");
    await w.addRule(aliceId, "replicas a", { item });
    await w.addRule(bobId, "replicas b", { item, max_price: 5_000 });
    const a = w.engine({ workerId: "replica-a" });
    const b = w.engine({ workerId: "replica-b" });
    const listings = w.sandbox.control.createListings(6, { market_hash_name: item, price: 3_000 });

    await Promise.all([a.runFeedOnce(), b.runFeedOnce()]);
    await Promise.all([a.runDeliveryOnce(), b.runDeliveryOnce(), a.runDeliveryOnce(), b.runDeliveryOnce()]);

    for (const l of listings) {
      expect(dmsAbout(alice, l.id)).toHaveLength(1);
      expect(dmsAbout(bob, l.id)).toHaveLength(1);
    }
    expect(await w.db.prisma.outbox.count({ where: { status: { not: "sent" } } })).toBe(0);
  });

  it("GIVEN two started replicas WHEN listings appear THEN one leads the feed and every alert arrives once", async () => {
    const item = uniqueItemName("started");
    await w.addRule(aliceId, "started", { item });
    const fast = {
      config: {
        POLL_INTERVAL_MS: 100,
        BID_POLL_INTERVAL_MS: 60_000,
        TRADE_POLL_INTERVAL_MS: 60_000,
        MARKET_API_KEY: w.sandbox.operatorKey,
      },
      deliveryIntervalMs: 50,
      leader: { checkIntervalMs: 100, leaseMs: 2_000 },
    };
    const a = w.engine({ ...fast, workerId: "started-a" });
    const b = w.engine({ ...fast, workerId: "started-b" });
    await a.start();
    await b.start();
    await waitUntil(() => a.stats().leader || b.stats().leader, 5_000, "a leader");
    expect(a.stats().leader && b.stats().leader).toBe(false);

    const listings = w.sandbox.control.createListings(5, { market_hash_name: item, price: 1_500 });
    await waitUntil(() => listings.every((l) => dmsAbout(alice, l.id).length > 0), 10_000, "every DM");
    await Promise.all([a.stop(), b.stop()]);

    expect([a.stats().leader, b.stats().leader]).toEqual([false, false]);
    for (const l of listings) expect(dmsAbout(alice, l.id)).toHaveLength(1);
  });

  it("GIVEN a started engine whose delivery worker is idle WHEN the feed writes listing alerts THEN the insert claims them for that worker, which sends them without a claim of its own, each once", async () => {
    const item = uniqueItemName("handed");
    await w.addRule(aliceId, "handed a", { item });
    await w.addRule(bobId, "handed b", { item });
    const engine = w.engine({
      config: {
        POLL_INTERVAL_MS: 100,
        BID_POLL_INTERVAL_MS: 60_000,
        TRADE_POLL_INTERVAL_MS: 60_000,
        MARKET_API_KEY: w.sandbox.operatorKey,
      },
      // No timed passes: what is sent here is sent by a pass the hand-over woke.
      deliveryIntervalMs: 600_000,
      leader: { checkIntervalMs: 100, leaseMs: 2_000 },
      workerId: "handed",
    });
    await engine.start();
    try {
      await waitUntil(() => engine.stats().leader && engine.stats().delivery.runs > 0, 5_000, "leading");
      const sentBefore = engine.stats().delivery.sent;
      const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_750 });
      // The pass's own count comes after the sends (each row is marked sent first).
      await waitUntil(
        () =>
          dmsAbout(alice, listing.id).length > 0 &&
          dmsAbout(bob, listing.id).length > 0 &&
          engine.stats().delivery.sent - sentBefore >= 2,
        10_000,
        "both DMs, marked sent",
      );

      expect(engine.stats().delivery.handed).toBe(2);
      expect(engine.stats().delivery.sent - sentBefore).toBe(2);
      const rows = await w.db.prisma.outbox.findMany({
        where: { alert: { subjectId: listing.id } },
        select: { status: true, attempts: true },
      });
      expect(rows).toEqual([
        { status: "sent", attempts: 1 },
        { status: "sent", attempts: 1 },
      ]);
      expect(dmsAbout(alice, listing.id)).toHaveLength(1);
      expect(dmsAbout(bob, listing.id)).toHaveLength(1);
    } finally {
      await engine.stop();
    }
  });

  it("GIVEN quiet hours WHEN alerts arrive during them THEN they are held AND one digest is sent when they end", async () => {
    const item = uniqueItemName("quiet");
    await w.addRule(aliceId, "quiet", { item });
    await w.db.prisma.user.update({
      where: { id: aliceId },
      data: { quietHoursStart: 22 * 60, quietHoursEnd: 7 * 60, timezone: "UTC" },
    });
    let clock = new Date("2030-01-01T23:00:00Z");
    const engine = w.engine({ now: () => clock });
    const listings = w.sandbox.control.createListings(3, { market_hash_name: item, price: 900 });
    await engine.runFeedOnce();
    const dmsBefore = w.double.dmsTo(alice.id).length;

    const during = await engine.runDeliveryOnce();
    expect(during.held).toBe(3);
    expect(w.double.dmsTo(alice.id)).toHaveLength(dmsBefore);

    clock = new Date("2030-01-02T06:59:00Z");
    expect((await engine.runDeliveryOnce()).released).toBe(0);

    clock = new Date("2030-01-02T07:00:00Z");
    const after = await engine.runDeliveryOnce();
    expect(after.released).toBe(3);
    expect(after.sent).toBe(1);
    await engine.runDeliveryOnce();

    const newDms = w.double.dmsTo(alice.id).slice(dmsBefore);
    expect(newDms).toHaveLength(1);
    const text = textOf(newDms[0] as NonNullable<(typeof newDms)[0]>);
    expect(text).toContain("3 alerts");
    for (const l of listings) expect(text).toContain(l.id);
  });

  it("GIVEN a user who closed DMs WHEN an alert is delivered THEN the closed DM is recorded AND it goes to their alert channel instead", async () => {
    const item = uniqueItemName("closed");
    await w.addRule(bobId, "closed", { item });
    await w.db.prisma.user.update({ where: { id: bobId }, data: { defaultChannelId: w.double.channelId } });
    w.double.closeDms(bob.id);
    const engine = w.engine();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 4_321 });
    await engine.runFeedOnce();

    const first = await engine.runDeliveryOnce();
    expect(first.redirected).toBe(1);
    const user = await w.db.prisma.user.findUniqueOrThrow({ where: { id: bobId } });
    expect(user.dmClosedAt).toBeInstanceOf(Date);

    await deliverUntil(engine, () =>
      w.double.messagesIn(w.double.channelId).some((m) => textOf(m).includes(listing.id)),
    );
    expect(dmsAbout(bob, listing.id)).toHaveLength(0);
    expect(
      w.double.messagesIn(w.double.channelId).filter((m) => textOf(m).includes(listing.id)),
    ).toHaveLength(1);
  });

  it("GIVEN a user who closed DMs and has no channel WHEN a trade alert is due THEN it is recorded as undeliverable, never posted publicly", async () => {
    w.double.closeDms(alice.id);
    await writeAlerts(w.db.prisma, [
      {
        userId: aliceId,
        kind: "trade",
        subjectId: "777",
        version: "queued",
        dedupeKey: `trade:${aliceId}:777:queued`,
        destination: "dm",
        alert: { kind: "trade", tradeId: "777", role: "seller", state: "queued" },
      },
    ]);
    await w.db.prisma.user.update({ where: { id: aliceId }, data: { defaultChannelId: w.double.channelId } });
    const channelBefore = w.double.messagesIn(w.double.channelId).length;

    const result = await w.engine().runDeliveryOnce();

    expect(result.failed).toBe(1);
    expect((await w.db.prisma.user.findUniqueOrThrow({ where: { id: aliceId } })).dmClosedAt).toBeInstanceOf(
      Date,
    );
    const row = await w.db.prisma.outbox.findFirstOrThrow({
      where: { alert: { dedupeKey: `trade:${aliceId}:777:queued` } },
    });
    expect(row.status).toBe("failed");
    expect(w.double.messagesIn(w.double.channelId)).toHaveLength(channelBefore);
  });

  it("GIVEN Discord failing with 5xx beyond its own retries WHEN delivering THEN the row is retried later and sent once", async () => {
    const item = uniqueItemName("discord5xx");
    await w.addRule(aliceId, "discord5xx", { item });
    const engine = w.engine({ delivery: { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 5 } } });
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 5_555 });
    await engine.runFeedOnce();
    w.double.faults.add({ method: "POST", path: /\/channels\/\d+\/messages/, status: 503, times: 20 });

    const failed = await engine.runDeliveryOnce();
    expect(failed.retried).toBe(1);
    w.double.faults.clear();
    await deliverUntil(engine, () => dmsAbout(alice, listing.id).length > 0);

    expect(dmsAbout(alice, listing.id)).toHaveLength(1);
    const row = await w.db.prisma.outbox.findFirstOrThrow({
      where: { alert: { dedupeKey: { endsWith: `:${listing.id}` } } },
    });
    expect(row.status).toBe("sent");
    expect(row.attempts).toBeGreaterThanOrEqual(2);
  });
});

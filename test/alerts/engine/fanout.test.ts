// One listing matching several users' rules, through the running engine and the local Discord:
// armed rules' outcome DMs go first, then ordinary alerts oldest rule first; DM channels are kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertSender, SendRequest } from "../../../src/outbox/sender.ts";
import { createDiscordAlertSender } from "../../../src/discord/outbound/alertSender.ts";
import { connectClient, snowflake, textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, uniqueItemName, waitUntil, type World } from "./world.ts";

const people: DoubleUser[] = Array.from({ length: 6 }, (_, i) => ({ id: snowflake(), username: `fan${i}` }));

let w: World;
let userIds: number[] = [];

beforeAll(async () => {
  w = await startWorld({ users: people });
  userIds = [];
  for (const p of people) userIds.push(await w.plainUser(p));
});

afterAll(async () => {
  await w?.close();
});

/** The real Discord sender, noting whom each send was for in the order delivery called it. */
function recording(inner: AlertSender): { sender: AlertSender; calls: SendRequest[] } {
  const calls: SendRequest[] = [];
  return {
    calls,
    sender: {
      send(request) {
        calls.push(request);
        return inner.send(request);
      },
    },
  };
}

const fast = (sandboxKey: string) => ({
  config: {
    POLL_INTERVAL_MS: 100,
    BID_POLL_INTERVAL_MS: 60_000,
    TRADE_POLL_INTERVAL_MS: 60_000,
    MARKET_API_KEY: sandboxKey,
  },
  deliveryIntervalMs: 50,
});

const dmsAbout = (p: DoubleUser, listingId: string) =>
  w.double.dmsTo(p.id).filter((m) => m.interactionId === undefined && textOf(m).includes(listingId));

describe("fan-out order", () => {
  it("GIVEN six users' rules on one item, the two newest armed in shadow mode, WHEN a matching listing appears to the running engine THEN both armed outcome DMs reach Discord before any ordinary alert, and ordinary alerts go oldest rule first", async () => {
    const item = uniqueItemName("fanout");
    // Created in order: rule ids (and ages) follow people's order.
    for (const [i, userId] of userIds.entries()) {
      const armed = i === 3 || i === 5;
      await w.addRule(userId, `fan ${i}`, { item, max_price: 50_000 }, armed ? armedShadow : {});
    }
    const { sender, calls } = recording(w.sender);
    const engine = w.engine({ ...fast(w.sandbox.operatorKey), sender });
    await engine.start();
    try {
      await waitUntil(() => engine.stats().leader, 5_000, "the engine to lead");
      const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 2_000 });
      await waitUntil(() => people.every((p) => dmsAbout(p, listing.id).length > 0), 15_000, "six DMs");

      const sentTo = calls.map((c) => (c.target.kind === "dm" ? c.target.userId : c.target.channelId));
      const armedIds = [people[3]?.id, people[5]?.id];
      expect(new Set(sentTo.slice(0, 2))).toEqual(new Set(armedIds));
      expect(sentTo.slice(2)).toEqual([0, 1, 2, 4].map((i) => people[i]?.id));
      expect(calls.slice(0, 2).every((c) => c.alert.kind === "auto_buy")).toBe(true);
      expect(calls.slice(2).every((c) => c.alert.kind === "listing")).toBe(true);

      // What Discord saw: every armed DM created before any ordinary one.
      const arrival = (p: DoubleUser) => dmsAbout(p, listing.id)[0]?.createdAt ?? Infinity;
      const lastArmed = Math.max(...[3, 5].map((i) => arrival(people[i] as DoubleUser)));
      const firstOrdinary = Math.min(...[0, 1, 2, 4].map((i) => arrival(people[i] as DoubleUser)));
      expect(lastArmed).toBeLessThanOrEqual(firstOrdinary);
      expect(textOf(dmsAbout(people[3] as DoubleUser, listing.id)[0] ?? never())).toContain("Shadow");
    } finally {
      await engine.stop();
    }
  });

  it("GIVEN users DMed before WHEN a fresh bot process DMs them again THEN it sends through the kept DM channels, opening none", async () => {
    const kept = await w.db.prisma.user.findMany({
      where: { id: { in: userIds } },
      select: { id: true, dmChannelId: true, discordId: true },
    });
    for (const u of kept) expect(u.dmChannelId).toBe(w.double.dmChannelOf(u.discordId));

    const fresh = await connectClient(w.double);
    try {
      const engine = w.engine({ sender: createDiscordAlertSender(fresh, w.logger) });
      const item = uniqueItemName("kept");
      for (const [i, userId] of userIds.entries()) await w.addRule(userId, `kept ${i}`, { item });
      await engine.runFeedOnce();
      const from = w.double.requests.length;
      const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
      await engine.runFeedOnce();
      while ((await engine.runDeliveryOnce()).claimed > 0);

      expect(people.every((p) => dmsAbout(p, listing.id).length === 1)).toBe(true);
      const made = w.double.requests.slice(from).map((r) => `${r.method} ${r.path}`);
      expect(made.filter((r) => r === "POST /users/@me/channels")).toEqual([]);
      expect(made.filter((r) => /^POST \/channels\/\d+\/messages$/.test(r))).toHaveLength(people.length);
    } finally {
      await fresh.destroy();
    }
  });

  it("GIVEN a kept DM channel Discord no longer knows WHEN the user is DMed THEN the DM is opened again, sent, and the new channel kept", async () => {
    const person = people[0] as DoubleUser;
    const userId = userIds[0] as number;
    await w.db.prisma.user.update({ where: { id: userId }, data: { dmChannelId: "1000000000000000001" } });
    const fresh = await connectClient(w.double);
    try {
      const engine = w.engine({ sender: createDiscordAlertSender(fresh, w.logger) });
      const item = uniqueItemName("stale");
      await w.addRule(userId, "stale channel", { item });
      await engine.runFeedOnce();
      const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
      await engine.runFeedOnce();
      while ((await engine.runDeliveryOnce()).claimed > 0);

      expect(dmsAbout(person, listing.id)).toHaveLength(1);
      const row = await w.db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
      expect(row.dmChannelId).toBe(w.double.dmChannelOf(person.id));
    } finally {
      await fresh.destroy();
    }
  });
});

const armedShadow = { armMode: "shadow", armMaxBuys: 5, armedAt: new Date() } as const;

function never(): never {
  throw new Error("no DM");
}

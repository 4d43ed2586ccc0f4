// The buy-order guard end to end through Discord and the sandbox: it follows a rival order up to
// its ceiling and stops (and says so), stays inside the spend caps, keeps to its daily change
// limit, batches its changes into one digest DM, and only its owner can turn it off.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessage } from "../support/discord.ts";
import type { BotUser } from "../support/harness.ts";
import { answer, buttonId, hits, isEphemeral, labels, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { encodeCustomId } from "../../src/discord/customId.ts";
import { orderOf, placeOrder, startGuardSuite, type GuardSuite } from "./support.ts";

const PATCH = "PATCH /buy-orders/{order_id}";
const HOUR = 60 * 60_000;

let s: GuardSuite;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  s = await startGuardSuite();
  ({ alice, bob } = s.bot.users);
});

afterAll(async () => {
  const errors = s?.bot.errorLogs() ?? [];
  await s?.stop();
  expect(errors).toEqual([]);
});

const rival = (item: string, dollars: number, floats: { minFloat?: number; maxFloat?: number } = {}) =>
  s.bot.sandbox.control.createRivalBuyOrder({
    marketHashName: item,
    maxPrice: Math.round(dollars * 100),
    ...floats,
  });
const priceOf = async (user: BotUser, orderId: string) => (await orderOf(s.market, user, orderId)).price;

async function guard(user: BotUser, opts: Record<string, string | number | boolean>): Promise<StoredMessage> {
  const reply = await answer(s.bot.double.slash(user, "buyorder guard", opts));
  expect(isEphemeral(reply)).toBe(true);
  return reply;
}

describe("/buyorder guard", () => {
  it("GIVEN a guarded order WHEN rivals outbid it THEN it follows them up to its ceiling, stops above it, AND the changes and the stop arrive in one digest", async () => {
    const item = uniqueItemName("guard-follow");
    const orderId = await placeOrder(s.bot, alice, {
      item,
      maxPrice: "10",
      minFloat: "0.1",
      maxFloat: "0.2",
    });
    const set = await guard(alice, { order: orderId, ceiling: "11", step: "0.25" });
    expect(textOf(set)).toContain("Guard on: buy order");
    expect(textOf(set)).toContain("$11.00");

    // A rival at the same price is a tie: not the highest.
    rival(item, 10, { minFloat: 0.1, maxFloat: 0.2 });
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(1025);
    // A rival for another float range is not competition.
    rival(item, 30, { minFloat: 0.5, maxFloat: 0.6 });
    rival(item, 10.5, { minFloat: 0.15, maxFloat: 0.3 });
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(1075);
    // One step would pass the ceiling: it goes to the ceiling, still above the rival.
    rival(item, 10.9);
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(1100);
    // Changes alone wait for the digest period: nothing DM'd yet.
    expect(s.dms(alice).filter((m) => textOf(m).includes(orderId))).toHaveLength(0);

    rival(item, 11.5);
    const patches = hits(s.bot, PATCH);
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(1100);
    expect(hits(s.bot, PATCH)).toBe(patches);

    // The stop is news at once, and carries the three changes with it: one DM.
    const digests = s.dms(alice).filter((m) => textOf(m).includes(orderId));
    expect(digests).toHaveLength(1);
    const text = textOf(digests[0] as StoredMessage);
    expect(text).toContain("3 price changes, 1 stopped");
    expect(text).toContain("$10.00 → **$10.25**");
    expect(text).toContain("$10.25 → **$10.75**");
    expect(text).toContain("$10.75 → **$11.00**");
    expect(text).toContain("now at its ceiling");
    expect(text).toMatch(
      /stopped\*\* at its ceiling of \$11\.00: a rival order at \$11\.50 is at or above your ceiling/,
    );
    expect(labels(digests[0] as StoredMessage)).toEqual([]);

    // Stopped means stopped: later passes change nothing.
    await s.pass();
    expect(hits(s.bot, PATCH)).toBe(patches);
  });

  it("GIVEN a guarded order WHEN a raise would pass the daily spend cap THEN the raise is refused, the order stays, AND the guard stops and says why", async () => {
    await answer(s.bot.double.slash(bob, "account settings", { per_purchase_cap: "50", daily_cap: "21.50" }));
    const item = uniqueItemName("guard-caps");
    const orderId = await placeOrder(s.bot, bob, { item, maxPrice: "10", quantity: 2 });
    await guard(bob, { order: orderId, ceiling: "20", step: "0.25" });

    rival(item, 10.5);
    await s.pass();
    // 2 × $10.75 = $21.50: exactly the cap.
    expect(await priceOf(bob, orderId)).toBe(1075);
    rival(item, 10.9);
    await s.pass();
    expect(await priceOf(bob, orderId)).toBe(1075);
    const open = await s.bot.db.prisma.purchase.findMany({
      where: { kind: "buy_order", subjectId: orderId, status: { in: ["open", "pending", "unknown"] } },
    });
    expect(open.map((p) => Number(p.totalCents))).toEqual([2150]);
    const digest = s.dms(bob).find((m) => textOf(m).includes(orderId));
    expect(textOf(digest as StoredMessage)).toContain("stopped");
    expect(textOf(digest as StoredMessage)).toContain("daily cap");
  });

  it("GIVEN a ceiling above the per-purchase cap WHEN the guard is set THEN it is refused and nothing is saved", async () => {
    const item = uniqueItemName("guard-percap");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "5" });
    // New users start with a $100 per-purchase cap.
    const reply = await guard(alice, { order: orderId, ceiling: "150", step: "1" });
    expect(textOf(reply)).toContain("above your per-purchase cap of $100.00");
    expect(await s.bot.db.prisma.guard.count({ where: { subjectId: orderId } })).toBe(0);
  });

  it("GIVEN max_changes:2 WHEN a rival outbids it a third time the same day THEN it waits, says so once, AND acts again a day later", async () => {
    const item = uniqueItemName("guard-limit");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "5" });
    await guard(alice, { order: orderId, ceiling: "9", step: "0.10", max_changes: 2 });
    rival(item, 5);
    await s.pass();
    rival(item, 5.5);
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(560);
    rival(item, 6);
    await s.pass();
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(560);
    const told = s.dms(alice).filter((m) => textOf(m).includes(orderId));
    expect(told).toHaveLength(1);
    expect(textOf(told[0] as StoredMessage)).toContain("its daily limit of 2 changes is used up");
    expect(labels(told[0] as StoredMessage)).toEqual([`Turn off guard on ${orderId}`]);

    s.clock.advance(24 * HOUR + 60_000);
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(610);
  });

  it("GIVEN guard changes only WHEN the digest period has not passed THEN nothing is DM'd, AND after it one DM carries them all", async () => {
    const item = uniqueItemName("guard-digest");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "4" });
    await guard(alice, { order: orderId, ceiling: "9", step: "0.05" });
    rival(item, 4.2);
    await s.pass();
    rival(item, 4.4);
    await s.pass();
    expect(await priceOf(alice, orderId)).toBe(445);
    expect(s.dms(alice).filter((m) => textOf(m).includes(orderId))).toHaveLength(0);
    s.clock.advance(HOUR);
    await s.pass();
    const digests = s.dms(alice).filter((m) => textOf(m).includes(orderId));
    expect(digests).toHaveLength(1);
    const text = textOf(digests[0] as StoredMessage);
    expect(text).toContain("$4.00 → **$4.25** (rival at $4.20)");
    expect(text).toContain("$4.25 → **$4.45** (rival at $4.40)");
    expect(text).not.toContain("stopped");
  });

  it("GIVEN alice's guard WHEN bob presses its Turn off button or names her order THEN he is refused and it keeps running, AND alice's press turns it off", async () => {
    const item = uniqueItemName("guard-owner");
    const orderId = await placeOrder(s.bot, alice, { item, maxPrice: "3", quantity: 1 });
    await guard(alice, { order: orderId, ceiling: "8", step: "0.10", max_changes: 1 });
    rival(item, 3);
    await s.pass();
    rival(item, 4);
    await s.pass();
    const digest = s.dms(alice).find((m) => textOf(m).includes(orderId)) as StoredMessage;
    const off = buttonId(digest, `Turn off guard on ${orderId}`);

    // Bob cannot see alice's DM: he presses her button's id copied onto a server message.
    const copied = s.bot.double.postMessage(s.bot.double.channelId, {
      content: "alice's digest, copied",
      components: [{ type: 1, components: [{ type: 2, style: 4, label: "Turn off", custom_id: off }] }],
    });
    const refused = await answer(s.bot.double.button(bob, off, copied));
    expect(textOf(refused)).toContain("isn't yours");
    const byName = await guard(bob, { order: orderId, off: true });
    expect(textOf(byName)).toContain(`You have no guard on order ${orderId}`);
    expect((await s.bot.db.prisma.guard.findFirstOrThrow({ where: { subjectId: orderId } })).status).toBe(
      "active",
    );

    const done = await answer(s.bot.double.button(alice, off, digest));
    expect(textOf(done)).toContain("Guard off");
    expect((await s.bot.db.prisma.guard.findFirstOrThrow({ where: { subjectId: orderId } })).status).toBe(
      "off",
    );
    s.clock.advance(25 * HOUR);
    const patches = hits(s.bot, PATCH);
    await s.pass();
    expect(hits(s.bot, PATCH)).toBe(patches);
  });

  it.each(["99999999999999999999", "12x"])(
    "GIVEN a Turn off guard button naming guard %j WHEN alice presses it THEN she is told it is damaged and nothing changes",
    async (subject) => {
      const id = encodeCustomId({ action: "guard.off", subject, owner: alice.id });
      const posted = s.bot.double.postMessage(s.bot.double.channelId, {
        content: "a digest",
        components: [{ type: 1, components: [{ type: 2, style: 4, label: "Turn off", custom_id: id }] }],
      });
      const before = await s.bot.db.prisma.guard.findMany({ orderBy: { id: "asc" } });
      const reply = await answer(s.bot.double.button(alice, id, posted));
      expect(isEphemeral(reply)).toBe(true);
      expect(textOf(reply)).toContain("This button is damaged");
      expect(await s.bot.db.prisma.guard.findMany({ orderBy: { id: "asc" } })).toEqual(before);
      expect(s.bot.errorLogs()).toEqual([]);
    },
  );

  it.each([
    [{ order: "abc", ceiling: "5", step: "1" }, "buy order ids are numbers"],
    [{ order: "123", step: "1" }, "give a ceiling in USD, or off:true"],
    [{ order: "123", ceiling: "5" }, "give a step"],
    [{ order: "123", ceiling: "five", step: "1" }, "ceiling"],
  ])(
    "GIVEN %j WHEN alice sets a guard THEN she is told why and nothing reaches the marketplace",
    async (opts, why) => {
      const before = s.bot.sandbox.control.stats().total;
      const reply = await guard(alice, opts);
      expect(textOf(reply)).toContain(why);
      expect(s.bot.sandbox.control.stats().total).toBe(before);
    },
  );
});

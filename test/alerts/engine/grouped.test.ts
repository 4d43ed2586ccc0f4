// One alert per listing per user and destination: overlapping rules share one DM naming them all,
// the digest and /alerts recent count listings, every matched rule's record moves.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { recentAlerts } from "../../../src/outbox/actions.ts";
import { textOf, type DoubleUser } from "../../support/discord.ts";
import { startWorld, uniqueItemName, type World } from "./world.ts";

let w: World;
let alice: DoubleUser;
let aliceId: number;

beforeAll(async () => {
  w = await startWorld();
  alice = w.double.user("alice");
  aliceId = await w.plainUser(alice);
  // The feed's mark once, so each test sees only its own listings.
  await w.engine().runFeedOnce();
});

afterAll(async () => {
  await w?.close();
});

beforeEach(async () => {
  await w.db.prisma.watchRule.deleteMany({});
  await w.db.prisma.user.updateMany({ data: { quietHoursStart: null, quietHoursEnd: null } });
});

const dmsAbout = (listingId: string) =>
  w.double.dmsTo(alice.id).filter((m) => textOf(m).includes(`Listing ${listingId}`));

/** Feed once, then deliver until nothing is left to send. */
async function feedAndDeliver(engine: ReturnType<World["engine"]>): Promise<void> {
  await engine.runFeedOnce();
  while ((await engine.runDeliveryOnce()).claimed > 0);
}

describe("one alert per listing", () => {
  it("GIVEN two overlapping rules WHEN one listing matches both THEN exactly one DM arrives naming both rules with the price shown once, AND both rules count the match", async () => {
    const item = uniqueItemName("overlap");
    const under30 = await w.addRule(aliceId, "ember under 30", { item, max_price: 3_000 });
    const lowFloat = await w.addRule(aliceId, "ember float<0.5 under 40", {
      item,
      max_float: 0.5,
      max_price: 4_000,
    });
    const engine = w.engine();
    const both = w.sandbox.control.createListing({ market_hash_name: item, price: 2_500, float_value: 0.2 });
    const onlyOne = w.sandbox.control.createListing({
      market_hash_name: item,
      price: 3_500,
      float_value: 0.2,
    });

    await feedAndDeliver(engine);

    const dms = dmsAbout(both.id);
    expect(dms).toHaveLength(1);
    const text = textOf(dms[0] as NonNullable<(typeof dms)[0]>);
    expect(text).toContain("ember under 30");
    expect(text).toContain("ember float<0.5 under 40");
    expect(text.match(/\$25\.00/g)).toHaveLength(1);
    // The sandbox's items carry an inspect link: shown once, to copy.
    expect(text.match(/Inspect: `platform:\/\/inspect\//g)).toHaveLength(1);
    const single = dmsAbout(onlyOne.id);
    expect(single).toHaveLength(1);
    expect(textOf(single[0] as NonNullable<(typeof single)[0]>)).not.toContain("ember under 30");
    const rules = await w.db.prisma.watchRule.findMany({
      where: { id: { in: [under30, lowFloat] } },
      orderBy: { id: "asc" },
    });
    expect(rules.map((r) => r.matchCount)).toEqual([1, 2]);
  });

  it("GIVEN fifty rules on one item WHEN a listing matches them all THEN one DM names the first three and counts the other 47", async () => {
    const item = uniqueItemName("fifty");
    for (let i = 0; i < 50; i++) await w.addRule(aliceId, `rule ${String(i).padStart(2, "0")}`, { item });
    const engine = w.engine();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 1_200 });

    await feedAndDeliver(engine);

    const dms = dmsAbout(listing.id);
    expect(dms).toHaveLength(1);
    const text = textOf(dms[0] as NonNullable<(typeof dms)[0]>);
    expect(text).toContain("rule 00, rule 01, rule 02 +47 more");
    expect(text).not.toContain("rule 03");
    expect(await w.db.prisma.alertLog.count({ where: { subjectId: listing.id } })).toBe(1);
  });

  it("GIVEN one rule alerting by DM and another in a channel WHEN a listing matches both THEN one DM and one channel post, each naming its own rule", async () => {
    const item = uniqueItemName("twoplaces");
    await w.addRule(aliceId, "dm rule", { item });
    await w.addRule(
      aliceId,
      "channel rule",
      { item },
      { destination: "channel", channelId: w.double.channelId },
    );
    const engine = w.engine();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 800 });

    await feedAndDeliver(engine);

    const dms = dmsAbout(listing.id);
    expect(dms).toHaveLength(1);
    expect(textOf(dms[0] as NonNullable<(typeof dms)[0]>)).toContain("dm rule");
    const posts = w.double.messagesIn(w.double.channelId).filter((m) => textOf(m).includes(listing.id));
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0] as NonNullable<(typeof posts)[0]>)).toContain("channel rule");
  });

  it("GIVEN a long non-ASCII item name and rule names WHEN a listing matches THEN the DM carries them whole or cut with an ellipsis, within Discord's limits", async () => {
    const item = `${uniqueItemName("長い")} | Дракон «Ωmega» ${"龍".repeat(60)}`;
    await w.addRule(aliceId, "дешёвый дракон 🐉", { item });
    await w.addRule(aliceId, `${"名".repeat(50)}`, { item });
    const engine = w.engine();
    const listing = w.sandbox.control.createListing({ market_hash_name: item, price: 999 });

    await feedAndDeliver(engine);

    const dms = dmsAbout(listing.id);
    expect(dms).toHaveLength(1);
    const dm = dms[0] as NonNullable<(typeof dms)[0]>;
    expect(textOf(dm)).toContain("дешёвый дракон 🐉");
    for (const e of dm.embeds ?? []) {
      expect([...(e.title ?? "")].length).toBeLessThanOrEqual(256);
      for (const f of e.fields ?? []) {
        expect([...f.name].length).toBeLessThanOrEqual(256);
        expect([...f.value].length).toBeLessThanOrEqual(1024);
      }
    }
  });

  it("GIVEN quiet hours and overlapping rules WHEN two listings match both rules THEN the digest counts two alerts, AND /alerts recent lists each listing once", async () => {
    const item = uniqueItemName("quietgroup");
    await w.addRule(aliceId, "quiet a", { item });
    await w.addRule(aliceId, "quiet b", { item });
    await w.db.prisma.user.update({
      where: { id: aliceId },
      data: { quietHoursStart: 22 * 60, quietHoursEnd: 7 * 60, timezone: "UTC" },
    });
    let clock = new Date("2030-01-01T23:00:00Z");
    const engine = w.engine({ now: () => clock });
    const listings = w.sandbox.control.createListings(2, { market_hash_name: item, price: 700 });
    await engine.runFeedOnce();
    expect((await engine.runDeliveryOnce()).held).toBe(2);
    const before = w.double.dmsTo(alice.id).length;

    clock = new Date("2030-01-02T07:00:00Z");
    while ((await engine.runDeliveryOnce()).claimed > 0);

    const digest = w.double.dmsTo(alice.id).slice(before);
    expect(digest).toHaveLength(1);
    const text = textOf(digest[0] as NonNullable<(typeof digest)[0]>);
    expect(text).toContain("2 alerts");
    expect(text).toContain("rules quiet a, quiet b");

    const recent = await recentAlerts(w.db.prisma, { discordId: alice.id, limit: 25 });
    const mine = recent.alerts.filter((a) => listings.some((l) => l.id === a.subjectId));
    expect(mine.map((a) => a.subjectId).sort()).toEqual(listings.map((l) => l.id).sort());
  });

  it("GIVEN bob's rules alerting by DM and in a channel WHEN two listings match both THEN his weekly report counts 2 deals alerted, not 4", async () => {
    const bob = w.double.user("bob");
    const bobId = await w.plainUser(bob);
    const item = uniqueItemName("weekly");
    await w.addRule(bobId, "weekly dm", { item });
    await w.addRule(bobId, "weekly dm too", { item });
    await w.addRule(
      bobId,
      "weekly channel",
      { item },
      { destination: "channel", channelId: w.double.channelId },
    );
    const engine = w.engine();
    w.sandbox.control.createListings(2, { market_hash_name: item, price: 600 });
    await feedAndDeliver(engine);
    expect(await w.db.prisma.alertLog.count({ where: { userId: bobId, kind: "listing" } })).toBe(4);

    expect(await engine.runWeeklyReportOnce(new Date())).toBeGreaterThanOrEqual(1);
    const report = await w.db.prisma.outbox.findFirstOrThrow({
      where: { userId: bobId, alert: { kind: "weekly_report" } },
    });
    expect(report.payload).toMatchObject({ alert: { kind: "weekly_report", alerted: 2 } });
  });
});

// The missed-deal report end to end: alerts through Discord, sales in the sandbox, fates in /alerts recent and the weekly DM.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, userAnswer, type InteractionHandle, type StoredMessage } from "../../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../../support/harness.ts";
import { uniqueItemName, waitUntil } from "./world.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
const item = uniqueItemName("missed");
/** Alerted to alice: sold to someone else (missed), bought by alice, sold to someone else (missed). */
const listings: { missed: string; bought: string; missedToo: string } = {
  missed: "",
  bought: "",
  missedToo: "",
};

beforeAll(async () => {
  bot = await startBot({ env: { POLL_INTERVAL_MS: "400", BID_POLL_INTERVAL_MS: "60000" } });
  ({ alice, bob } = bot.users);
  await bot.link(alice);
});

afterAll(async () => {
  await bot?.stop();
});

const engine = () => alertEngineOf(bot);
const answer = (h: InteractionHandle): Promise<StoredMessage> => userAnswer(h, 10_000);
/** Alert DMs (not interaction replies) mentioning `text`. */
const dmsAbout = (user: BotUser, text: string) =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

function buttonIdOn(m: StoredMessage, label: string): string {
  const found = JSON.stringify(m.components).match(
    new RegExp(`"label":"${label}"[^}]*"custom_id":"([^"]+)"|"custom_id":"([^"]+)"[^}]*"label":"${label}"`),
  );
  const id = found?.[1] ?? found?.[2];
  if (id === undefined) throw new Error(`no "${label}" button on the message`);
  return id;
}

/** The line of /alerts recent about `listingId`. */
async function recentLineAbout(user: BotUser, listingId: string): Promise<string> {
  const recent = textOf(await answer(bot.double.slash(user, "alerts recent")));
  const line = recent.split("\n").find((l) => l.includes(`listing ${listingId}`));
  if (line === undefined) throw new Error(`no line about ${listingId} in:\n${recent}`);
  return line;
}

/** Runs a feed cycle (after any the loop has in flight) and writes the sightings it made. */
async function feedAndRecord(): Promise<void> {
  await engine().runFeedOnce();
  await bot.app.fates.flush();
}

describe("missed deals", () => {
  it("GIVEN alerts to alice WHEN one listing sells to someone else THEN /alerts recent says it went, and how long after the alert", async () => {
    await waitUntil(
      () => engine().stats().leader && engine().stats().feed.mark !== undefined,
      10_000,
      "the feed to start",
    );
    const added = await answer(bot.double.slash(alice, "watch add", { name: "deals", item, max_price: 30 }));
    expect(textOf(added)).toContain("Watching");

    // The reference is the item's: $40 for all three, so each would have resold at a profit.
    listings.missed = bot.sandbox.control.createListing({
      market_hash_name: item,
      type: "buy_now",
      price: 2_500,
      reference_price: 4_000,
    }).id;
    listings.bought = bot.sandbox.control.createListing({
      market_hash_name: item,
      type: "buy_now",
      price: 2_000,
    }).id;
    listings.missedToo = bot.sandbox.control.createListing({
      market_hash_name: item,
      type: "buy_now",
      price: 2_800,
    }).id;
    await waitUntil(
      () => Object.values(listings).every((id) => dmsAbout(alice, `Listing ${id}`).length > 0),
      10_000,
      "the three alert DMs",
    );
    const before = await recentLineAbout(alice, listings.missed);
    expect(before).not.toMatch(/after your alert|bought/);

    bot.sandbox.control.sellToBuyer(listings.missed);
    await feedAndRecord();

    expect(await recentLineAbout(alice, listings.missed)).toMatch(
      /gone \d+ (s|min) after your alert \(sold or delisted\)/,
    );
  });

  it("GIVEN the feed's guess WHEN alice views the listing THEN the exact state replaces it: sold … after your alert", async () => {
    const [dm] = dmsAbout(alice, `Listing ${listings.missed}`);
    if (dm === undefined) throw new Error("no alert DM");

    const view = await answer(bot.double.button(alice, buttonIdOn(dm, "View"), dm));
    expect(textOf(view)).toContain("no longer for sale");
    await bot.app.fates.flush();

    const line = await recentLineAbout(alice, listings.missed);
    expect(line).toMatch(/sold \d+ (s|min) after your alert/);
    expect(line).not.toContain("gone");
    const row = await bot.db.prisma.alertLog.findFirstOrThrow({
      where: { subjectId: listings.missed, kind: "listing" },
    });
    const upstream = await bot.app.market.forKey(alice.demo.apiKey).getListing(listings.missed);
    expect(row.goneState).toBe("sold");
    expect(row.goneAt?.toISOString()).toBe(new Date(upstream.sold_at ?? "").toISOString());
  });

  it("GIVEN alice buys an alerted listing from its alert THEN /alerts recent says she bought it, not that it went", async () => {
    const [dm] = dmsAbout(alice, `Listing ${listings.bought}`);
    if (dm === undefined) throw new Error("no alert DM");
    const quote = await answer(bot.double.button(alice, buttonIdOn(dm, "Buy"), dm));
    const done = await answer(bot.double.button(alice, buttonIdOn(quote, "Confirm purchase"), quote));
    expect(textOf(done)).toContain("Bought");

    bot.sandbox.control.sellToBuyer(listings.missedToo);
    await feedAndRecord();

    const bought = await recentLineAbout(alice, listings.bought);
    expect(bought).toContain("you bought it");
    expect(bought).not.toMatch(/after your alert/);
    expect(await recentLineAbout(alice, listings.missedToo)).toMatch(/gone \d+ (s|min) after your alert/);
  });

  it("GIVEN the week's alerts WHEN the weekly report runs twice THEN alice gets one DM counting 2 missed of 3 and their net AND bob, without alerts, none", async () => {
    const queued = await engine().runWeeklyReportOnce(new Date());
    expect(queued).toBe(1);
    expect(await engine().runWeeklyReportOnce(new Date())).toBe(0); // same ISO week: nothing new
    await engine().runDeliveryOnce();
    await waitUntil(() => dmsAbout(alice, "This week:").length > 0, 10_000, "the weekly DM");

    const reports = dmsAbout(alice, "This week:");
    expect(reports).toHaveLength(1);
    // Nets after the 2% seller fee: 4000 - 80 - 2500 = 1420 and 4000 - 80 - 2800 = 1120.
    expect(textOf(reports[0] as StoredMessage)).toMatch(
      /This week: 3 deals alerted, 2 missed \(sold before you acted, median \d+ (s|min) after the alert\); they would have netted \$25\.40 at reference after fees\./,
    );
    expect(dmsAbout(bob, "This week:")).toHaveLength(0);
  });

  it("GIVEN alice switched listing alerts off, or her key was revoked, WHEN next week's report runs THEN she gets none", async () => {
    const nextWeek = new Date(Date.now() + 7 * 86_400_000 - 60_000); // her alerts are still in range
    const alicesRow = { where: { discordId: alice.id } };
    await bot.db.prisma.user.update({ ...alicesRow, data: { alertListing: false } });
    expect(await engine().runWeeklyReportOnce(nextWeek)).toBe(0);
    await bot.db.prisma.user.update({ ...alicesRow, data: { alertListing: true, status: "revoked" } });
    expect(await engine().runWeeklyReportOnce(nextWeek)).toBe(0);

    await bot.db.prisma.user.update({ ...alicesRow, data: { status: "active" } });
    expect(await engine().runWeeklyReportOnce(nextWeek)).toBe(1);
  });
});

// The listing guard end to end through Discord and the sandbox: it undercuts comparable rival
// listings (same item, similar float) down to its floor and stops there, saying so; only the
// seller can guard a listing, and only its owner can turn the guard off.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessage } from "../support/discord.ts";
import type { BotUser } from "../support/harness.ts";
import { answer, hits, isEphemeral, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { startGuardSuite, type GuardSuite } from "./support.ts";

const PATCH = "PATCH /listings/{listing_id}";

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

/** A rival seller's buy-now listing. */
const rival = (item: string, dollars: number, floatValue: number) =>
  s.bot.sandbox.control.createListing({
    market_hash_name: item,
    price: Math.round(dollars * 100),
    float_value: floatValue,
  });
const priceOf = async (listingId: string) => (await s.market.as(alice).getListing(listingId)).price;
const aliceListing = (item: string, dollars: number, floatValue: number) =>
  s.bot.sandbox.control.createListing({
    sellerPlatformId: alice.demo.platformId,
    market_hash_name: item,
    price: Math.round(dollars * 100),
    float_value: floatValue,
  });

async function guard(user: BotUser, opts: Record<string, string | number | boolean>): Promise<StoredMessage> {
  const reply = await answer(s.bot.double.slash(user, "sell guard", opts));
  expect(isEphemeral(reply)).toBe(true);
  return reply;
}

describe("/sell guard", () => {
  it("GIVEN a guarded listing WHEN comparable rivals undercut it THEN it follows them down to its floor, stops below it, AND the digest says so", async () => {
    const item = uniqueItemName("lguard-floor");
    const mine = aliceListing(item, 20, 0.2);
    const set = await guard(alice, { listing: mine.id, floor: "17.50", step: "0.25" });
    expect(textOf(set)).toContain("Guard on: listing");
    expect(textOf(set)).toContain("$17.50");

    // Much cheaper but a different float: not comparable, ignored.
    rival(item, 5, 0.6);
    await s.pass();
    expect(await priceOf(mine.id)).toBe(2000);

    rival(item, 19, 0.205);
    await s.pass();
    expect(await priceOf(mine.id)).toBe(1875);
    rival(item, 17.6, 0.195);
    await s.pass();
    // One step would go under the floor: it goes to the floor, still the cheapest.
    expect(await priceOf(mine.id)).toBe(1750);

    rival(item, 17.4, 0.2);
    const patches = hits(s.bot, PATCH);
    await s.pass();
    expect(await priceOf(mine.id)).toBe(1750);
    expect(hits(s.bot, PATCH)).toBe(patches);

    const digests = s.dms(alice).filter((m) => textOf(m).includes(mine.id));
    expect(digests).toHaveLength(1);
    const text = textOf(digests[0] as StoredMessage);
    expect(text).toContain("$20.00 → **$18.75** (rival at $19.00)");
    expect(text).toContain("$18.75 → **$17.50** (rival at $17.60); now at its floor");
    expect(text).toMatch(
      /stopped\*\* at its floor of \$17\.50: a rival listing at \$17\.40 is at or below your floor/,
    );
    expect((await s.bot.db.prisma.guard.findFirstOrThrow({ where: { subjectId: mine.id } })).status).toBe(
      "stopped",
    );

    await s.pass();
    expect(hits(s.bot, PATCH)).toBe(patches);
  });

  it("GIVEN max_changes:1 WHEN rivals undercut twice in a day THEN the listing changes once and the limit is told", async () => {
    const item = uniqueItemName("lguard-limit");
    const mine = aliceListing(item, 10, 0.3);
    await guard(alice, { listing: mine.id, floor: "5", step: "0.10", max_changes: 1 });
    rival(item, 9.5, 0.3);
    await s.pass();
    rival(item, 9, 0.3);
    await s.pass();
    expect(await priceOf(mine.id)).toBe(940);
    const told = textOf(s.dms(alice).find((m) => textOf(m).includes(mine.id)) as StoredMessage);
    expect(told).toContain("its daily limit of 1 change is used up");
  });

  it("GIVEN someone else's listing WHEN alice guards it THEN she is refused and nothing is saved", async () => {
    const item = uniqueItemName("lguard-notmine");
    const theirs = rival(item, 10, 0.3);
    const reply = await guard(alice, { listing: theirs.id, floor: "5", step: "0.10" });
    expect(textOf(reply)).toContain("only guard your own listings");
    expect(await s.bot.db.prisma.guard.count({ where: { subjectId: theirs.id } })).toBe(0);
  });

  it("GIVEN alice's listing guard WHEN bob turns it off by name THEN he is refused, AND alice can turn it off", async () => {
    const item = uniqueItemName("lguard-owner");
    const mine = aliceListing(item, 10, 0.3);
    await guard(alice, { listing: mine.id, floor: "5", step: "0.10" });
    const refused = await guard(bob, { listing: mine.id, off: true });
    expect(textOf(refused)).toContain(`You have no guard on listing ${mine.id}`);
    expect((await s.bot.db.prisma.guard.findFirstOrThrow({ where: { subjectId: mine.id } })).status).toBe(
      "active",
    );
    const off = await guard(alice, { listing: mine.id, off: true });
    expect(textOf(off)).toContain("Guard off");
    rival(item, 8, 0.3);
    await s.pass();
    expect(await priceOf(mine.id)).toBe(1000);
  });

  it("GIVEN a floor above the listing's price WHEN alice sets the guard THEN she is told why and nothing is saved", async () => {
    const mine = aliceListing(uniqueItemName("lguard-bad"), 10, 0.3);
    const reply = await guard(alice, { listing: mine.id, floor: "12", step: "0.10" });
    expect(textOf(reply)).toContain("is above the listing's price of $10.00");
    expect(await s.bot.db.prisma.guard.count({ where: { subjectId: mine.id } })).toBe(0);
  });
});

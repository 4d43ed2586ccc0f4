// A re-arm while a purchase is in flight, end to end through Discord and the sandbox: the new
// arming's buys are counted from zero as confirmed, and a purchase of the arming before that
// fails later (its answer, or the reconciler's finding days later) gives its buy back to that
// arming only, never to the new one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armRule, claimArmedMatch, settleArmedPurchase, settleAutoBuy } from "../../src/db/repos/autoBuys.ts";
import { getUserByDiscordId } from "../../src/db/repos/users.ts";
import { hitKey } from "../../src/watch/armedHits.ts";
import type { StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { answer, marketOf, textOf, type MarketView } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { armLive as armLiveAs, deliverAll, feedOnce } from "./support.ts";

/** How long the marketplace holds the first purchase: the re-arm and a whole buy happen meanwhile. */
const IN_FLIGHT_MS = 6_000;

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

const engine = () => alertEngineOf(bot);

const deliver = () => deliverAll(bot);
const feed = () => feedOnce(bot);

const dmsAbout = (user: BotUser, text: string): StoredMessage[] =>
  bot.double
    .dmsTo(user.id)
    .filter((m) => m.interactionId === undefined)
    .filter((m) => textOf(m).includes(text));

const armLive = (user: BotUser, rule: string, maxBuys: number) => armLiveAs(bot, user, rule, maxBuys);

/** The status of the user's purchase of a listing (the spending ledger's row). */
async function purchaseOf(user: BotUser, listingId: string): Promise<string | undefined> {
  const row = await bot.db.prisma.purchase.findFirst({
    where: { subjectId: listingId, user: { discordId: user.id } },
  });
  return row?.status;
}

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
  market = marketOf(bot);
  const caps = await answer(
    bot.double.slash(alice, "account settings", { per_purchase_cap: "100", daily_cap: "500" }),
  );
  expect(textOf(caps)).toContain("Settings saved");
  await feed(); // the feed's mark: listings after it are new
});

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await market?.close();
  await bot?.stop();
  expect(errors).toEqual([]);
});

describe("a re-arm while a purchase is in flight", () => {
  it("GIVEN a rule armed live for 1 buy whose purchase waits at the marketplace WHEN the user re-arms it for 2 buys, it buys one listing, and the first purchase then loses the race THEN the new arming buys one more and is disarmed: 2 buys, not 3", async () => {
    const item = uniqueItemName("rearm");
    const added = await answer(bot.double.slash(alice, "watch add", { name: "rearm", item, max_price: 30 }));
    expect(textOf(added)).toContain("Watching: rearm");
    await armLive(alice, "rearm", 1);
    const rule = await bot.db.prisma.watchRule.findFirstOrThrow({
      where: { name: "rearm", user: { discordId: alice.id } },
    });

    const slow = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "latency",
      ms: IN_FLIGHT_MS,
      times: 1,
    });
    let second;
    try {
      // The claim reserves the purchase in its statement; the request then waits at the marketplace.
      await engine().runFeedOnce();
      expect(await purchaseOf(alice, slow.id)).toBe("pending");

      await armLive(alice, "rearm", 2);
      second = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_100 });
      await engine().runFeedOnce();
      await engine().autoBuyer.outcomesQueued([hitKey(rule.id, second.id)]);
      expect(await purchaseOf(alice, second.id)).toBe("succeeded");
      // The first purchase is still in flight: the new arming bought while it was.
      expect(await purchaseOf(alice, slow.id)).toBe("pending");

      // Someone else buys the first listing before the held purchase is processed: it loses.
      await market.as(bob).buyListings({ contract_ids: [slow.id], total_price: slow.price });
      await engine().autoBuyer.idle();
    } finally {
      bot.sandbox.control.clearFaults();
    }
    await deliver();
    expect(await purchaseOf(alice, slow.id)).toBe("failed");
    expect(dmsAbout(alice, slow.id).map(textOf).join("\n")).toContain("Someone was faster");
    expect(dmsAbout(alice, second.id).map(textOf).join("\n")).toContain("1 of 2 buys used");

    const third = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_200 });
    await feed();
    expect(await purchaseOf(alice, third.id)).toBe("succeeded");
    expect(dmsAbout(alice, third.id).map(textOf).join("\n")).toContain(
      "2 of 2 buys used; the rule is now **disarmed**",
    );

    const fourth = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_300 });
    await feed();
    expect(await purchaseOf(alice, fourth.id)).toBeUndefined();
    expect(dmsAbout(alice, fourth.id).map(textOf).join("\n")).toContain("New listing");
    const after = await bot.db.prisma.watchRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect({ armMode: after.armMode, armBuys: after.armBuys }).toEqual({ armMode: null, armBuys: 2 });
  });

  it("GIVEN a purchase of a rule's first arming left unknown WHEN the rule is re-armed, buys under the new arming, and the reconciler then finds the first purchase did not go through THEN the new arming keeps its count, and a second finding gives nothing back either", async () => {
    const user = await getUserByDiscordId(bot.db.prisma, alice.id);
    if (user === null) throw new Error("alice has no row");
    const created = await bot.db.prisma.watchRule.create({
      data: { userId: user.id, name: "reconciled", filters: { item: uniqueItemName("reconciled") } },
    });
    const arm = (maxBuys: number) =>
      armRule(bot.db.prisma, {
        userId: user.id,
        ruleId: created.id,
        mode: "shadow",
        maxBuys,
        at: new Date(),
      });
    const claim = (listingId: string) =>
      claimArmedMatch(bot.db.prisma, {
        userId: user.id,
        ruleId: created.id,
        listingId,
        mode: "shadow",
        itemName: "reconciled item",
        priceCents: 1_000,
        referenceCents: undefined,
        exitCents: undefined,
        seenAt: new Date(),
      });
    const armBuys = async () =>
      (await bot.db.prisma.watchRule.findUniqueOrThrow({ where: { id: created.id } })).armBuys;

    expect(await arm(1)).toBe(true);
    const first = await claim("990000000000000001");
    if (!first.ok) throw new Error("the first arming's claim was refused");
    // Its answer was lost: the claim is kept until the reconciler finds out.
    await settleAutoBuy(bot.db.prisma, first.autoBuyId, { outcome: "unknown" });
    expect(await arm(2)).toBe(true);
    expect(await claim("990000000000000002")).toMatchObject({ ok: true, buyNumber: 1, maxBuys: 2 });

    const finding = { idempotencyKey: `auto:${created.id}:990000000000000001`, spent: false, detail: "gone" };
    expect(await settleArmedPurchase(bot.db.prisma, finding)).toBe(true);
    expect(await armBuys()).toBe(1);
    expect(await settleArmedPurchase(bot.db.prisma, finding)).toBe(false);
    expect(await armBuys()).toBe(1);
    expect(await claim("990000000000000003")).toMatchObject({ ok: true, buyNumber: 2, maxBuys: 2 });
    expect(await claim("990000000000000004")).toEqual({ ok: false, reason: "not_armed" });
  });
});

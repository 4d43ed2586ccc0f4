// Snipe mode end to end through Discord and the sandbox: armed rules buy (or, in shadow, record)
// what they match the moment the feed reads it, inside the caps, once per listing, up to max_buys.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import type { StoredMessage } from "../support/discord.ts";
import { answer, buttonId, isEphemeral, routeHits, textOf } from "../reliability/support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { armRule } from "../../src/db/repos/autoBuys.ts";
import { capsOf } from "../../src/spending/guard.ts";

const BUY = "POST /listings/buy";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

const engine = () => alertEngineOf(bot);
const balanceOf = (u: BotUser) => bot.sandbox.control.balance(u.demo.platformId).balance;
const buys = () => routeHits(bot, BUY);

/** One feed cycle, its purchases finished, its DMs delivered. */
async function feed(): Promise<void> {
  await engine().runFeedOnce();
  await engine().autoBuyer.idle();
  while ((await engine().runDeliveryOnce()).claimed > 0);
}

/** Messages the bot sent to the user outside interactions (alerts), mentioning `text`. */
const dmsAbout = (user: BotUser, text: string): StoredMessage[] =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

async function settings(user: BotUser, opts: Record<string, string>): Promise<void> {
  expect(textOf(await answer(bot.double.slash(user, "account settings", opts)))).toContain("Settings saved");
}

async function rule(user: BotUser, name: string, item: string, maxPrice: number): Promise<void> {
  const added = await answer(bot.double.slash(user, "watch add", { name, item, max_price: maxPrice }));
  expect(textOf(added)).toContain(`Watching: ${name}`);
}

async function armLive(user: BotUser, name: string, maxBuys: number): Promise<StoredMessage> {
  const quote = await answer(
    bot.double.slash(user, "watch arm", { rule: name, mode: "live", max_buys: maxBuys }),
  );
  expect(isEphemeral(quote)).toBe(true);
  const armed = await answer(bot.double.button(user, buttonId(quote, "Arm"), quote));
  expect(textOf(armed)).toContain(`Armed live: ${name}`);
  return quote;
}

/** Two listings of `item` read in one feed cycle: them and their armed matches. */
async function twoInOnePage(item: string, prices: readonly [number, number]) {
  const listings = prices.map((price) =>
    bot.sandbox.control.createListing({ market_hash_name: item, price }),
  );
  await feed();
  const matches = await bot.db.prisma.autoBuy.findMany({
    where: { listingId: { in: listings.map((l) => l.id) } },
  });
  return { listings, matches };
}

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
  await settings(alice, { per_purchase_cap: "50", daily_cap: "200" });
  await settings(bob, { per_purchase_cap: "50", daily_cap: "200" });
  // The first cycle sets the feed's mark: listings after it are new.
  await feed();
});

afterAll(async () => {
  await bot?.stop();
});

describe("snipe mode through Discord", () => {
  it("GIVEN a rule armed in shadow mode WHEN two listings match THEN nothing is bought, each DM says what would have been bought, AND /watch list shows the paper result", async () => {
    const item = uniqueItemName("shadow");
    await rule(alice, "shadow deals", item, 40);
    const armed = await answer(
      bot.double.slash(alice, "watch arm", { rule: "shadow deals", mode: "shadow", max_buys: 2 }),
    );
    expect(textOf(armed)).toContain("Armed in shadow mode");
    const before = { buys: buys(), balance: balanceOf(alice) };

    bot.sandbox.control.createListing({ market_hash_name: item, price: 3_000, reference_price: 4_000 });
    await feed();
    bot.sandbox.control.createListing({ market_hash_name: item, price: 2_500, reference_price: 4_000 });
    await feed();

    const shadows = dmsAbout(alice, "Shadow: would have bought");
    expect(shadows).toHaveLength(2);
    expect(textOf(shadows[0] as StoredMessage)).toContain("$30.00");
    expect(textOf(shadows[1] as StoredMessage)).toContain("2 of 2 shadow buys used");
    expect(textOf(shadows[1] as StoredMessage)).toContain("disarmed");
    expect(buys()).toBe(before.buys);
    expect(balanceOf(alice)).toBe(before.balance);
    expect(await bot.db.prisma.purchase.count({ where: { kind: "auto_buy" } })).toBe(0);

    // Both would have netted (4000 - 2% fee = 3920) - price: 920 + 1420 = $23.40.
    const list = await answer(bot.double.slash(alice, "watch list"));
    expect(textOf(list)).not.toContain("Armed in shadow"); // used up: disarmed
    // Disarmed after its two buys: the next match is an ordinary alert with a Buy button.
    bot.sandbox.control.createListing({ market_hash_name: item, price: 2_000, reference_price: 4_000 });
    await feed();
    const ordinary = dmsAbout(alice, item.split(" (")[0] as string).filter((m) =>
      textOf(m).includes("New listing"),
    );
    expect(ordinary).toHaveLength(1);
    expect(buys()).toBe(before.buys);
  });

  it("GIVEN a shadow rule with buys left WHEN /watch list runs THEN it shows what it would have bought and the paper result after fees", async () => {
    const item = uniqueItemName("paper");
    await rule(alice, "paper trade", item, 40);
    await answer(bot.double.slash(alice, "watch arm", { rule: "paper trade", mode: "shadow", max_buys: 5 }));
    bot.sandbox.control.createListing({ market_hash_name: item, price: 3_000, reference_price: 4_000 });
    await feed();
    const list = textOf(await answer(bot.double.slash(alice, "watch list")));
    expect(list).toContain("Armed in shadow");
    expect(list).toContain("1/5");
    // 4000 less the 2% seller fee is 3920: a $9.20 paper profit on the $30.00 buy.
    expect(list).toContain("would have bought 1 for $30.00, paper result +$9.20");
    await answer(bot.double.slash(alice, "watch disarm", { rule: "paper trade" }));
  });

  it("GIVEN /watch arm mode:live WHEN the confirmation is shown THEN nothing is armed until Arm, AND it shows the ceiling, max_buys and caps", async () => {
    const item = uniqueItemName("confirm");
    await rule(alice, "confirm me", item, 40);
    const quote = await answer(
      bot.double.slash(alice, "watch arm", { rule: "confirm me", mode: "live", max_buys: 2 }),
    );
    const text = textOf(quote);
    expect(isEphemeral(quote)).toBe(true);
    expect(text).toContain("$40.00 (the rule's max price)");
    expect(text).toContain("Max buys");
    expect(text).toContain("$80.00"); // most it can spend
    expect(text).toContain("$50.00 per purchase");
    const before = buys();
    // Not armed yet: a match is an ordinary alert, nothing is bought.
    bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await feed();
    expect(buys()).toBe(before);
    expect(
      dmsAbout(alice, "New listing").some((m) => textOf(m).includes(item.split(" (")[0] as string)),
    ).toBe(true);
    // Cancel: still not armed, and the Arm button of that confirmation arms nothing any more.
    const armId = buttonId(quote, "Arm");
    const cancelled = await answer(bot.double.button(alice, buttonId(quote, "Cancel"), quote));
    expect(textOf(cancelled)).toContain("not armed");
    const again = await answer(bot.double.button(alice, armId));
    expect(textOf(again)).toContain("already used or cancelled");
  });

  it("GIVEN a rule armed live with max_buys 1 WHEN two listings match THEN the first is bought at its exact price once, reserved with its claim, AND the rule disarms so the second only alerts", async () => {
    const item = uniqueItemName("live");
    await rule(alice, "live once", item, 40);
    await armLive(alice, "live once", 1);
    const before = { buys: buys(), balance: balanceOf(alice) };

    const first = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_234 });
    await feed();
    const bought = dmsAbout(alice, "Bought:");
    expect(bought.filter((m) => textOf(m).includes(first.id))).toHaveLength(1);
    expect(textOf(bought.at(-1) as StoredMessage)).toContain("1 of 1 buys used");
    expect(textOf(bought.at(-1) as StoredMessage)).toContain("disarmed");
    expect(buys()).toBe(before.buys + 1);
    expect(balanceOf(alice)).toBe(before.balance - 1_234);
    const purchase = await bot.db.prisma.purchase.findFirst({
      where: { kind: "auto_buy", subjectId: first.id },
    });
    expect(purchase?.status).toBe("succeeded");
    expect(Number(purchase?.totalCents)).toBe(1_234);
    // Reserved by the claim's own statement (ADR 040): one transaction, one clock reading.
    const match = await bot.db.prisma.autoBuy.findFirst({ where: { listingId: first.id } });
    expect(purchase?.createdAt.getTime()).toBe(match?.createdAt.getTime());

    const second = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_100 });
    await feed();
    expect(buys()).toBe(before.buys + 1);
    expect(dmsAbout(alice, second.id).some((m) => textOf(m).includes("New listing"))).toBe(true);

    // A re-read of the same listings (a restart before the mark moved) buys nothing again.
    await bot.db.prisma.pollerState.deleteMany({});
    await feed();
    await feed();
    expect(buys()).toBe(before.buys + 1);
  });

  it("GIVEN a rule armed live for two buys AND the marketplace slow to answer a purchase WHEN two listings it matches are read in one page THEN both purchase requests leave before either answer comes back, AND both are bought", async () => {
    const item = uniqueItemName("side by side");
    await rule(alice, "two at once", item, 40);
    await armLive(alice, "two at once", 2);
    const before = { buys: buys(), balance: balanceOf(alice) };
    const answers: number[] = [];
    const stop = bot.sandbox.control.onAnswer((route, status) => {
      if (route === BUY && status === 200) answers.push(Date.now());
    });
    // Whichever purchase arrives first is answered 1.5 s late.
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "latency",
      ms: 1_500,
      times: 1,
    });
    try {
      const { matches } = await twoInOnePage(item, [1_000, 1_200]);
      expect(matches.map((m) => m.outcome)).toEqual(["bought", "bought"]);
      const sent = matches.map((m) => m.sentAt?.getTime() ?? Number.NaN);
      expect(answers).toHaveLength(2);
      // The second request did not wait for the first one's answer.
      expect(Math.max(...sent)).toBeLessThan(Math.min(...answers));
      expect(buys()).toBe(before.buys + 2);
      expect(balanceOf(alice)).toBe(before.balance - 2_200);
    } finally {
      stop();
      bot.sandbox.control.clearFaults();
    }
  });

  it("GIVEN two users armed live AND one user's row held by another transaction WHEN one page holds a listing for each THEN the other user's purchase is sent and answered meanwhile, AND the held one buys once its row is free", async () => {
    const free = uniqueItemName("row free");
    const held = uniqueItemName("row held");
    await rule(alice, "row free", free, 40);
    await armLive(alice, "row free", 1);
    await rule(bob, "row held", held, 40);
    await armLive(bob, "row held", 1);
    const bobRow = await bot.db.prisma.user.findUniqueOrThrow({ where: { discordId: bob.id } });
    const holder = new pg.Client({ connectionString: bot.db.url });
    await holder.connect();
    let answered!: () => void;
    const aliceAnswered = new Promise<void>((resolve) => (answered = resolve));
    const stop = bot.sandbox.control.onAnswer((route, status) => {
      if (route === BUY && status === 200) answered();
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [bobRow.id]);
      const mine = bot.sandbox.control.createListing({ market_hash_name: free, price: 1_000 });
      const theirs = bot.sandbox.control.createListing({ market_hash_name: held, price: 1_100 });
      const cycle = engine().runFeedOnce();
      await Promise.race([
        aliceAnswered,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("alice's purchase waited for bob's claim")), 10_000);
        }),
      ]);
      // Bob's claim is still waiting for his row: nothing of his is recorded yet.
      expect(await bot.db.prisma.autoBuy.count({ where: { listingId: theirs.id } })).toBe(0);
      await holder.query("COMMIT");
      await cycle;
      await engine().autoBuyer.idle();
      const outcomes = await bot.db.prisma.autoBuy.findMany({
        where: { listingId: { in: [mine.id, theirs.id] } },
      });
      expect(new Map(outcomes.map((o) => [o.listingId, o.outcome]))).toEqual(
        new Map([
          [mine.id, "bought"],
          [theirs.id, "bought"],
        ]),
      );
    } finally {
      clearTimeout(timer);
      stop();
      await holder.query("ROLLBACK").catch(() => undefined);
      await holder.end();
    }
  });

  it("GIVEN a live rule and a daily cap that is nearly used WHEN a match would pass it THEN the cap refuses the auto-buy, nothing is sent, AND the DM says why", async () => {
    const item = uniqueItemName("capped");
    await settings(bob, { per_purchase_cap: "50", daily_cap: "20" });
    await rule(bob, "capped", item, 45);
    await armLive(bob, "capped", 3);
    const before = buys();
    bot.sandbox.control.createListing({ market_hash_name: item, price: 2_500 });
    await feed();
    const refused = dmsAbout(bob, "Auto-buy refused by your cap");
    expect(refused).toHaveLength(1);
    expect(textOf(refused[0] as StoredMessage)).toContain("$20.00 daily cap");
    expect(textOf(refused[0] as StoredMessage)).toContain("0 of 3 buys used; the rule stays armed");
    expect(buys()).toBe(before);
    await settings(bob, { per_purchase_cap: "50", daily_cap: "200" });
    await answer(bot.double.slash(bob, "watch disarm", { rule: "all" }));
  });

  it("GIVEN a rule armed live for two buys AND a daily cap with room for one WHEN both its matches are read in one page THEN they are bought side by side yet exactly one is bought, the other refused by the cap", async () => {
    const item = uniqueItemName("room for one");
    await rule(bob, "room for one", item, 45);
    await armLive(bob, "room for one", 2);
    const bobRow = await bot.db.prisma.user.findUniqueOrThrow({ where: { discordId: bob.id } });
    // Narrowed after arming (a later change may narrow automation, never widen it).
    const cap = (await capsOf(bot.db.prisma, bobRow.id)).committedCents + 1_500;
    await settings(bob, { per_purchase_cap: "50", daily_cap: (cap / 100).toFixed(2) });
    const before = { buys: buys(), balance: balanceOf(bob) };
    const { listings, matches: outcomes } = await twoInOnePage(item, [1_000, 1_100]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["bought", "cap_refused"]);
    expect(buys()).toBe(before.buys + 1);
    expect((await capsOf(bot.db.prisma, bobRow.id)).committedCents).toBeLessThanOrEqual(cap);
    const bought = listings.find((l) => outcomes.some((o) => o.listingId === l.id && o.outcome === "bought"));
    expect(balanceOf(bob)).toBe(before.balance - (bought?.price ?? Number.NaN));
    const refused = listings.find((l) => l.id !== bought?.id);
    expect(
      dmsAbout(bob, "Auto-buy refused by your cap").filter((m) => textOf(m).includes(refused?.id ?? "?")),
    ).toHaveLength(1);
    await settings(bob, { per_purchase_cap: "50", daily_cap: "200" });
    await answer(bot.double.slash(bob, "watch disarm", { rule: "all" }));
  });

  it("GIVEN an outcome DM WHEN its owner presses Disarm THEN the rule stops buying; another user's press is refused", async () => {
    const item = uniqueItemName("disarm");
    await rule(alice, "disarm me", item, 40);
    await armLive(alice, "disarm me", 5);
    bot.sandbox.control.createListing({ market_hash_name: item, price: 900 });
    await feed();
    const dm = dmsAbout(alice, "Bought:").find((m) => textOf(m).includes("disarm me")) as StoredMessage;
    expect(dm).toBeDefined();

    // Bob cannot see alice's DM: he presses her button's id copied onto a server message.
    const disarm = buttonId(dm, "Disarm");
    const copied = bot.double.postMessage(bot.double.channelId, {
      content: "alice's outcome DM, copied",
      components: [{ type: 1, components: [{ type: 2, style: 4, label: "Disarm", custom_id: disarm }] }],
    });
    const intruder = await answer(bot.double.button(bob, disarm, copied));
    expect(isEphemeral(intruder)).toBe(true);
    expect(textOf(intruder)).not.toContain("Disarmed");

    const disarmed = await answer(bot.double.button(alice, buttonId(dm, "Disarm"), dm));
    expect(isEphemeral(disarmed)).toBe(true);
    expect(textOf(disarmed)).toContain("Disarmed **disarm me**");
    const before = buys();
    bot.sandbox.control.createListing({ market_hash_name: item, price: 800 });
    await feed();
    expect(buys()).toBe(before);
  });

  it("GIVEN two users armed live on the same item WHEN one listing appears THEN exactly one buys it AND the other is told someone was faster", async () => {
    const item = uniqueItemName("race");
    await rule(alice, "race", item, 40);
    await rule(bob, "race", item, 40);
    await armLive(alice, "race", 1);
    await armLive(bob, "race", 1);
    const before = { buys: buys(), alice: balanceOf(alice), bob: balanceOf(bob) };
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_500 });
    await feed();

    const won = [alice, bob].filter((u) =>
      dmsAbout(u, "Bought:").some((m) => textOf(m).includes(listing.id)),
    );
    const lost = [alice, bob].filter((u) =>
      dmsAbout(u, "Someone was faster").some((m) => textOf(m).includes(listing.id)),
    );
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(won[0]?.id).not.toBe(lost[0]?.id);
    expect(buys()).toBe(before.buys + 2);
    expect(balanceOf(alice) + balanceOf(bob)).toBe(before.alice + before.bob - 1_500);
    // The loser's buy was given back: the rule stays armed for the next one.
    const loserDm = dmsAbout(lost[0] as BotUser, "Someone was faster")[0] as StoredMessage;
    expect(textOf(loserDm)).toContain("0 of 1 buys used; the rule stays armed");
    await answer(bot.double.slash(alice, "watch disarm", { rule: "all" }));
    await answer(bot.double.slash(bob, "watch disarm", { rule: "all" }));
  });

  it("GIVEN a live rule WHEN the purchase's answer is lost (502) THEN it is not retried, stays counted as unknown, AND the reconciler later tells the user it did not go through", async () => {
    const item = uniqueItemName("lost");
    await rule(alice, "lost answer", item, 40);
    await armLive(alice, "lost answer", 3);
    const before = buys();
    bot.sandbox.control.injectFault({
      method: "POST",
      path: "/listings/buy",
      kind: "status",
      status: 502,
      times: 1,
    });
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 700 });
    await feed();
    const unknown = dmsAbout(alice, "Auto-buy outcome not known yet").filter((m) =>
      textOf(m).includes(listing.id),
    );
    expect(unknown).toHaveLength(1);
    // The unknown buy keeps its place: it may have gone through.
    expect(textOf(unknown[0] as StoredMessage)).toContain("1 of 3 buys used");
    expect(buys()).toBe(before + 1);
    const commitment = await bot.db.prisma.purchase.findFirst({
      where: { kind: "auto_buy", subjectId: listing.id },
    });
    expect(commitment?.status).toBe("unknown");

    // Later: the listing is still for sale, so the purchase never landed; the user is told.
    await bot.db.prisma.purchase.update({
      where: { id: commitment?.id ?? -1 },
      data: { createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    await engine().runReconcileOnce();
    while ((await engine().runDeliveryOnce()).claimed > 0);
    const settled = await bot.db.prisma.purchase.findUnique({ where: { id: commitment?.id ?? -1 } });
    expect(settled?.status).toBe("failed");
    expect(dmsAbout(alice, listing.id).some((m) => /did not go through/i.test(textOf(m)))).toBe(true);
    // The match learns it, and the buy that never landed no longer counts against max_buys.
    const match = await bot.db.prisma.autoBuy.findFirst({ where: { listingId: listing.id } });
    expect(match?.outcome).toBe("lost");
    expect(textOf(await answer(bot.double.slash(alice, "watch list")))).toContain("0/3 buys used");
    expect(buys()).toBe(before + 1);
    await answer(bot.double.slash(alice, "watch disarm", { rule: "all" }));
  });

  it("GIVEN a rule armed by another process (straight in the database) WHEN the next cycle reads a listing it matches THEN it is acted on once, AND its one buy disarms it", async () => {
    const item = uniqueItemName("armed elsewhere");
    await rule(alice, "armed elsewhere", item, 40);
    const row = await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name: "armed elsewhere" } });
    // Another replica arms it: this process learns of it from its rule sync, which keeps the
    // armed index (what the snipe pass matches against) in step.
    const at = new Date();
    expect(
      await armRule(bot.db.prisma, { userId: row.userId, ruleId: row.id, mode: "shadow", maxBuys: 1, at }),
    ).toBe(true);
    const before = dmsAbout(alice, "Shadow: would have bought").length;
    bot.sandbox.control.createListing({ market_hash_name: item, price: 3_000, reference_price: 4_000 });
    await feed();
    expect(dmsAbout(alice, "Shadow: would have bought")).toHaveLength(before + 1);
    // Its one buy is used: the rule disarmed itself (a later test counts armed rules).
    const after = await bot.db.prisma.watchRule.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.armMode).toBeNull();
  });

  it("GIVEN no daily cap WHEN arming live THEN it is refused with the way to set one; bad input changes nothing", async () => {
    const item = uniqueItemName("nocap");
    await rule(bob, "no cap", item, 40);
    await settings(bob, { daily_cap: "off" });
    const refused = await answer(bot.double.slash(bob, "watch arm", { rule: "no cap", mode: "live" }));
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("needs a daily cap");
    const unknown = await answer(bot.double.slash(bob, "watch arm", { rule: "nope", mode: "shadow" }));
    expect(textOf(unknown)).toContain('no watch rule named or numbered "nope"');
    await settings(bob, { daily_cap: "200" });
    const rows = await bot.db.prisma.watchRule.count({ where: { armMode: { not: null } } });
    expect(rows).toBe(0);
  });

  it("GIVEN no linked key WHEN arming live THEN it is refused with the way to link one, while shadow mode needs none", async () => {
    const item = uniqueItemName("nokey");
    await rule(bob, "no key", item, 40);
    expect(textOf(await bot.double.slash(bob, "account unlink").finalMessage())).toContain("Unlinked");
    const refused = await answer(bot.double.slash(bob, "watch arm", { rule: "no key", mode: "live" }));
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("link it first with /account link");
    expect(
      textOf(await answer(bot.double.slash(bob, "watch arm", { rule: "no key", mode: "shadow" }))),
    ).toContain("Armed in shadow mode");
    expect(await bot.db.prisma.watchRule.count({ where: { armMode: "live" } })).toBe(0);
    await answer(bot.double.slash(bob, "watch disarm", { rule: "all" }));
    await bot.link(bob);
  });
});

// /account export and /account delete end to end: the real bot against the Discord double, the
// sandbox marketplace and Postgres, with the alert engine's cycles driven by the test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privacyLine } from "../../commands/help.ts";
import { getUserByDiscordId } from "../../src/db/repos/users.ts";
import { uniqueItemName, waitUntil } from "../alerts/engine/world.ts";
import { traces } from "../privacy/catalogue.ts";
import { answer, buttonId, isEphemeral, routeHits, textOf } from "../reliability/support.ts";
import type { StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";

const POLICY_URL = "https://bot.example.org/privacy";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

const engine = () => alertEngineOf(bot);
const buys = () => routeHits(bot, "POST /listings/buy");
const balanceOf = (u: BotUser) => bot.sandbox.control.balance(u.demo.platformId).balance;
/** Messages sent to the user outside any interaction: alerts. */
const alertsTo = (u: BotUser): StoredMessage[] =>
  bot.double.dmsTo(u.id).filter((m) => m.interactionId === undefined);

/** One feed cycle, its purchases finished, its DMs delivered. */
async function feed(): Promise<void> {
  await engine().runFeedOnce();
  await engine().autoBuyer.idle();
  await deliver();
}

async function deliver(): Promise<void> {
  while ((await engine().runDeliveryOnce()).claimed > 0);
}

async function setUp(user: BotUser): Promise<void> {
  await bot.link(user);
  const saved = await answer(
    bot.double.slash(user, "account settings", { per_purchase_cap: "50", daily_cap: "200" }),
  );
  expect(textOf(saved)).toContain("Settings saved");
}

async function rule(user: BotUser, name: string, item: string): Promise<void> {
  const added = await answer(bot.double.slash(user, "watch add", { name, item, max_price: 40 }));
  expect(textOf(added)).toContain(`Watching: ${name}`);
}

async function armLive(user: BotUser, name: string): Promise<void> {
  const quote = await answer(bot.double.slash(user, "watch arm", { rule: name, mode: "live", max_buys: 3 }));
  const armed = await answer(bot.double.button(user, buttonId(quote, "Arm"), quote));
  expect(textOf(armed)).toContain(`Armed live: ${name}`);
}

async function identity(user: BotUser) {
  const row = await getUserByDiscordId(bot.db.prisma, user.id);
  if (!row) throw new Error(`${user.username} has no row`);
  return { userId: row.id, discordId: user.id, platformId: user.demo.platformId };
}

/** /account delete, then the Delete everything button; resolves with both messages. */
async function deleteAccount(user: BotUser): Promise<{ asked: string; done: StoredMessage }> {
  const confirm = await answer(bot.double.slash(user, "account delete"));
  // The button edits the confirmation in place: read it first.
  const asked = textOf(confirm);
  const done = await answer(bot.double.button(user, buttonId(confirm, "Delete everything"), confirm));
  return { asked, done };
}

beforeAll(async () => {
  bot = await startQuietBot([], { env: { PRIVACY_POLICY_URL: POLICY_URL } });
  ({ alice, bob } = bot.users);
  await setUp(alice);
  await setUp(bob);
  // The first cycle sets the feed's mark: listings after it are new.
  await feed();
});

afterAll(async () => {
  await bot?.stop();
});

describe("/help on privacy", () => {
  it("GIVEN a published policy address WHEN /help is asked THEN it links the policy and names export and delete", async () => {
    const text = textOf(await answer(bot.double.slash(alice, "help")));
    expect(text).toContain(`[privacy policy](${POLICY_URL})`);
    expect(text).toContain("`/account export`");
    expect(text).toContain("`/account delete`");
    expect(text).toMatch(/`\/account` — .*\(link, unlink, status, transactions, settings, export, delete\)/);
  });

  it("GIVEN no published address WHEN the help line is made THEN it points to PRIVACY.md", () => {
    expect(privacyLine(undefined)).toContain("PRIVACY.md");
    expect(privacyLine(undefined)).not.toContain("](");
  });
});

describe("/account export through Discord", () => {
  it("GIVEN alice linked with a watch rule WHEN she exports THEN a private reply carries a JSON file of her data, the key only as how it ends", async () => {
    const item = uniqueItemName("export");
    await rule(alice, "export me", item);
    const reply = await answer(bot.double.slash(alice, "account export"));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain("Everything stored about you");
    const file = reply.attachments.find((a) => a.filename === "account-export.json");
    expect(file).toBeDefined();
    const doc = JSON.parse(file?.data.toString("utf8") ?? "{}") as {
      discordId: string;
      account: { key: string; platformId: string; perPurchaseCapCents: number };
      watchRules: { name: string }[];
    };
    expect(doc.discordId).toBe(alice.id);
    expect(doc.account.key).toBe(`linked, ends in …${alice.demo.apiKey.slice(-4)}`);
    expect(doc.account.platformId).toBe(alice.demo.platformId);
    expect(doc.account.perPurchaseCapCents).toBe(5_000);
    expect(doc.watchRules.map((r) => r.name)).toContain("export me");
    const sentToDiscord = bot.double.requests.map((r) => r.rawBody).join("\n");
    expect(sentToDiscord).not.toContain(alice.demo.apiKey);
  });
});

describe("/account delete through Discord", () => {
  it("GIVEN alice's confirmation WHEN bob presses its Delete everything (the id copied) or alice presses Cancel THEN nothing is deleted", async () => {
    const confirm = await answer(bot.double.slash(alice, "account delete"));
    expect(isEphemeral(confirm)).toBe(true);
    const stolen = await answer(bot.double.button(bob, buttonId(confirm, "Delete everything")));
    expect(isEphemeral(stolen)).toBe(true);
    expect(textOf(stolen)).toContain("This isn't yours");
    expect(await getUserByDiscordId(bot.db.prisma, alice.id)).not.toBeNull();
    expect(await getUserByDiscordId(bot.db.prisma, bob.id)).not.toBeNull();
    const cancelled = await answer(bot.double.button(alice, buttonId(confirm, "Cancel"), confirm));
    expect(textOf(cancelled)).toContain("nothing was deleted");
    expect(await getUserByDiscordId(bot.db.prisma, alice.id)).not.toBeNull();
    expect(await bot.db.prisma.watchRule.count({ where: { user: { discordId: alice.id } } })).toBe(1);
  });

  it("GIVEN a live-armed rule the running engine has loaded and an alert queued for her WHEN alice deletes THEN she is in no table, the queued alert never comes, and the next matching listing is neither bought nor alerted to her while bob's alert of the same cycle arrives", async () => {
    const item = uniqueItemName("erase");
    await rule(alice, "erase armed", item);
    await armLive(alice, "erase armed");
    await rule(bob, "bob too", item);
    // An alert queued for alice (and bob) but not delivered yet; the cycle also loads her armed rule.
    await rule(alice, "queued", uniqueItemName("queued"));
    const queuedItem = (
      await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name: "queued" }, select: { filters: true } })
    ).filters as { item?: string };
    bot.sandbox.control.createListing({ market_hash_name: String(queuedItem.item), price: 900 });
    await engine().runFeedOnce();
    const who = await identity(alice);
    expect(await bot.db.prisma.outbox.count({ where: { userId: who.userId, status: "pending" } })).toBe(1);

    const { asked, done } = await deleteAccount(alice);
    expect(asked).toContain("Delete everything the bot stores about you?");
    expect(asked).toContain("1 armed watch rule(s) are disarmed");
    expect(asked).toContain("1 alert(s) waiting to be sent are dropped");
    expect(asked).toContain("3 watch rules");
    expect(textOf(done)).toContain("Everything stored about you is gone");
    expect(textOf(done)).toContain("1 armed rule(s) disarmed");
    expect(await traces(bot.db.pool, who)).toEqual([]);

    const alertsBefore = alertsTo(alice).length;
    const before = { buys: buys(), balance: balanceOf(alice), bobAlerts: alertsTo(bob).length };
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await deliver();
    await feed();
    await feed();

    expect(alertsTo(alice)).toHaveLength(alertsBefore);
    expect(buys()).toBe(before.buys);
    expect(balanceOf(alice)).toBe(before.balance);
    expect(
      alertsTo(bob)
        .slice(before.bobAlerts)
        .some((m) => textOf(m).includes(listing.id)),
    ).toBe(true);
    expect(await traces(bot.db.pool, who)).toEqual([]);
    expect(bot.errorLogs()).toEqual([]);
  });

  it("GIVEN alice deleted WHEN she presses the old button again or asks again THEN she is told nothing is stored, and nothing is created for her", async () => {
    const again = await answer(bot.double.slash(alice, "account delete"));
    expect(textOf(again)).toContain("Nothing is stored about you");
    const exported = await answer(bot.double.slash(alice, "account export"));
    expect(textOf(exported)).toContain("nothing to export");
    expect(exported.attachments).toEqual([]);
    expect(await getUserByDiscordId(bot.db.prisma, alice.id)).toBeNull();
  });

  it("GIVEN a feed cycle in flight with a listing her armed rule matches WHEN alice deletes at the same moment THEN nothing fails, nothing of hers is left, and nothing reaches her after the answer", async () => {
    await setUp(alice);
    const item = uniqueItemName("race");
    await rule(alice, "race armed", item);
    await armLive(alice, "race armed");
    await rule(bob, "race bob", item);
    await feed(); // the engine's index now holds her armed rule
    const who = await identity(alice);
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_500 });
    bot.sandbox.control.injectFault({ path: "/listings", kind: "latency", ms: 300, times: 1 });

    const [, deleted] = await Promise.all([
      engine()
        .runFeedOnce()
        .then(() => engine().autoBuyer.idle()),
      deleteAccount(alice),
    ]);
    expect(textOf(deleted.done)).toContain("Everything stored about you is gone");
    const alertsAtAnswer = alertsTo(alice).length;
    await deliver();
    await feed();

    expect(alertsTo(alice)).toHaveLength(alertsAtAnswer);
    expect(await traces(bot.db.pool, who)).toEqual([]);
    expect(alertsTo(bob).some((m) => textOf(m).includes(listing.id))).toBe(true);
    expect(bot.errorLogs()).toEqual([]);
  });

  it("GIVEN an armed purchase already sent to the marketplace WHEN alice deletes before its answer THEN the delete waits for the answer, then erases everything, nothing fails, and no word of it reaches her", async () => {
    await setUp(alice);
    const item = uniqueItemName("inflight");
    await rule(alice, "inflight armed", item);
    await armLive(alice, "inflight armed");
    await feed();
    const who = await identity(alice);
    const buysBefore = routeHits(bot, "POST /listings/buy");
    bot.sandbox.control.injectFault({ path: "/listings/buy", kind: "latency", ms: 1_500, times: 1 });
    bot.sandbox.control.createListing({ market_hash_name: item, price: 1_200 });

    const cycle = engine()
      .runFeedOnce()
      .then(() => engine().autoBuyer.idle());
    // Its commitment is reserved just before the request leaves; the request then waits 1.5 s.
    await waitUntil(
      async () =>
        (await bot.db.prisma.purchase.count({
          where: { userId: who.userId, kind: "auto_buy", status: "pending" },
        })) > 0,
      10_000,
      "the armed purchase to leave",
    );
    const { done } = await deleteAccount(alice);
    expect(textOf(done)).toContain("Everything stored about you is gone");
    // The delete waited for the purchase's answer: it is the last thing that happened for her.
    expect(routeHits(bot, "POST /listings/buy")).toBe(buysBefore + 1);
    expect(textOf(done)).toContain("1 armed rule(s) disarmed");
    const alertsAtAnswer = alertsTo(alice).length;
    await cycle;
    await deliver();
    expect(routeHits(bot, "POST /listings/buy")).toBe(buysBefore + 1);

    expect(alertsTo(alice)).toHaveLength(alertsAtAnswer);
    expect(await traces(bot.db.pool, who)).toEqual([]);
    expect(bot.errorLogs()).toEqual([]);
  });
});

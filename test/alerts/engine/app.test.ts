// The alert engine inside the real app: /watch through Discord, alerts by DM or channel, trade alert buttons.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type InteractionHandle, type StoredMessage } from "../../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../../support/harness.ts";
import { uniqueItemName, waitUntil } from "./world.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  bot = await startBot({
    env: {
      POLL_INTERVAL_MS: "400",
      BID_POLL_INTERVAL_MS: "500",
      TRADE_POLL_INTERVAL_MS: "500",
      MAX_RULES_PER_USER: "4",
    },
  });
  ({ alice, bob } = bot.users);
  await bot.link(alice);
});

afterAll(async () => {
  await bot?.stop();
});

const engine = () => alertEngineOf(bot);

/** What the user reads once the interaction is answered (reply, edited deferral or follow-up). */
function answer(h: InteractionHandle): Promise<StoredMessage> {
  return h.waitFor((s) => {
    const first = s.responses[0];
    if (!first) return undefined;
    const last = s.followUps.at(-1);
    if (last) return last;
    if (!s.original || s.original.loading) return undefined;
    return s.original;
  }, 10_000);
}

function buttonIdOn(m: StoredMessage, label: string): string {
  const found = JSON.stringify(m.components).match(
    new RegExp(`"label":"${label}"[^}]*"custom_id":"([^"]+)"|"custom_id":"([^"]+)"[^}]*"label":"${label}"`),
  );
  const id = found?.[1] ?? found?.[2];
  if (id === undefined) throw new Error(`no "${label}" button on the message`);
  return id;
}

/** Alert DMs (not interaction replies, which in a DM land in the same channel) mentioning `text`. */
const dmsAbout = (user: BotUser, text: string) =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

/** Waits for `probe`; on time-out the error carries what the engine and the outbox looked like. */
async function waitFor(probe: () => boolean, what: string): Promise<void> {
  try {
    await waitUntil(probe, 10_000, what);
  } catch (error) {
    const outbox = await bot.db.prisma.outbox.findMany({
      select: { id: true, status: true, lastError: true, attempts: true },
    });
    const alerts = await bot.db.prisma.alertLog.findMany({ select: { dedupeKey: true } });
    const { feed, delivery, leader, rules } = engine().stats();
    const logs = bot.logs.filter((l) => l.level >= 40).map((l) => `${l.module ?? ""} ${l.msg}`);
    throw new Error(
      `${(error as Error).message}\n${JSON.stringify({ leader, rules, feed, delivery, alerts, outbox, logs }, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`,
    );
  }
}

describe("alerts in the app", () => {
  it("GIVEN /watch add WHEN a matching listing appears THEN the user gets one DM with Buy and View", async () => {
    // Leading, and past the first run (which sets the mark to the newest listing without alerting).
    await waitUntil(
      () => engine().stats().leader && engine().stats().feed.mark !== undefined,
      10_000,
      "the feed to start",
    );
    const item = uniqueItemName("app");
    const added = await answer(
      bot.double.slash(alice, "watch add", { name: "app deal", item, max_price: 30 }),
    );
    expect(textOf(added)).toContain("Watching");
    expect(textOf(added)).toContain("≤ $30.00");

    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 2_500 });
    bot.sandbox.control.createListing({ market_hash_name: item, price: 3_500 });
    await waitFor(() => dmsAbout(alice, `Listing ${listing.id}`).length > 0, "the alert DM");
    await engine().runFeedOnce();
    await engine().runDeliveryOnce();

    const dms = dmsAbout(alice, item.split(" (")[0] as string);
    expect(dms).toHaveLength(1);
    expect(buttonIdOn(dms[0] as StoredMessage, "Buy")).toBe(`buy:${listing.id}:${alice.id}`);
    expect(buttonIdOn(dms[0] as StoredMessage, "View")).toBe(`alert.view:${listing.id}:${alice.id}`);

    const view = await answer(bot.double.button(alice, `alert.view:${listing.id}:${alice.id}`, dms[0]));
    expect(textOf(view)).toContain("$25.00");
  });

  it("GIVEN a user the bot has never DMed WHEN they save a watch rule THEN their DM channel is opened and kept at once, without a message, and their first alert is one request to Discord", async () => {
    await waitUntil(
      () => engine().stats().leader && engine().stats().feed.mark !== undefined,
      10_000,
      "the feed to start",
    );
    const kept = async () =>
      (await bot.db.prisma.user.findFirst({ where: { discordId: bob.id }, select: { dmChannelId: true } }))
        ?.dmChannelId ?? null;
    expect(await kept()).toBeNull();
    try {
      const item = uniqueItemName("first");
      const added = await answer(bot.double.slash(bob, "watch add", { name: "first deal", item }));
      expect(textOf(added)).toContain("Watching");
      await waitUntil(async () => (await kept()) !== null, 10_000, "the DM channel to be kept");
      expect(await kept()).toBe(bot.double.dmChannelOf(bob.id));
      expect(bot.double.dmsTo(bob.id).filter((m) => m.interactionId === undefined)).toEqual([]);

      const channel = await kept();
      const from = bot.double.requests.length;
      const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_900 });
      const alerts = () =>
        bot.double
          .dmsTo(bob.id)
          .filter((m) => m.interactionId === undefined && textOf(m).includes(`Listing ${listing.id}`));
      await waitFor(() => alerts().length > 0, "the alert DM");
      const made = bot.double.requests.slice(from).map((r) => `${r.method} ${r.path}`);
      expect(made.filter((r) => r === "POST /users/@me/channels")).toEqual([]);
      expect(made.filter((r) => r === `POST /channels/${channel ?? "?"}/messages`)).toHaveLength(1);
    } finally {
      // The per-user cap test below counts bob's rules from none.
      await bot.db.prisma.watchRule.deleteMany({ where: { user: { discordId: bob.id } } });
    }
  });

  it("GIVEN a paused rule WHEN listings appear THEN no alert AND after resume the next one alerts", async () => {
    const item = uniqueItemName("pause");
    await answer(bot.double.slash(alice, "watch add", { name: "pausable", item }));
    const paused = await answer(bot.double.slash(alice, "watch pause", { name: "pausable" }));
    expect(textOf(paused)).toContain("Paused");

    const during = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await engine().runFeedOnce();
    await engine().runDeliveryOnce();
    expect(dmsAbout(alice, `Listing ${during.id}`)).toHaveLength(0);

    await answer(bot.double.slash(alice, "watch resume", { name: "pausable" }));
    const after = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await waitFor(() => dmsAbout(alice, `Listing ${after.id}`).length > 0, "the alert after resume");
    expect(dmsAbout(alice, `Listing ${during.id}`)).toHaveLength(0);

    const list = await answer(bot.double.slash(alice, "watch list"));
    expect(textOf(list)).toContain("pausable");
    const removed = await answer(bot.double.slash(alice, "watch remove", { name: "pausable" }));
    expect(textOf(removed)).toContain("Removed");
    expect(await bot.db.prisma.watchRule.count({ where: { name: "pausable" } })).toBe(0);
  });

  it("GIVEN /watch test WHEN recent listings match THEN they are listed AND nothing is alerted", async () => {
    const item = uniqueItemName("dryrun");
    const old = bot.sandbox.control.createListing({ market_hash_name: item, price: 777 });
    await engine().runFeedOnce(); // seen before the rule existed: never alerted
    await answer(bot.double.slash(alice, "watch add", { name: "dry", item }));
    const alertsBefore = await bot.db.prisma.alertLog.count();

    const result = await answer(bot.double.slash(alice, "watch test", { name: "dry" }));

    expect(textOf(result)).toContain(old.id);
    expect(textOf(result)).toContain("no alert was sent");
    expect(await bot.db.prisma.alertLog.count()).toBe(alertsBefore);
    expect(dmsAbout(alice, `Listing ${old.id}`)).toHaveLength(0);
    await answer(bot.double.slash(alice, "watch remove", { name: "dry" }));
  });

  it("GIVEN a channel destination WHEN the user lacks Manage Channels THEN it is refused, AND a moderator's rule posts there", async () => {
    const item = uniqueItemName("channel");
    const refused = await answer(
      bot.double.slash(bob, "watch add", { name: "bob chan", item, channel: bot.double.channelId }),
    );
    expect(textOf(refused)).toContain("Manage Channels");
    expect(await bot.db.prisma.watchRule.count({ where: { name: "bob chan" } })).toBe(0);

    const ok = await answer(
      bot.double.slash(alice, "watch add", { name: "alice chan", item, channel: bot.double.channelId }),
    );
    expect(textOf(ok)).toContain(`<#${bot.double.channelId}>`);
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_100 });
    await waitFor(
      () =>
        bot.double.messagesIn(bot.double.channelId).some((m) => textOf(m).includes(`Listing ${listing.id}`)),
      "the channel alert",
    );
    expect(dmsAbout(alice, `Listing ${listing.id}`)).toHaveLength(0);
    await answer(bot.double.slash(alice, "watch remove", { name: "alice chan" }));
  });

  it("GIVEN the per-user cap WHEN one more rule is added THEN it is refused clearly; bad filters name the option", async () => {
    const badRange = await answer(
      bot.double.slash(bob, "watch add", { name: "bad", min_float: 0.5, max_float: 0.1 }),
    );
    expect(textOf(badRange)).toContain("min_float");
    for (let i = 0; i < 4; i++) {
      const ok = await answer(
        bot.double.slash(bob, "watch add", { name: `cap ${i}`, item: uniqueItemName(`cap${i}`) }),
      );
      expect(textOf(ok)).toContain("Watching");
    }
    const over = await answer(
      bot.double.slash(bob, "watch add", { name: "cap 5", item: uniqueItemName("cap5") }),
    );
    expect(textOf(over)).toContain("most watch rules allowed (4)");
    expect(await bot.db.prisma.watchRule.count({ where: { user: { discordId: bob.id } } })).toBe(4);
  });

  it("GIVEN a sale waiting on the user WHEN they press Accept on the DM THEN the trade is accepted upstream", async () => {
    const trade = bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
    await waitFor(() => dmsAbout(alice, `Trade ${trade.id}`).length > 0, "the trade DM");
    const [dm] = dmsAbout(alice, `Trade ${trade.id}`);
    if (dm === undefined) throw new Error("no trade DM");
    expect(textOf(dm)).toMatch(/<t:\d+:R>/);

    const accepted = await answer(bot.double.button(alice, buttonIdOn(dm, "Accept"), dm));

    expect(textOf(accepted).toLowerCase()).toContain("accepted");
    const upstream = await bot.app.market.forKey(alice.demo.apiKey).getTrade(trade.id);
    expect(upstream.state).toBe("pending");
    // The change is told once more (now: send the item), not repeated.
    await waitFor(() => dmsAbout(alice, `Trade ${trade.id}`).length >= 2, "the state change DM");
    await engine().runTradesOnce();
    await engine().runDeliveryOnce();
    expect(dmsAbout(alice, `Trade ${trade.id}`)).toHaveLength(2);
  });
  it("GIVEN recent listings and saved rules WHEN typing in /watch options THEN autocomplete offers market item names and the user's rule names", async () => {
    const item = uniqueItemName("suggest");
    bot.sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await answer(bot.double.slash(alice, "watch add", { name: "suggest me", item }));

    const items = await bot.double
      .autocomplete(alice, "watch add", { name: "x", item: "suggest" }, "item")
      .firstResponse();
    const names = await bot.double
      .autocomplete(alice, "watch remove", { name: "sugg" }, "name")
      .firstResponse();

    const values = (r: { data: Record<string, unknown> | undefined }) =>
      ((r.data?.choices ?? []) as Array<{ value: string }>).map((c) => c.value);
    expect(values(items)).toContain(item);
    expect(values(names)).toEqual(["suggest me"]);
    await answer(bot.double.slash(alice, "watch remove", { name: "suggest me" }));
  });

  it("GIVEN a user whose DMs are closed WHEN an alert cannot be delivered THEN /alerts recent still shows it", async () => {
    const item = uniqueItemName("recent");
    await answer(bot.double.slash(alice, "watch add", { name: "recent", item }));
    const { id: userId } = await bot.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } });
    bot.double.closeDms(alice.id);
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 4_200 });
    await waitUntil(
      async () => (await bot.db.prisma.outbox.count({ where: { userId, status: "failed" } })) > 0,
      10_000,
      "the failed delivery",
    );
    bot.double.openDms(alice.id);

    const recent = await answer(bot.double.slash(alice, "alerts recent"));

    expect(textOf(recent)).toContain(listing.id);
    expect(textOf(recent)).toContain("failed");
    expect(textOf(recent)).toContain("DMs were closed");
  });
});

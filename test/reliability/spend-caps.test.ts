// Spend caps across every path that commits money, end to end through Discord: buy orders, offers
// and bids all count, concurrently, and a commitment lost in a crash is found out after a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reserveSpend } from "../../src/db/repos/purchases.ts";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { answer, buttonId, isEphemeral, routeHits, textOf, until } from "./support.ts";

const tally = reliabilityTally(
  "spend-caps",
  "Spend caps on every path (money and keys, item 1-2)",
  import.meta.url,
);

let bot: Bot;
let alice: BotUser;

const SENDS = ["POST /listings/buy", "POST /listings/{listing_id}/bid", "POST /offers", "POST /buy-orders"];
const sent = () => SENDS.reduce((n, r) => n + routeHits(bot, r), 0);

beforeAll(async () => {
  bot = await startQuietBot(["alice"]);
  alice = bot.users.alice;
  const caps = await answer(
    bot.double.slash(alice, "account settings", { per_purchase_cap: "10", daily_cap: "10" }),
  );
  expect(textOf(caps)).toContain("Settings saved");
});

afterAll(async () => {
  await bot?.stop();
});

describe("spend caps through Discord", () => {
  it("GIVEN caps of $10 a purchase and $10 a day WHEN alice orders 50 items at $40, offers $550 and places two $9.99 bids THEN only the first bid reaches the marketplace", async () => {
    const before = sent();
    const name = bot.sandbox.control.createListing({ price: 5_000 }).item.market_hash_name;

    const order = await answer(
      bot.double.slash(alice, "buyorder create", { item: name, max_price: "40", quantity: 50 }),
    );
    expect(isEphemeral(order)).toBe(true);
    expect(textOf(order)).toContain("This buy order commits $2,000.00 ($40.00 per item)");
    expect(textOf(order)).toContain("per-purchase cap of $10.00");

    const listing = bot.sandbox.control.createListing({
      type: "buy_now",
      price: 60_000,
      max_offer_discount: 5_000,
    });
    const offer = await answer(bot.double.slash(alice, "offer make", { listing: listing.id, price: "550" }));
    expect(textOf(offer)).toContain("An offer of $550.00");

    const [a1, a2] = [1, 2].map(() =>
      bot.sandbox.control.createListing({ type: "auction", reserve_price: 500 }),
    );
    const first = await answer(bot.double.slash(alice, "bid", { listing: a1?.id ?? "", max_price: "9.99" }));
    expect(textOf(first)).toContain("You are the top bidder");
    const second = await answer(bot.double.slash(alice, "bid", { listing: a2?.id ?? "", max_price: "9.99" }));
    expect(textOf(second)).toContain("only $0.01 of your $10.00 daily cap is left");

    expect(sent() - before).toBe(1);
    tally.add("money scenarios", 4);
    tally.add("over-cap attempts that reached the marketplace", sent() - before - 1);
  });

  it("GIVEN room for one more $9.99 WHEN the confirmation of a buy order and three more bids race THEN at most one commits", async () => {
    // The first bid is lost (outbid): its $9.99 is released, leaving room for exactly one more.
    const standing = await bot.db.prisma.purchase.findFirst({ where: { kind: "bid", status: "open" } });
    bot.sandbox.control.placeCompetingBid(standing?.subjectId ?? "", 5_000);
    await alertEngineOf(bot).runBidsOnce();
    const name = bot.sandbox.control.createListing({ price: 5_000 }).item.market_hash_name;
    const quote = await answer(
      bot.double.slash(alice, "buyorder create", { item: name, max_price: "9.99", quantity: 1 }),
    );
    expect(textOf(quote)).toContain("Total exposure");
    expect(textOf(quote)).toContain("$10.00 left today");
    const before = sent();

    const auctions = [1, 2, 3].map(() =>
      bot.sandbox.control.createListing({ type: "auction", reserve_price: 500 }),
    );
    const answers = await Promise.all([
      answer(bot.double.button(alice, buttonId(quote, "Place order"), quote)),
      ...auctions.map((a) => answer(bot.double.slash(alice, "bid", { listing: a.id, max_price: "9.99" }))),
    ]);

    const committed = sent() - before;
    expect(committed).toBe(1);
    expect(answers.filter((a) => /daily cap/.test(textOf(a)))).toHaveLength(3);
    tally.add("concurrent attempts across paths", answers.length);
    tally.add("commitments past a cap", committed - 1);
  });

  it("GIVEN a purchase left pending by a crash WHEN the bot starts again THEN it is found out and alice is told", async () => {
    const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 700 });
    const user = await bot.db.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } });
    await bot.db.prisma.user.update({ where: { id: user.id }, data: { dailyCapCents: 100_000 } });
    // The crash: reserved, never sent, never recorded.
    const reserved = await reserveSpend(bot.db.prisma, {
      userId: user.id,
      idempotencyKey: "crash-left-pending",
      listingIds: [listing.id],
      totalCents: 700,
    });
    if (!reserved.ok) throw new Error(reserved.reason);
    await bot.db.prisma.purchase.update({
      where: { id: reserved.purchase.id },
      data: { createdAt: new Date(Date.now() - 10 * 60_000) },
    });

    bot = await bot.restart({ env: { POLL_INTERVAL_MS: "3600000", TRADE_POLL_INTERVAL_MS: "3600000" } });
    await until(
      async () =>
        (await bot.db.prisma.purchase.findUniqueOrThrow({ where: { id: reserved.purchase.id } })).status ===
        "failed",
      "the reconciler to settle the crash-left purchase",
    );
    await alertEngineOf(bot).runDeliveryOnce();
    await until(
      () =>
        Promise.resolve(bot.double.dmsTo(alice.id).some((m) => textOf(m).includes(`listing ${listing.id}`))),
      "the DM telling alice",
    );
    const dm = bot.double.dmsTo(alice.id).find((m) => textOf(m).includes(`listing ${listing.id}`));
    expect(textOf(dm ?? ({ content: "", embeds: [] } as never))).toContain("did not go through");
    tally.add("crash-left commitments settled after a restart", 1);
  });
});

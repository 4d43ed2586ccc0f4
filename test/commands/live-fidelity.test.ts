// Against a marketplace that answers the way the live service does (docs/live-service.md): the bid reply
// without a price, ledger fees as strings, odd and unreadable listings in the feed, keyless reads
// refused. Driven through Discord, as a user would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type StoredMessage } from "../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../support/harness.ts";
import { uniqueItemName, waitUntil } from "../alerts/engine/world.ts";
import { answer, buttonId, isEphemeral } from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  // The loops run slowly; the test drives each cycle itself.
  bot = await startBot({
    env: { POLL_INTERVAL_MS: "60000", BID_POLL_INTERVAL_MS: "60000", TRADE_POLL_INTERVAL_MS: "60000" },
  });
  ({ alice, bob } = bot.users);
});

afterAll(async () => {
  await bot?.stop();
});

const engine = () => alertEngineOf(bot);

/** Alert DMs (not interaction replies) to `user` mentioning `text`. */
const dmsAbout = (user: BotUser, text: string): StoredMessage[] =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

async function deliver(): Promise<void> {
  await engine().runDeliveryOnce();
}

describe("live fidelity through Discord", () => {
  it("GIVEN the marketplace refuses keyless reads WHEN a user without a key searches THEN the bot reads with the operator key and answers", async () => {
    const keyless = await fetch(`${bot.sandbox.baseUrl}/listings?limit=1`);
    expect(keyless.status).toBe(403);

    // Bob has not linked a key yet.
    const found = await answer(bot.double.slash(bob, "search", { max_price: "500" }));
    expect(textOf(found)).not.toMatch(/refused|could not/);
    expect(found.embeds.length).toBeGreaterThan(0);
  });

  it("GIVEN a user without a key WHEN he pages the market faster than his share of the operator key THEN he is told to wait or link a key, and the feed's reads are untouched", async () => {
    const refusals: string[] = [];
    // The allowance is 8 reads at once; the first search above used one.
    for (let i = 0; i < 9; i += 1) {
      const reply = await answer(bot.double.slash(bob, "search", { max_price: String(100 + i) }));
      if (/reading the market quickly/.test(textOf(reply))) {
        expect(isEphemeral(reply)).toBe(true);
        refusals.push(textOf(reply));
      }
    }

    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals[0]).toContain("/account link");
    const feed = await engine().runFeedOnce();
    expect(feed.outcome).not.toBe("failed");
  });

  it("GIVEN the live ledger's string fee fields WHEN alice links her key THEN linking succeeds and her ledger renders", async () => {
    // The sandbox sends fee_amount, fee and float_fee as numeric strings, as the live service does.
    const raw = await fetch(`${bot.sandbox.baseUrl}/me/transactions?limit=50`, {
      headers: { authorization: alice.demo.apiKey },
    });
    const body = (await raw.json()) as { transactions: { details?: { fee_amount?: unknown } }[] };
    expect(body.transactions.some((t) => typeof t.details?.fee_amount === "string")).toBe(true);

    const linked = await bot.link(alice);
    expect(textOf(linked)).toContain("Linked");

    const ledger = await answer(bot.double.slash(alice, "account transactions"));
    expect(isEphemeral(ledger)).toBe(true);
    expect(textOf(ledger)).not.toContain("could not read");
  });

  it("GIVEN the live bid reply without a price WHEN alice bids, bob outbids her and she raises THEN she is told she leads, gets one outbid DM, and leads again", async () => {
    await bot.link(bob);
    const auction = bot.sandbox.control.createListing({ type: "auction", reserve_price: 1_000 });

    const placed = await answer(bot.double.slash(alice, "bid", { listing: auction.id, max_price: "15.00" }));
    expect(textOf(placed)).toContain("You are the top bidder");
    const tracked = await bot.db.prisma.trackedBid.findFirst({ where: { listingId: auction.id } });
    expect(tracked?.status).toBe("active");

    // Bob bids above her ceiling through the bot as well.
    const rival = await answer(bot.double.slash(bob, "bid", { listing: auction.id, max_price: "30.00" }));
    expect(textOf(rival)).toContain("You are the top bidder");

    await engine().runBidsOnce();
    await deliver();
    // The background delivery loop may be the one sending it: wait for the DM, not a time.
    await waitUntil(() => dmsAbout(alice, `Listing ${auction.id}`).length > 0, 10_000, "alice's outbid DM");
    const outbid = dmsAbout(alice, `Listing ${auction.id}`);
    expect(outbid).toHaveLength(1);
    expect(textOf(outbid[0] as StoredMessage)).toContain("Outbid");

    // Raising through the bot: a re-bid gets a new bid id live; she leads again all the same.
    const raised = await answer(bot.double.slash(alice, "bid", { listing: auction.id, max_price: "45.00" }));
    expect(textOf(raised)).toContain("You are the top bidder");
    const bids = await bot.app.market.forKey(alice.demo.apiKey).getListingBids(auction.id);
    expect(bids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(bids.map((b) => b.id)).size).toBe(bids.length);

    await engine().runBidsOnce();
    await deliver();
    await waitUntil(() => dmsAbout(bob, `Listing ${auction.id}`).length > 0, 10_000, "bob's outbid DM");
    // Bob is now the one outbid; alice gets no second DM.
    expect(dmsAbout(alice, `Listing ${auction.id}`)).toHaveLength(1);
    expect(dmsAbout(bob, `Listing ${auction.id}`)).toHaveLength(1);
    expect(buttonId(dmsAbout(bob, `Listing ${auction.id}`)[0] as StoredMessage, "Raise bid")).toContain(
      auction.id,
    );
  });

  it("GIVEN an odd listing and an unreadable one among normal ones WHEN the feed reads them THEN the odd one and the normal one alert, the unreadable one is counted", async () => {
    const item = uniqueItemName("odd");
    const added = await answer(bot.double.slash(alice, "watch add", { name: "odd items", item }));
    expect(textOf(added)).toContain("Watching");
    await engine().runFeedOnce();

    const odd = bot.sandbox.control.createOddListing({ market_hash_name: item, price: 1_100 });
    bot.sandbox.control.createUnreadableListing({ market_hash_name: item });
    const normal = bot.sandbox.control.createListing({ market_hash_name: item, price: 1_200 });
    const result = await engine().runFeedOnce();
    await deliver();

    expect(result.outcome).not.toBe("failed");
    // The background delivery loop may be the one sending them: wait for the DMs, not a time.
    await waitUntil(
      () =>
        dmsAbout(alice, `Listing ${odd.id}`).length > 0 && dmsAbout(alice, `Listing ${normal.id}`).length > 0,
      10_000,
      "the two listing alerts",
    );
    expect(dmsAbout(alice, `Listing ${odd.id}`)).toHaveLength(1);
    expect(dmsAbout(alice, `Listing ${normal.id}`)).toHaveLength(1);
    const warned = bot.logs.filter((l) => l.msg === "unreadable elements left out of a marketplace answer");
    expect(warned.length).toBeGreaterThanOrEqual(1);
    const metrics = await bot.app.metrics.registry.metrics();
    expect(metrics).toMatch(
      /market_unreadable_elements_total\{endpoint="GET \/listings",what="listing"\} [1-9]/,
    );
  });
});

// /account settings and /account transactions end to end (settings in real Postgres, ledger from
// the sandbox marketplace).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopAlertPolling, type Bot, type BotUser } from "../support/harness.ts";
import {
  answer,
  buttonId,
  isEphemeral,
  labels,
  textOf,
  totalHits,
  startTradingBot,
  stopTradingBot,
  type MarketView,
} from "./trading-support.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;
let market: MarketView;

beforeAll(async () => {
  ({ bot, alice, bob, market } = await startTradingBot(["alice"]));
});

afterAll(() => stopTradingBot(bot, market));

const rowOf = (user: BotUser) => bot.db.prisma.user.findUnique({ where: { discordId: user.id } });

describe("/account settings", () => {
  it("GIVEN no options WHEN bob (not linked) asks THEN he sees the defaults", async () => {
    const shown = await answer(bot.double.slash(bob, "account settings", {}));
    expect(isEphemeral(shown)).toBe(true);
    const text = textOf(shown);
    expect(text).toContain("Your settings");
    expect(text).toContain("Direct messages");
    // New users start with caps, shown with what they have committed.
    expect(text).toMatch(/Per-purchase cap\n\$100\.00/);
    expect(text).toMatch(/Daily cap\n\$300\.00/);
    expect(text).toMatch(/Committed now\n\$0\.00 \(\$300\.00 left today\)/);
    expect(text).toMatch(/Quiet hours\noff/);
  });

  it("GIVEN new settings WHEN alice saves them THEN they are stored, shown, and still there after a restart", async () => {
    const saved = await answer(
      bot.double.slash(alice, "account settings", {
        destination: "channel",
        per_purchase_cap: "50",
        daily_cap: "$1,200.50",
        outbid_alerts: false,
        quiet_hours: "22:00-07:00",
        timezone: "europe/berlin",
      }),
    );
    expect(textOf(saved)).toContain("Settings saved");
    const row = await rowOf(alice);
    expect(row).toMatchObject({
      defaultDestination: "channel",
      defaultChannelId: bot.double.channelId,
      alertOutbid: false,
      alertListing: true,
      quietHoursStart: 22 * 60,
      quietHoursEnd: 7 * 60,
      timezone: "Europe/Berlin",
    });
    expect(Number(row?.perPurchaseCapCents)).toBe(5000);
    expect(Number(row?.dailyCapCents)).toBe(120_050);

    bot = await bot.restart();
    await stopAlertPolling(bot);
    const shown = textOf(await answer(bot.double.slash(alice, "account settings", {})));
    expect(shown).toContain(`<#${bot.double.channelId}>`);
    expect(shown).toContain("$50.00");
    expect(shown).toContain("$1,200.50");
    expect(shown).toContain("❌ outbid");
    expect(shown).toContain("✅ listings");
    expect(shown).toContain("22:00–07:00 (Europe/Berlin)");
  });

  it("GIVEN saved settings WHEN alice changes one THEN only that one changes", async () => {
    const saved = await answer(
      bot.double.slash(alice, "account settings", { quiet_hours: "23:30-6 UTC+2", daily_cap: "off" }),
    );
    expect(textOf(saved)).toContain("23:30–06:00 (UTC+2)");
    const row = await rowOf(alice);
    expect(row?.dailyCapCents).toBeNull();
    expect(Number(row?.perPurchaseCapCents)).toBe(5000);
    expect(row?.timezone).toBe("Etc/GMT-2");
    expect(row?.alertOutbid).toBe(false);
    expect(row?.defaultDestination).toBe("channel");
  });

  it.each([
    [{ quiet_hours: "25:00-07:00" }, "is not a time"],
    [{ quiet_hours: "07:00-07:00" }, "the start and end are the same"],
    [{ timezone: "Mars/Olympus" }, "is not a known time zone"],
    [{ timezone: "UTC+5:30" }, "need the zone's name"],
    [{ per_purchase_cap: "abc" }, "enter a price in dollars"],
    [{ daily_cap: "0" }, "must be more than $0.00"],
  ])("GIVEN %j WHEN alice saves THEN she is told why and nothing changes", async (bad, why) => {
    const before = await rowOf(alice);
    const reply = await answer(bot.double.slash(alice, "account settings", bad));
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain(why);
    expect(await rowOf(alice)).toEqual(before);
  });

  it("GIVEN a DM WHEN alice picks this channel as destination THEN she is told to run it in a server channel", async () => {
    const reply = await answer(
      bot.double.slash(alice, "account settings", { destination: "channel" }, { dm: true }),
    );
    expect(textOf(reply)).toContain("run this in the server channel");
  });
});

describe("/account transactions", () => {
  it("GIVEN eleven purchases WHEN alice reads her ledger THEN the newest ten show with Next leading to the rest", async () => {
    const bought: string[] = [];
    for (let i = 0; i < 11; i++) {
      const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 101 + i });
      await market.as(alice).buyListings({ contract_ids: [listing.id], total_price: listing.price });
      bought.push(listing.id);
    }
    const first = await answer(
      bot.double.slash(alice, "account transactions", { type: "contract_purchased" }),
    );
    expect(isEphemeral(first)).toBe(true);
    expect(textOf(first)).toContain("Purchase");
    expect(textOf(first)).toContain("-$1.11");
    expect(textOf(first)).toContain(bought[10]);
    expect(textOf(first)).not.toContain(bought[0]);

    const next = await answer(bot.double.button(alice, buttonId(first, "Next ▶"), first));
    expect(textOf(next)).toContain(bought[0]);
    expect(textOf(next)).toContain("page 2");
    expect(labels(next)).toContain("◀ Previous");
  });

  it("GIVEN page 0 WHEN alice reads her ledger THEN she is told pages start at 1 and the marketplace is not called", async () => {
    const before = totalHits(bot);
    const reply = await answer(bot.double.slash(alice, "account transactions", { page: 0 }));
    expect(textOf(reply)).toContain("`page`");
    expect(totalHits(bot)).toBe(before);
  });
});

// New seeds for a tier an armed rule follows are an edit of that rule, end to end through Discord
// and the sandbox: seeds that only narrow what it may buy keep it armed; seeds that widen it
// disarm it, the reply says so, /automation no longer lists it armed, and it buys nothing more.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { answer, hits, isEphemeral, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { armLive as armLiveAs, feedOnce } from "./support.ts";

const BUY = "POST /listings/buy";

let bot: Bot;
let alice: BotUser;

const feed = () => feedOnce(bot);

const say = async (command: string, options: Record<string, string | number> = {}) =>
  textOf(await answer(bot.double.slash(alice, command, options)));

const armLive = (rule: string, maxBuys: number) => armLiveAs(bot, alice, rule, maxBuys);

const armModeOf = async (name: string) =>
  (await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name, user: { discordId: alice.id } } }))
    .armMode;

beforeAll(async () => {
  bot = await startQuietBot(["alice"]);
  alice = bot.users.alice;
  expect(await say("account settings", { per_purchase_cap: "100", daily_cap: "500" })).toContain(
    "Settings saved",
  );
  await feed(); // the feed's mark: listings after it are new
});

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await bot?.stop();
  expect(errors).toEqual([]);
});

describe("a seed tier replaced under a live-armed rule", () => {
  it("GIVEN a rule armed live that follows a tier of seeds 661 and 670 WHEN the tier becomes 661 THEN it stays armed, AND WHEN it becomes 661 and 955 THEN the reply says it is disarmed, /automation no longer lists it armed and a seed-955 listing is not bought", async () => {
    const item = uniqueItemName("tier-armed");
    expect(await say("watch tier add", { name: "blue", seeds: "661, 670" })).toContain("2 seeds");
    expect(await say("watch add", { name: "blue gems", item, max_price: 30 })).toContain(
      "Watching: blue gems",
    );
    expect(await say("watch filters", { rule: "blue gems", tier: "blue" })).toContain('tier "blue"');
    await armLive("blue gems", 2);

    const narrowed = await answer(bot.double.slash(alice, "watch tier add", { name: "blue", seeds: "661" }));
    expect(textOf(narrowed)).toContain("Seed tier replaced");
    expect(textOf(narrowed)).not.toContain("disarmed");
    expect(await armModeOf("blue gems")).toBe("live");
    expect(await say("automation")).toContain("**blue gems** · live");

    const widened = await answer(
      bot.double.slash(alice, "watch tier add", { name: "blue", seeds: "661, 955" }),
    );
    expect(isEphemeral(widened)).toBe(true);
    expect(textOf(widened)).toContain("Seed tier replaced");
    expect(textOf(widened)).toContain(
      "**blue gems** was armed live, and the new seeds widen what it may buy",
    );
    expect(textOf(widened)).toContain("**disarmed**");
    expect(await armModeOf("blue gems")).toBeNull();
    expect(await say("automation")).not.toContain("**blue gems** · live");

    // The rule follows the new seeds, as an alerting rule: the listing is alerted, not bought.
    const before = hits(bot, BUY);
    const listing = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 1_000,
      paint_seed: 955,
    });
    await feed();
    expect(hits(bot, BUY)).toBe(before);
    const dms = bot.double.dmsTo(alice.id).filter((m) => textOf(m).includes(listing.id));
    expect(dms.map(textOf).join("\n")).toContain("New listing");
  });
});

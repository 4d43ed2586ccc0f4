// Deal quality end to end: /watch add then /watch filters with deal filters and seed tiers through Discord, listings in the sandbox, alert DMs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type InteractionHandle, type StoredMessage } from "../../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../../support/harness.ts";
import { uniqueItemName, waitUntil } from "./world.ts";

let bot: Bot;
let alice: BotUser;

beforeAll(async () => {
  bot = await startBot({ env: { POLL_INTERVAL_MS: "400", SELLER_FEE_PERCENT: "2" } });
  ({ alice } = bot.users);
  await waitUntil(
    () => engine().stats().leader && engine().stats().feed.mark !== undefined,
    10_000,
    "the feed to start",
  );
});

afterAll(async () => {
  await bot?.stop();
});

const engine = () => alertEngineOf(bot);

/** What the user reads once the interaction is answered (reply, edited deferral or follow-up). */
function answer(h: InteractionHandle): Promise<StoredMessage> {
  return h.waitFor((s) => {
    if (!s.responses[0]) return undefined;
    const last = s.followUps.at(-1);
    if (last) return last;
    if (!s.original || s.original.loading) return undefined;
    return s.original;
  }, 10_000);
}

const say = async (command: string, options: Record<string, string | number> = {}) =>
  textOf(await answer(bot.double.slash(alice, command, options)));

/** Alert DMs (not interaction replies) about one listing. */
const alertsFor = (listingId: string) =>
  bot.double
    .dmsTo(alice.id)
    .filter((m) => m.interactionId === undefined && textOf(m).includes(`Listing ${listingId}`));

/**
 * Waits for the alert of `wanted`, then runs one more feed cycle and delivery pass so any alert
 * for `unwanted` (created before `wanted`) would have arrived too.
 */
async function alertedOnlyFor(wanted: string, unwanted: readonly string[]): Promise<string> {
  await waitUntil(() => alertsFor(wanted).length > 0, 10_000, `the alert for listing ${wanted}`);
  await engine().runFeedOnce();
  await engine().runDeliveryOnce();
  for (const id of unwanted) expect(alertsFor(id), `no alert for listing ${id}`).toHaveLength(0);
  expect(alertsFor(wanted)).toHaveLength(1);
  return textOf(alertsFor(wanted)[0] as StoredMessage);
}

/** /watch add with the item, then /watch filters with the rest: the answer of the second. */
async function ruleWith(
  name: string,
  item: string,
  filters: Record<string, string | number>,
): Promise<string> {
  expect(await say("watch add", { name, item })).toContain(`Watching: ${name}`);
  return say("watch filters", { rule: name, ...filters });
}

describe("deal quality on watch rules", () => {
  it("GIVEN a fade rule at 97% WHEN a 90% and a 97% fade are listed THEN only the 97% one alerts, showing its fade", async () => {
    const item = uniqueItemName("fade");
    expect(await ruleWith("fades", item, { fade: "97" })).toContain("fade ≥ 97%");

    const low = bot.sandbox.control.createListing({
      market_hash_name: item,
      fade: { percentage: 90, rank: 40 },
    });
    const high = bot.sandbox.control.createListing({
      market_hash_name: item,
      fade: { percentage: 97, rank: 3 },
    });
    const dm = await alertedOnlyFor(high.id, [low.id]);
    expect(dm).toContain("Fade");
    expect(dm).toContain("97% (rank #3)");
  });

  it("GIVEN min_profit $10 WHEN listings netting $13.00 and $9.00 after the 2% fee appear THEN only the first alerts, with net and instant exit", async () => {
    const item = uniqueItemName("profit");
    expect(await ruleWith("profit", item, { min_profit: 10 })).toContain("net ≥ $10.00");
    // A standing $90.00 buy order for the item: the instant exit of an $85.00 buy.
    bot.sandbox.control.createWebsiteBuyOrder({
      platformId: bot.users.bob.demo.platformId,
      marketHashName: item,
      maxPrice: 9_000,
    });

    // Reference $100.00: 10000 - 200 fee - 8900 = $9.00 net; 10000 - 200 - 8500 = $13.00.
    const thin = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 8_900,
      reference_price: 10_000,
    });
    const good = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 8_500,
      reference_price: 10_000,
    });
    const dm = await alertedOnlyFor(good.id, [thin.id]);
    expect(dm).toContain("Profit after the 2% seller fee");
    expect(dm).toContain("Net at reference: +$13.00 (15.3%)");
    // 9000 - 180 fee - 8500.
    expect(dm).toContain("Instant exit: +$3.20 to a $90.00 buy order");
  });

  it("GIVEN a rule following a seed tier WHEN the tier's seeds are replaced THEN the rule follows the new seeds", async () => {
    const item = uniqueItemName("tier");
    expect(await say("watch tier add", { name: "blue tier", seeds: "11, 12" })).toContain("2 seeds: 11, 12");
    expect(await ruleWith("tiered", item, { tier: "blue tier" })).toContain('tier "blue tier"');

    const first = bot.sandbox.control.createListing({ market_hash_name: item, paint_seed: 11 });
    const other = bot.sandbox.control.createListing({ market_hash_name: item, paint_seed: 13 });
    const dm = await alertedOnlyFor(first.id, [other.id]);
    expect(dm).toContain("Seed\n11");

    const replaced = await say("watch tier add", { name: "blue tier", seeds: "13" });
    expect(replaced).toContain("Seed tier replaced");
    expect(replaced).toContain("tiered");
    const old = bot.sandbox.control.createListing({ market_hash_name: item, paint_seed: 11 });
    const now = bot.sandbox.control.createListing({ market_hash_name: item, paint_seed: 13 });
    await alertedOnlyFor(now.id, [old.id]);

    // Both tier options suggest the user's tiers.
    for (const [path, option] of [
      ["watch filters", "tier"],
      ["watch tier remove", "name"],
    ] as const) {
      const suggested = await bot.double
        .autocomplete(alice, path, { [option]: "BLUE" }, option)
        .firstResponse();
      expect(suggested.data?.choices).toEqual([{ name: "blue tier", value: "blue tier" }]);
    }

    // In use: refused, naming the rule, and the tier stays.
    const refused = await say("watch tier remove", { name: "blue tier" });
    expect(refused).toContain("tiered");
    expect(refused).toContain("/watch remove");
    expect(await say("watch tier list")).toContain("blue tier");
  });

  it("GIVEN seeds that are not seeds WHEN a tier is saved THEN the user is told which and nothing changes", async () => {
    const before = await say("watch tier list");
    for (const seeds of ["abc", "1.5"]) {
      const refused = await say("watch tier add", { name: "broken", seeds });
      expect(refused).toContain("`seeds`");
      expect(refused).toContain(`"${seeds}"`);
    }
    expect(await say("watch tier add", { name: "Blue Tier", seeds: "1" })).toContain(
      'already have a tier named "blue tier"',
    );
    expect(await say("watch tier list")).toBe(before);
  });

  it("GIVEN min_sales_per_day 2 WHEN an item sold 14 times this week and one sold 7 times are listed THEN only the busy one alerts", async () => {
    const busy = uniqueItemName("busy");
    const quiet = uniqueItemName("quiet");
    for (const [item, sales] of [
      [busy, 14],
      [quiet, 7],
    ] as const) {
      for (let i = 0; i < sales; i++) {
        const sold = bot.sandbox.control.createListing({ market_hash_name: item, price: 500 });
        bot.sandbox.control.sellToBuyer(sold.id);
      }
      expect(await ruleWith(`sales ${item}`, item, { min_sales_per_day: 2 })).toContain("≥ 2 sales/day");
    }
    const slow = bot.sandbox.control.createListing({ market_hash_name: quiet, price: 500 });
    const fast = bot.sandbox.control.createListing({ market_hash_name: busy, price: 500 });
    await alertedOnlyFor(fast.id, [slow.id]);
  });

  it("GIVEN min_sticker_value $12 WHEN listings with $12.35 and $0.85 of stickers appear THEN only the first alerts, showing the value", async () => {
    const item = uniqueItemName("stickers");
    await ruleWith("stickers", item, { min_sticker_value: 12 });
    // Catalog prices: Golden Anchor $23.00 at half wear is $11.50; Neon Fox $0.85 unworn.
    const cheap = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 1_000,
      stickers: [{ stickerId: 1102, wear: 0 }],
    });
    const rich = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 1_000,
      stickers: [
        { stickerId: 1104, slot: 0, wear: 0.5 },
        { stickerId: 1102, slot: 1, wear: 0 },
      ],
    });
    const dm = await alertedOnlyFor(rich.id, [cheap.id]);
    expect(dm).toContain("Stickers value\n$12.35, 123.5% of price");
  });
});

// One alert per listing as a user sees it through Discord: overlapping rules, one DM, and one line in /alerts recent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertEngineOf, startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import type { StoredMessage } from "../support/discord.ts";
import { answer, isEphemeral, textOf } from "../reliability/support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";

let bot: Bot;
let alice: BotUser;

async function feed(): Promise<void> {
  await alertEngineOf(bot).runFeedOnce();
  while ((await alertEngineOf(bot).runDeliveryOnce()).claimed > 0);
}

beforeAll(async () => {
  bot = await startQuietBot(["alice"]);
  ({ alice } = bot.users);
  await feed();
});

afterAll(async () => {
  await bot?.stop();
});

describe("grouped alerts through Discord", () => {
  it("GIVEN 'under $30' and 'float < 0.5 under $40' on one item WHEN a $25 listing at float 0.2 appears THEN alice gets one DM naming both rules, AND /alerts recent shows it on one line", async () => {
    const item = uniqueItemName("grouped");
    for (const [name, extra] of [
      ["ember under 30", { max_price: 30 }],
      ["ember float under 40", { max_price: 40, max_float: 0.5 }],
    ] as const) {
      const added = await answer(bot.double.slash(alice, "watch add", { name, item, ...extra }));
      expect(textOf(added)).toContain(`Watching: ${name}`);
    }
    const listing = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 2_500,
      float_value: 0.2,
    });
    await feed();

    const dms = bot.double
      .dmsTo(alice.id)
      .filter((m) => m.interactionId === undefined && textOf(m).includes(`Listing ${listing.id}`));
    expect(dms).toHaveLength(1);
    const dm = textOf(dms[0] as StoredMessage);
    expect(dm).toContain("Rules (2): ember under 30, ember float under 40");

    const recent = await answer(bot.double.slash(alice, "alerts recent"));
    expect(isEphemeral(recent)).toBe(true);
    const lines = textOf(recent)
      .split("\n")
      .filter((l) => l.includes(`listing ${listing.id}`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("rules ember under 30, ember float under 40");
  });
});

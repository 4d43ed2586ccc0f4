// Paging state lives in memory for a while: results from before a restart say so clearly instead of
// failing or showing something else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEphemeral, textOf } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";
import { button, listedIds, QUIET_ENV, sandboxTotal } from "./market-helpers.ts";

let bot: Bot;

beforeAll(async () => {
  bot = await startBot({ env: QUIET_ENV });
});

afterAll(async () => {
  await bot?.stop();
});

describe("paging after a restart", () => {
  it("GIVEN search results from before a restart WHEN Next is pressed THEN a private message asks to run the search again and the results stay as they were", async () => {
    const name = "Test Carbine | Restart Proof (Field Worn)";
    bot.sandbox.control.createListings(15, { market_hash_name: name });
    const results = await bot.double.slash(bot.users.alice, "search", { item: name }).finalMessage();
    const before = { ids: listedIds(results), editedAt: results.editedAt };
    expect(before.ids).toHaveLength(10);

    bot = await bot.restart({ env: QUIET_ENV });
    const calls = sandboxTotal(bot);
    const press = bot.double.button(bot.users.alice, button(results, "Next").custom_id, results);
    // The press is acknowledged as an update of the results; the explanation comes as a private follow-up.
    const answer = await press.waitFor((s) => s.followUps[0]);

    expect(isEphemeral(answer)).toBe(true);
    expect(textOf(answer)).toContain("no longer available");
    expect(textOf(answer)).toContain("run the command again");
    expect(sandboxTotal(bot)).toBe(calls);
    const now = bot.double.message(results.id);
    expect(now && listedIds(now)).toEqual(before.ids);
    expect(now?.editedAt).toBe(before.editedAt);
  });
});

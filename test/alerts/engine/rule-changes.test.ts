// Rule changes made through the handlers reach the running engine's matcher at once (the app's
// rule-change hub), not at the next feed cycle's sync; changes other replicas write still arrive
// by the change poll, within one cycle.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import type { AlertEngine } from "../../../src/background/engine.ts";
import { addRule } from "../../../src/watch/rules.ts";
import { textOf, userAnswer, type InteractionHandle, type StoredMessage } from "../../support/discord.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../../support/harness.ts";
import { uniqueItemName, waitUntil } from "./world.ts";

let bot: Bot;
let alice: BotUser;
let engine: AlertEngine;

beforeAll(async () => {
  bot = await startBot({
    // Ten minutes between feed cycles (at most four times as often with budget to spare): no cycle
    // of its own runs during a test, so only what the hub delivers is in the matcher.
    env: { POLL_INTERVAL_MS: "600000", BID_POLL_INTERVAL_MS: "600000", TRADE_POLL_INTERVAL_MS: "600000" },
  });
  alice = bot.users.alice;
  engine = alertEngineOf(bot);
  // Leading, and past the first cycle (which loads the rules and sets the feed's mark).
  await waitUntil(
    () => engine.stats().leader && engine.stats().feed.mark !== undefined,
    10_000,
    "the feed's first cycle",
  );
});

afterAll(async () => {
  await bot?.stop();
});

let sync: MockInstance<() => Promise<boolean>> | undefined;
afterEach(() => {
  sync?.mockRestore();
  sync = undefined;
});

/** From here on the change poll sees nothing: what the matcher learns, it learns from the hub. */
function withoutSync(): MockInstance<() => Promise<boolean>> {
  sync = vi.spyOn(engine.ruleIndex, "syncChanges").mockResolvedValue(false);
  return sync;
}

/** What the user reads once the interaction is answered (the support helper, with this file's wait). */
const answer = (h: InteractionHandle): Promise<StoredMessage> => userAnswer(h, 10_000);

const indexed = (ruleId: number) => [...engine.ruleIndex.index.ids()].includes(String(ruleId));
const ruleId = async (name: string) =>
  (await bot.db.prisma.watchRule.findFirstOrThrow({ where: { name }, select: { id: true } })).id;
const alertDms = (user: BotUser, text: string) =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

describe("rule changes reach the running engine at once", () => {
  it("GIVEN the engine on a long feed interval WHEN /watch add saves a rule THEN the matcher holds it at once AND the very next feed read alerts on a matching listing, with no rule sync", async () => {
    const polls = withoutSync();
    const before = engine.ruleIndex.size;
    const item = uniqueItemName("hub");

    const added = await answer(
      bot.double.slash(alice, "watch add", { name: "hub deal", item, max_price: 30 }),
    );
    expect(textOf(added)).toContain("Watching");
    const id = await ruleId("hub deal");
    expect(indexed(id)).toBe(true);
    expect(engine.ruleIndex.size).toBe(before + 1);

    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 2_500 });
    await engine.runFeedOnce();
    await waitUntil(() => alertDms(alice, `Listing ${listing.id}`).length > 0, 10_000, "the alert DM");
    // The feed asked for changes and was told of none: the rule came by the hub alone.
    expect(polls).toHaveBeenCalled();
  });

  it("GIVEN a saved rule WHEN it is paused, resumed, armed, disarmed and removed with /watch THEN each change is in the matcher before the next feed cycle", async () => {
    withoutSync();
    await answer(bot.double.slash(alice, "watch add", { name: "hub steps", item: uniqueItemName("steps") }));
    const id = await ruleId("hub steps");
    expect(indexed(id)).toBe(true);

    expect(textOf(await answer(bot.double.slash(alice, "watch pause", { name: "hub steps" })))).toContain(
      "Paused",
    );
    expect(indexed(id)).toBe(false);
    await answer(bot.double.slash(alice, "watch resume", { name: "hub steps" }));
    expect(indexed(id)).toBe(true);

    const armed = await answer(
      bot.double.slash(alice, "watch arm", { rule: "hub steps", mode: "shadow", max_buys: 2 }),
    );
    expect(textOf(armed)).toContain("Armed in shadow mode");
    expect(engine.ruleIndex.armedMode(String(id))).toBe("shadow");
    await answer(bot.double.slash(alice, "watch disarm", { rule: "hub steps" }));
    expect(engine.ruleIndex.armedMode(String(id))).toBeUndefined();
    expect(indexed(id)).toBe(true);

    await answer(bot.double.slash(alice, "watch remove", { name: "hub steps" }));
    expect(indexed(id)).toBe(false);
  });

  it("GIVEN a rule written by another replica (no hub in this process hears it) WHEN the next feed cycle runs THEN its change poll brings the rule in", async () => {
    const elsewhere = await addRule(
      { prisma: bot.db.prisma, logger: bot.app.logger, maxRulesPerUser: 50 },
      {
        discordId: alice.id,
        name: "other replica",
        filters: { item: uniqueItemName("replica") },
        destination: { kind: "dm" },
      },
    );
    expect(indexed(elsewhere.id)).toBe(false);
    await engine.runFeedOnce();
    expect(indexed(elsewhere.id)).toBe(true);
  });
});

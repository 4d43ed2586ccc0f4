// /watch edit and /watch filters through Discord: a rule changed in place keeps its id and record,
// alerts at its new bounds, and a live-armed rule whose edit widens it is disarmed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import type { StoredMessage } from "../support/discord.ts";
import { answer, buttonId, isEphemeral, textOf } from "../reliability/support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";
import { feedOnce } from "../automation/support.ts";

let bot: Bot;
let alice: BotUser;

const feed = () => feedOnce(bot);

const dmsAbout = (user: BotUser, text: string): StoredMessage[] =>
  bot.double.dmsTo(user.id).filter((m) => m.interactionId === undefined && textOf(m).includes(text));

const ruleRow = (name: string) => bot.db.prisma.watchRule.findFirstOrThrow({ where: { name } });

async function add(name: string, item: string, maxPrice: number): Promise<void> {
  const added = await answer(bot.double.slash(alice, "watch add", { name, item, max_price: maxPrice }));
  expect(textOf(added)).toContain(`Watching: ${name}`);
}

beforeAll(async () => {
  bot = await startQuietBot(["alice"]);
  ({ alice } = bot.users);
  expect(
    textOf(
      await answer(
        bot.double.slash(alice, "account settings", { per_purchase_cap: "100", daily_cap: "300" }),
      ),
    ),
  ).toContain("Settings saved");
  await feed();
});

afterAll(async () => {
  await bot?.stop();
});

describe("/watch edit", () => {
  it("GIVEN a rule under $30 that alerted once WHEN /watch edit raises max_price to $45 THEN the reply shows it before and after, the rule keeps its id and record, AND a $40 listing now alerts", async () => {
    const item = uniqueItemName("edit price");
    await add("ember under 30", item, 30);
    bot.sandbox.control.createListing({ market_hash_name: item, price: 2_000 });
    await feed();
    const before = await ruleRow("ember under 30");
    expect(before.matchCount).toBe(1);

    const reply = await answer(
      bot.double.slash(alice, "watch edit", { rule: "ember under 30", max_price: 45 }),
    );

    expect(isEphemeral(reply)).toBe(true);
    const text = textOf(reply);
    expect(text).toContain("Edited: ember under 30");
    expect(text).toMatch(/Before[\s\S]*\$30\.00[\s\S]*After[\s\S]*\$45\.00/);
    const same = await answer(
      bot.double.slash(alice, "watch edit", { rule: "ember under 30", max_price: 45 }),
    );
    expect(textOf(same)).toContain("Nothing changed: ember under 30");
    const after = await ruleRow("ember under 30");
    expect(after.id).toBe(before.id);
    expect(after.matchCount).toBe(1);
    expect(after.createdAt).toEqual(before.createdAt);

    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 4_000 });
    await feed();
    const dms = dmsAbout(alice, `Listing ${listing.id}`);
    expect(dms).toHaveLength(1);
    expect(textOf(dms[0] as StoredMessage)).toContain("ember under 30");
    expect((await ruleRow("ember under 30")).matchCount).toBe(2);
  });

  it("GIVEN a live-armed rule WHEN an edit only lowers its max_price THEN it stays armed, AND WHEN an edit raises it THEN it is disarmed with a message saying /watch arm is needed again", async () => {
    const item = uniqueItemName("edit armed");
    await add("armed edit", item, 40);
    const quote = await answer(
      bot.double.slash(alice, "watch arm", { rule: "armed edit", mode: "live", max_buys: 1 }),
    );
    await answer(bot.double.button(alice, buttonId(quote, "Arm"), quote));
    expect((await ruleRow("armed edit")).armMode).toBe("live");

    const narrower = await answer(
      bot.double.slash(alice, "watch edit", { rule: "armed edit", max_price: 35 }),
    );
    expect(textOf(narrower)).not.toContain("disarmed");
    expect((await ruleRow("armed edit")).armMode).toBe("live");

    const wider = await answer(bot.double.slash(alice, "watch edit", { rule: "armed edit", max_price: 60 }));
    expect(textOf(wider)).toContain("disarmed");
    expect(textOf(wider)).toContain("/watch arm");
    expect((await ruleRow("armed edit")).armMode).toBeNull();

    // Disarmed: a matching listing alerts but is not bought.
    const listing = bot.sandbox.control.createListing({ market_hash_name: item, price: 5_000 });
    await feed();
    expect(dmsAbout(alice, `Listing ${listing.id}`)).toHaveLength(1);
    expect(dmsAbout(alice, "Bought")).toHaveLength(0);
  });

  it("GIVEN a rule WHEN /watch filters sets a fade range and clears max_price THEN the rule has the fade and no ceiling", async () => {
    const item = uniqueItemName("edit filters");
    await add("fade hunt", item, 80);
    const reply = await answer(
      bot.double.slash(alice, "watch filters", { rule: "fade hunt", fade: "95-100", clear: "max_price" }),
    );
    expect(textOf(reply)).toContain("Edited: fade hunt");
    const filters = (await ruleRow("fade hunt")).filters as Record<string, unknown>;
    expect(filters).toMatchObject({ min_fade: 95, max_fade: 100 });
    expect(filters.max_price).toBeUndefined();
  });

  it("GIVEN a rule WHEN an edit clears an unknown filter, or clears its only narrowing filter THEN a private message says why AND the rule is unchanged", async () => {
    const item = uniqueItemName("edit bad");
    await add("bad edits", item, 20);
    const stored = await ruleRow("bad edits");

    const unknown = await answer(
      bot.double.slash(alice, "watch edit", { rule: "bad edits", clear: "colour" }),
    );
    expect(isEphemeral(unknown)).toBe(true);
    expect(textOf(unknown)).toContain("colour");

    const empty = await answer(
      bot.double.slash(alice, "watch edit", { rule: "bad edits", clear: "item, max_price" }),
    );
    expect(isEphemeral(empty)).toBe(true);
    expect(textOf(empty)).toContain("narrow");

    const flipped = await answer(
      bot.double.slash(alice, "watch edit", { rule: "bad edits", min_float: 0.5, max_float: 0.1 }),
    );
    expect(textOf(flipped)).toContain("min_float");

    const missing = await answer(
      bot.double.slash(alice, "watch edit", { rule: "no such rule", max_price: 5 }),
    );
    expect(textOf(missing)).toContain("no watch rule named");

    expect(await ruleRow("bad edits")).toEqual(stored);
  });

  it("GIVEN the rule option WHEN typed THEN autocomplete offers the user's rules", async () => {
    const handle = bot.double.autocomplete(alice, "watch edit", { rule: "fade" }, "rule");
    const choices = ((await handle.firstResponse()).data?.choices ?? []) as Array<{ value: unknown }>;
    expect(choices.map((c) => c.value)).toContain("fade hunt");
  });
});

describe("Watch similar", () => {
  it("GIVEN an alert DM for a patterned skin WHEN Watch similar then Save rule are pressed THEN a rule with its item, a float range around its float, its price as ceiling and its seed is saved, AND a like listing alerts", async () => {
    const item = uniqueItemName("like alert");
    await add("like source", item, 500);
    const source = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 12_345,
      float_value: 0.0214,
      paint_seed: 661,
      fade: { percentage: 97.5 },
    });
    await feed();
    const dm = dmsAbout(alice, `Listing ${source.id}`)[0] as StoredMessage;

    const proposal = await answer(bot.double.button(alice, buttonId(dm, "Watch similar"), dm));
    expect(isEphemeral(proposal)).toBe(true);
    expect(textOf(proposal)).toContain("Watch things like this");
    const saved = await answer(bot.double.button(alice, buttonId(proposal, "Save rule"), proposal));
    expect(textOf(saved)).toContain("Watching:");

    const rules = await bot.db.prisma.watchRule.findMany({ where: { itemKey: item.toLowerCase() } });
    const like = rules.find((r) => r.name !== "like source");
    expect(like?.filters).toMatchObject({
      item,
      max_price: 12_345,
      min_float: 0.0114,
      max_float: 0.0314,
      paint_seeds: [661],
    });

    const alike = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 11_000,
      float_value: 0.02,
      paint_seed: 661,
      fade: { percentage: 97.5 },
    });
    await feed();
    const dms = dmsAbout(alice, `Listing ${alike.id}`);
    expect(dms).toHaveLength(1);
    expect(textOf(dms[0] as StoredMessage)).toContain(like?.name ?? "?");
  });

  it("GIVEN a /listing view WHEN Watch similar then Save rule are pressed twice over THEN the rule is saved by DM, a second one under a free name, AND Save rule pressed again saves nothing more", async () => {
    const item = uniqueItemName("like view");
    const listing = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 4_200,
      float_value: 0.3,
    });
    const rulesOf = () => bot.db.prisma.watchRule.findMany({ where: { itemKey: item.toLowerCase() } });
    let saveId = "";
    for (const expected of [1, 2]) {
      const view = await bot.double.slash(alice, "listing view", { id: listing.id }).finalMessage();
      const proposal = await answer(bot.double.button(alice, buttonId(view, "Watch similar"), view));
      saveId = buttonId(proposal, "Save rule");
      await answer(bot.double.button(alice, saveId, proposal));
      expect(await rulesOf()).toHaveLength(expected);
    }
    const names = (await rulesOf()).map((r) => r.name);
    expect(new Set(names).size).toBe(2);
    expect(names.some((n) => n.endsWith("(2)"))).toBe(true);

    // The same Save rule button again (a double click, an old message): nothing more is saved.
    const again = await answer(bot.double.button(alice, saveId));
    expect(textOf(again)).toContain("already saved");
    expect(await rulesOf()).toHaveLength(2);
  });

  it("GIVEN a Watch similar proposal WHEN Adjust… opens the form THEN it is filled from the listing, AND a bad float range is refused naming the field while a good one saves the rule as typed", async () => {
    const item = uniqueItemName("like form");
    const listing = bot.sandbox.control.createListing({
      market_hash_name: item,
      price: 2_000,
      float_value: 0.15,
    });
    const view = await bot.double.slash(alice, "listing view", { id: listing.id }).finalMessage();
    const proposal = await answer(bot.double.button(alice, buttonId(view, "Watch similar"), view));

    const opened = await bot.double.button(alice, buttonId(proposal, "Adjust…"), proposal).firstResponse();
    expect(opened.type).toBe(9);
    const form = JSON.stringify(opened.data);
    expect(form).toContain('"value":"20.00"');
    expect(form).toContain('"value":"0.14-0.16"');
    const formId = String(opened.data?.custom_id);

    const bad = await answer(
      bot.double.modalSubmit(alice, formId, { name: "", max_price: "25", float_range: "0.3-0.1", seeds: "" }),
    );
    expect(isEphemeral(bad)).toBe(true);
    expect(textOf(bad)).toContain("float_range");
    expect(await bot.db.prisma.watchRule.count({ where: { itemKey: item.toLowerCase() } })).toBe(0);

    const good = await answer(
      bot.double.modalSubmit(alice, formId, {
        name: "my form rule",
        max_price: "25",
        float_range: "0.1-0.2",
        seeds: "",
      }),
    );
    expect(textOf(good)).toContain("Watching: my form rule");
    expect((await ruleRow("my form rule")).filters).toEqual({
      item,
      max_price: 2_500,
      min_float: 0.1,
      max_float: 0.2,
    });
  });
});

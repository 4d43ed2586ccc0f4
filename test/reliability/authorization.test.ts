// Authorization: every button, menu and form the commands register is refused to anyone but its
// owner (nothing upstream, nothing stored), and channel alerts need Manage Channels there. The
// actions come from the command registry, so a new command's buttons are covered without edits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandModules } from "../../commands/index.ts";
import { decodeCustomId } from "../../src/discord/customId.ts";
import { createRegistry } from "../../src/discord/registry.ts";
import { DEFAULT_IDS, type InteractionHandle, type StoredMessage } from "../support/discord.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import {
  answer,
  customId,
  dbSnapshot,
  inhumaneParts,
  isEphemeral,
  textOf,
  upstreamTotal,
  visibleMessages,
} from "./support.ts";

const tally = reliabilityTally("authorization", "Authorization (item 8)", import.meta.url);

/**
 * Actions anyone who can see the message may use, each with the reason. A new action declared
 * `ownerOnly: false` fails the test below until it is reviewed and listed here.
 */
const PUBLIC_ACTIONS: Readonly<Record<string, string>> = {
  "srch.open":
    "the listing menu under public search results: anyone reading may open a listing, privately, with their own buttons",
};

const registry = createRegistry(commandModules);
const kinds = registry.modules.flatMap((m) => [
  ...Object.entries(m.components).map(([action, h]) => ({
    kind: "component" as const,
    command: m.name,
    action,
    ownerOnly: h.ownerOnly ?? true,
  })),
  ...Object.entries(m.modals).map(([action, h]) => ({
    kind: "modal" as const,
    command: m.name,
    action,
    ownerOnly: h.ownerOnly ?? true,
  })),
]);
const ownerOnly = kinds.filter((k) => k.ownerOnly);
const publicKinds = kinds.filter((k) => !k.ownerOnly);

/** A plausible subject for any action (a listing/trade-like id); the owner check comes first. */
const SUBJECT = "9007199254740993";
const IN_AN_HOUR = () => Date.now() + 60 * 60_000;

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
});

afterAll(async () => {
  await bot?.stop();
});

/** What a refused stranger must see, and what must not have happened. */
async function expectRefused(h: InteractionHandle, before: { upstream: number; db: Record<string, string> }) {
  const refusal = await answer(h);
  expect(isEphemeral(refusal)).toBe(true);
  expect(textOf(refusal)).toContain("This isn't yours — run the command yourself.");
  expect(visibleMessages(bot, h).every(isEphemeral)).toBe(true);
  expect(h.record.responses).toHaveLength(1);
  expect(upstreamTotal(bot)).toBe(before.upstream);
  expect(await dbSnapshot(bot)).toEqual(before.db);
}

const snapshotOf = (m: StoredMessage) =>
  JSON.stringify({ content: m.content, embeds: m.embeds, components: m.components, editedAt: m.editedAt });

describe("every button and form kind", () => {
  it("GIVEN the command registry THEN it registers buttons and forms, and every action open to non-owners is a reviewed one", () => {
    expect(ownerOnly.filter((k) => k.kind === "component").length).toBeGreaterThanOrEqual(20);
    expect(ownerOnly.filter((k) => k.kind === "modal").length).toBeGreaterThanOrEqual(3);
    expect(publicKinds.map((k) => k.action).sort()).toEqual(Object.keys(PUBLIC_ACTIONS).sort());
    // The running app serves exactly the actions enumerated here.
    const served = bot.app.registry.modules.flatMap((m) => [
      ...Object.keys(m.components).map((a) => `component ${a}`),
      ...Object.keys(m.modals).map((a) => `modal ${a}`),
    ]);
    expect(served.sort()).toEqual(kinds.map((k) => `${k.kind} ${k.action}`).sort());
  });

  it.each(ownerOnly.filter((k) => k.kind === "component"))(
    "GIVEN alice's $action button ($command) WHEN bob presses it, or picks from it as a menu, THEN he is told it isn't his, her message is untouched, nothing reaches the marketplace and nothing is stored",
    async ({ action }) => {
      const id = customId(action, SUBJECT, alice, IN_AN_HOUR());
      const posted = bot.double.postMessage(bot.double.channelId, {
        content: "alice's message",
        components: [{ type: 1, components: [{ type: 2, style: 1, label: "Act", custom_id: id }] }],
      });
      const before = { upstream: upstreamTotal(bot), db: await dbSnapshot(bot) };
      const shape = snapshotOf(posted);

      await expectRefused(bot.double.button(bob, id, posted), before);
      await expectRefused(bot.double.select(bob, id, [SUBJECT]), before);
      expect(snapshotOf(bot.double.message(posted.id) ?? posted)).toBe(shape);
      tally.add("owner checks (foreign presses refused)", 2);
      tally.add("button kinds covered");
    },
  );

  it.each(ownerOnly.filter((k) => k.kind === "modal"))(
    "GIVEN alice's $action form ($command) WHEN bob submits it THEN he is told it isn't his, nothing reaches the marketplace and nothing is stored",
    async ({ action }) => {
      const id = customId(action, SUBJECT, alice, IN_AN_HOUR());
      const before = { upstream: upstreamTotal(bot), db: await dbSnapshot(bot) };
      // Every field name the forms use, with values that would be valid.
      const fields = { key: bob.demo.apiKey, max_price: "12.50", price: "12.50" };
      await expectRefused(bot.double.modalSubmit(bob, id, fields), before);
      tally.add("owner checks (foreign presses refused)");
      tally.add("form kinds covered");
    },
  );

  it.each(publicKinds)(
    "GIVEN the public $action menu of alice's message WHEN bob uses it THEN he gets his own private answer with buttons only he can use",
    async ({ action }) => {
      const listing = bot.sandbox.control.createListing({ type: "buy_now", price: 4200 });
      const id = customId(action, "", alice, IN_AN_HOUR());
      const h = bot.double.select(bob, id, [listing.id]);
      const view = await answer(h);
      expect(isEphemeral(view)).toBe(true);
      expect(textOf(view)).not.toContain("isn't yours");
      expect(textOf(view)).toContain("$42.00");
      const owners = JSON.stringify(view.components)
        .match(/"custom_id":"([^"]+)"/g)
        ?.map((m) => decodeCustomId(m.slice('"custom_id":"'.length, -1)))
        .map((d) => (d.ok ? d.id.owner : "malformed"));
      expect(owners?.length ?? 0).toBeGreaterThan(0);
      expect(new Set(owners)).toEqual(new Set([bob.id]));
      tally.add("public actions checked");
    },
  );
});

describe("channel alerts need Manage Channels", () => {
  const deals = DEFAULT_IDS.alertsChannel;

  it("GIVEN bob lacks Manage Channels WHEN he adds a watch rule posting to #deals THEN he is told so privately and no rule is stored; alice, a moderator, can", async () => {
    const before = { upstream: upstreamTotal(bot), db: await dbSnapshot(bot) };
    const h = bot.double.slash(bob, "watch add", {
      name: "into deals",
      item: "Test Rifle | Plain (Field Worn)",
      channel: deals,
    });
    const refused = await answer(h);
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain(`You need the **Manage Channels** permission in <#${deals}>`);
    expect(inhumaneParts(textOf(refused))).toEqual([]);
    expect(upstreamTotal(bot)).toBe(before.upstream);
    expect(await dbSnapshot(bot)).toEqual(before.db);
    expect(await bot.db.prisma.watchRule.count({ where: { user: { discordId: bob.id } } })).toBe(0);

    const fromDm = await answer(
      bot.double.slash(
        bob,
        "watch add",
        { name: "into deals", item: "Test Rifle | Plain (Field Worn)", channel: deals },
        { dm: true },
      ),
    );
    expect(isEphemeral(fromDm)).toBe(true);
    expect(textOf(fromDm)).toContain("Channel alerts are set up from inside a server");
    expect(await dbSnapshot(bot)).toEqual(before.db);

    const allowed = await answer(
      bot.double.slash(alice, "watch add", {
        name: "into deals",
        item: "Test Rifle | Plain (Field Worn)",
        channel: deals,
      }),
    );
    expect(textOf(allowed)).toContain(`<#${deals}>`);
    const rule = await bot.db.prisma.watchRule.findFirst({
      where: { user: { discordId: alice.id }, name: "into deals" },
    });
    expect({ destination: rule?.destination, channelId: rule?.channelId }).toEqual({
      destination: "channel",
      channelId: deals,
    });
    await answer(bot.double.slash(alice, "watch remove", { name: "into deals" }));
    tally.add("channel permission checks", 3);
  });

  it("GIVEN bob lacks Manage Channels WHEN he makes #general his default alert destination with /account settings THEN he is refused and his settings stay as they were", async () => {
    const before = { upstream: upstreamTotal(bot), db: await dbSnapshot(bot) };
    const refused = await answer(bot.double.slash(bob, "account settings", { destination: "channel" }));
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("Manage Channels");
    expect(inhumaneParts(textOf(refused))).toEqual([]);
    expect(upstreamTotal(bot)).toBe(before.upstream);
    expect(await dbSnapshot(bot)).toEqual(before.db);
    const settings = await bot.db.prisma.user.findFirst({ where: { discordId: bob.id } });
    expect(settings?.defaultDestination).toBe("dm");

    const allowed = await answer(bot.double.slash(alice, "account settings", { destination: "channel" }));
    expect(textOf(allowed)).toContain(`<#${bot.double.channelId}>`);
    await answer(bot.double.slash(alice, "account settings", { destination: "dm" }));
    tally.add("channel permission checks", 2);
  });
});

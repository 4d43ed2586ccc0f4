// Server and account installs end to end: the real app registers every command for both, answers
// through the double from servers with and without it, group DMs and its own DM, and delivers
// alerts to an account install by DM, saying once when a DM could not be sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApplicationIntegrationType, InteractionContextType } from "discord.js";
import {
  isEphemeral,
  startDiscordDouble,
  textOf,
  userAnswer,
  type DiscordDouble,
  type InteractionHandle,
  type StoredMessage,
} from "../support/discord.ts";
import { subcommandPaths } from "../../src/discord/command.ts";
import { startBot, type Bot, type BotUser } from "../support/harness.ts";
import { FOREIGN, guildsWithForeignServers } from "../support/installs.ts";
import { uniqueItemName, waitUntil } from "../alerts/engine/world.ts";

let double: DiscordDouble;
let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  double = await startDiscordDouble({ guilds: guildsWithForeignServers() });
  bot = await startBot({
    env: { POLL_INTERVAL_MS: "400", BID_POLL_INTERVAL_MS: "60000", TRADE_POLL_INTERVAL_MS: "60000" },
    reuse: { double },
  });
  ({ alice, bob } = bot.users);
  double.setAccountInstall(alice.id, true);
});

afterAll(async () => {
  await bot?.stop();
  await double?.close();
});

const answer = (h: InteractionHandle): Promise<StoredMessage> => userAnswer(h, 10_000);

describe("registered commands", () => {
  it("GIVEN the app started WHEN it registered its commands THEN every one is offered to server and account installs, in servers, the bot's DM and other DMs", () => {
    const registered = double.registeredCommands();
    expect(registered.map((c) => c.name).sort()).toEqual(
      bot.app.registry.definitions.map((d) => d.name).sort(),
    );
    expect(registered.length).toBeGreaterThan(10);
    for (const command of registered) {
      expect({ name: command.name, types: command.integration_types }).toEqual({
        name: command.name,
        types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
      });
      expect({ name: command.name, contexts: command.contexts }).toEqual({
        name: command.name,
        contexts: [
          InteractionContextType.Guild,
          InteractionContextType.BotDM,
          InteractionContextType.PrivateChannel,
        ],
      });
    }
  });

  it("GIVEN every command WHEN its handlers are read THEN only market data (search, history, stall) answers publicly: account and money commands are private wherever they run", () => {
    const publicPaths: string[] = [];
    for (const module of bot.app.registry.modules) {
      for (const path of subcommandPaths(module.definition)) {
        if (module.handler(path)?.defer === "public") publicPaths.push(`${module.name} ${path}`.trim());
      }
    }
    expect(publicPaths.sort()).toEqual(["history", "search", "stall"]);
  });

  it("GIVEN /help WHEN a user reads it THEN it explains the two installs", async () => {
    const help = await answer(double.slash(bob, "help"));
    expect(textOf(help)).toMatch(/installed to your account/i);
    expect(textOf(help)).toMatch(/added to a server/i);
  });
});

describe("answers by install", () => {
  it("GIVEN the app installed to the server WHEN bob searches there THEN Discord says the server install authorized it and the results are public", async () => {
    bot.sandbox.control.createListing({ market_hash_name: uniqueItemName("srv"), price: 1_500 });
    const h = double.slash(bob, "search");
    expect(h.payload).toMatchObject({ context: 0, authorizing_integration_owners: { "0": double.guild.id } });
    const results = await answer(h);
    expect(isEphemeral(results)).toBe(false);
    expect(results.guildId).toBe(double.guild.id);
  });

  it("GIVEN alice installed the app to her account WHEN she searches in a server without the app that allows external apps THEN the results are public", async () => {
    const h = double.slash(alice, "search", {}, { channelId: FOREIGN.open.channel });
    expect(h.payload).toMatchObject({ context: 0, authorizing_integration_owners: { "1": alice.id } });
    const results = await answer(h);
    expect(isEphemeral(results)).toBe(false);
    expect(results.channelId).toBe(FOREIGN.open.channel);
  });

  it("GIVEN a server without the app whose members may not use external apps WHEN alice searches there THEN the bot itself answers privately", async () => {
    const h = double.slash(alice, "search", {}, { channelId: FOREIGN.strict.channel });
    const first = await h.firstResponse();
    // The bot chose the private deferral: Discord did not have to force it.
    expect(first.type).toBe(5);
    expect(Number(first.data?.flags ?? 0) & 64).toBe(64);
    expect(isEphemeral(await answer(h))).toBe(true);
  });

  it("GIVEN alice in a group DM with friends WHEN she asks for her account THEN the answer is private to her", async () => {
    const h = double.slash(alice, "account status", {}, { privateChannel: true });
    expect(h.payload).toMatchObject({ context: 2, authorizing_integration_owners: { "1": alice.id } });
    const status = await answer(h);
    expect(isEphemeral(status)).toBe(true);
    expect(textOf(status)).toMatch(/link/i);
  });

  it("GIVEN a server without the app WHEN alice asks for channel alerts there THEN she is told why in private and no rule is saved", async () => {
    const h = double.slash(
      alice,
      "watch add",
      { name: "here please", item: uniqueItemName("chan"), channel: FOREIGN.open.channel },
      { channelId: FOREIGN.open.channel },
    );
    const refused = await answer(h);
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("installed to your account, not to this server");
    const rules = await bot.db.prisma.watchRule.count({
      where: { user: { discordId: alice.id }, name: "here please" },
    });
    expect(rules).toBe(0);
  });
});

describe("alerts for an account install", () => {
  it("GIVEN alice installed the app only to her account WHEN a listing matches her rule THEN the alert reaches her DMs; WHEN her DMs bounce THEN her next reply says so once and /alerts recent keeps the alert", async () => {
    const item = uniqueItemName("acct");
    const added = await answer(
      double.slash(alice, "watch add", { name: "acct alerts", item }, { privateChannel: true }),
    );
    expect(textOf(added)).toContain("your DMs");

    const first = bot.sandbox.control.createListing({ market_hash_name: item, price: 2_100 });
    const dm = await double.waitForDm(
      alice.id,
      (m) => m.interactionId === undefined && textOf(m).includes(first.id),
      10_000,
    );
    expect(dm.channelId).toBe(double.dmChannelOf(alice.id));

    double.closeDms(alice.id);
    try {
      const second = bot.sandbox.control.createListing({ market_hash_name: item, price: 2_200 });
      await waitUntil(
        async () =>
          (await bot.db.prisma.outbox.count({
            where: { user: { discordId: alice.id }, status: "failed" },
          })) > 0,
        10_000,
        "the bounced alert",
      );

      const next = double.slash(alice, "help", {}, { channelId: FOREIGN.open.channel });
      const told = await next.waitFor(
        (s) => s.followUps.find((m) => textOf(m).includes("/alerts recent")),
        10_000,
      );
      expect(isEphemeral(told)).toBe(true);
      expect(textOf(told)).toContain("couldn't send you alerts by DM");

      const again = double.slash(alice, "help", {}, { channelId: FOREIGN.open.channel });
      await answer(again);
      await bot.app.router.drain();
      expect(again.followUps().filter((m) => textOf(m).includes("/alerts recent"))).toEqual([]);

      const recent = await answer(double.slash(alice, "alerts recent", {}, { privateChannel: true }));
      expect(textOf(recent)).toContain(second.id);
      expect(textOf(recent)).toContain("failed");
    } finally {
      double.openDms(alice.id);
    }
  });
});

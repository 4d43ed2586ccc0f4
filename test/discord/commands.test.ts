// Registration (one bulk overwrite, skipped when unchanged) and /help generated from the definitions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.ts";
import { deployCommands } from "../../src/discord/deployCommands.ts";
import { createLogger } from "../../src/log.ts";
import { isEphemeral, textOf, type RecordedRequest } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";

let bot: Bot;

const commandPuts = (b: Bot): RecordedRequest[] =>
  b.double.requests.filter(
    (r) => r.method === "PUT" && /^\/applications\/\d+(\/guilds\/\d+)?\/commands$/.test(r.path),
  );

beforeAll(async () => {
  bot = await startBot();
});

afterAll(async () => {
  await bot?.stop();
});

describe("registration", () => {
  it("GIVEN a first start WHEN the bot is ready THEN one global PUT carried every command definition", () => {
    const puts = commandPuts(bot);
    expect(puts).toHaveLength(1);
    expect(puts[0]?.path).toBe(`/applications/${bot.double.applicationId}/commands`);
    expect(puts[0]?.body).toEqual(JSON.parse(JSON.stringify(bot.app.registry.definitions)));
    expect(bot.app.commandsRegistered).toBe(true);
    expect(bot.double.registeredCommands().map((c) => c.name)).toEqual(
      bot.app.registry.definitions.map((d) => d.name),
    );
  });

  it("GIVEN unchanged definitions WHEN the bot restarts THEN it does not register again; GIVEN a dev guild THEN it registers there", async () => {
    bot = await bot.restart();
    expect(bot.app.commandsRegistered).toBe(false);
    expect(commandPuts(bot)).toHaveLength(1);

    const guildId = bot.double.guild.id;
    bot = await bot.restart({ env: { DISCORD_GUILD_ID: guildId } });
    expect(bot.app.commandsRegistered).toBe(true);
    expect(commandPuts(bot).at(-1)?.path).toBe(
      `/applications/${bot.double.applicationId}/guilds/${guildId}/commands`,
    );
    expect(bot.double.registeredCommands(guildId).map((c) => c.name)).toContain("help");
  });
});

describe("npm run deploy:commands", () => {
  it("GIVEN a token and a dev guild WHEN the script runs THEN one PUT to that guild carries every definition", async () => {
    const guildId = bot.double.guild.id;
    const config = loadConfig({
      DISCORD_TOKEN: "deploy-token",
      DISCORD_API_URL: `${bot.double.apiUrl}/v10`,
      DISCORD_GUILD_ID: guildId,
    });
    const before = commandPuts(bot).length;
    const result = await deployCommands(config, createLogger({ level: "silent" }));
    const puts = commandPuts(bot);
    expect(puts).toHaveLength(before + 1);
    expect(puts.at(-1)?.path).toBe(`/applications/${bot.double.applicationId}/guilds/${guildId}/commands`);
    expect((puts.at(-1)?.body as { name: string }[]).map((d) => d.name)).toEqual(result.names);
    expect(result.names).toEqual(bot.app.registry.definitions.map((d) => d.name));
  });
});

describe("/help", () => {
  it("GIVEN the registered commands WHEN a user asks for help THEN every one is listed with its description, privately", async () => {
    const reply = await bot.double.slash(bot.users.bob, "help").finalMessage();
    expect(isEphemeral(reply)).toBe(true);
    const lines = textOf(reply).split("\n");
    const registered = bot.double.registeredCommands();
    expect(registered.length).toBeGreaterThanOrEqual(2);
    for (const command of registered) {
      expect(lines.filter((l) => l.startsWith(`\`/${command.name}\` — ${command.description}`))).toHaveLength(
        1,
      );
    }
    expect(textOf(reply)).toMatch(/`\/account` — .*\(link, unlink, status/);
  });
});

// `npm run deploy:commands`: registers every slash command in one bulk overwrite, globally or to
// DISCORD_GUILD_ID when set. The bot also does this at start when the definitions changed.
import { pathToFileURL } from "node:url";
import { REST, Routes } from "discord.js";
import { commandModules } from "../../commands/index.ts";
import { ConfigError, loadConfig, type Config } from "../config/index.ts";
import { createLogger, type Logger } from "../log.ts";
import { discordRestBase } from "./client.ts";
import { createRegistry } from "./registry.ts";
import { registerCommands, registrationScope } from "./registration.ts";

export async function deployCommands(
  config: Config,
  logger: Logger,
): Promise<{ scope: string; names: string[] }> {
  if (config.DISCORD_TOKEN === undefined) {
    throw new ConfigError(["DISCORD_TOKEN: required to register slash commands with Discord"]);
  }
  const rest = new REST({ api: discordRestBase(config.DISCORD_API_URL) }).setToken(config.DISCORD_TOKEN);
  const applicationId =
    config.DISCORD_APPLICATION_ID ?? ((await rest.get(Routes.currentApplication())) as { id: string }).id;
  const { definitions } = createRegistry(commandModules);
  await registerCommands({ rest, applicationId, guildId: config.DISCORD_GUILD_ID }, definitions);
  const names = definitions.map((d) => d.name);
  const scope = registrationScope(config.DISCORD_GUILD_ID);
  logger.info({ scope, commands: names }, "slash commands deployed");
  return { scope, names };
}

const isEntry = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isEntry) {
  try {
    const config = loadConfig();
    await deployCommands(config, createLogger({ level: config.LOG_LEVEL, name: "deploy-commands" }));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      process.stderr.write(
        `Registering commands failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
    process.exitCode = 1;
  }
}

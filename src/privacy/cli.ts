// `npm run db:forget-user -- <discord id>`: erases a user who asks by mail, with the same
// stop-then-erase as /account delete.
import { ConfigError, loadConfig, type Config } from "../config/index.ts";
import { hasEmbeddedPostgres } from "../db/embedded.ts";
import { openDatabase } from "../db/index.ts";
import { createLogger, type Logger } from "../log.ts";
import { deleteUserData } from "./deleteUserData.ts";

/** Erases a user at their request by mail: the same stop-then-erase as /account delete. */
async function forgetUserCommand(config: Config, logger: Logger, args: string[]): Promise<number> {
  const discordId = args.find((a) => !a.startsWith("--"));
  if (discordId === undefined || !/^\d{5,25}$/.test(discordId)) {
    logger.error("usage: npm run db:forget-user -- <discord user id (digits)>");
    return 2;
  }
  const db = await openDatabase({ config, logger, poolMax: 2 });
  try {
    const result = await deleteUserData({ prisma: db.prisma, logger }, { discordUserId: discordId });
    if (!result.deleted) {
      logger.info({ discordUserId: discordId }, "nothing is stored about this user; nothing to erase");
    } else {
      logger.info(
        { discordUserId: discordId, stopped: result.stopped, erased: result.erased },
        "user forgotten: automation stopped and every record erased",
      );
    }
    return 0;
  } finally {
    await db.close();
  }
}

async function main(args: string[]): Promise<number> {
  const config = loadConfig(undefined, undefined, "tool", { embeddedPostgres: hasEmbeddedPostgres() });
  const logger = createLogger({ level: config.LOG_LEVEL, name: "privacy" });
  return forgetUserCommand(config, logger, args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  },
);

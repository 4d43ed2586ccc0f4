// `npm run db:backup -- [file]`: a pg_dump of the bot's database (DATABASE_URL, or the embedded one)
// and a reminder of the key the dump needs; restoring is in docs/operations.md, "Backup and restore".
import path from "node:path";
import { ConfigError, loadConfig } from "../config/index.ts";
import { createLogger } from "../log.ts";
import { dumpDatabase } from "./backup.ts";
import { hasEmbeddedPostgres } from "./embedded.ts";
import { openDatabase } from "./index.ts";
import { deriveKeyId, KEY_FILE_NAME } from "./keyVault.ts";
import { migrationStamp } from "./migrationNames.ts";

async function main(argv: string[]): Promise<number> {
  const config = loadConfig(undefined, undefined, "tool", { embeddedPostgres: hasEmbeddedPostgres() });
  const logger = createLogger({ level: config.LOG_LEVEL, name: "db" });
  const file = path.resolve(argv[0] ?? `bot-${migrationStamp(new Date())}.dump`);
  const db = await openDatabase({ config, logger, poolMax: 1, migrate: false });
  try {
    await dumpDatabase(db.url, file);
  } finally {
    await db.close();
  }
  // Only named, never read from disk here: reading the key file would create one when absent.
  const keyId =
    config.ENCRYPTION_KEY === undefined
      ? undefined
      : deriveKeyId(Buffer.from(config.ENCRYPTION_KEY, "base64"));
  logger.info(
    { file, ...(keyId === undefined ? { keyFile: path.join(config.dataDir, KEY_FILE_NAME) } : { keyId }) },
    "backup written. Linked marketplace keys in it are sealed: keep the encryption key (ENCRYPTION_KEY, or the key file in DATA_DIR) apart from the dump; without it a restore cannot read them",
  );
  return 0;
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

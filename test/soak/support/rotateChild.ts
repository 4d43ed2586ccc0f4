// A key rotation in key-file mode, run as its own process so a test can kill -9 it at any row.
// Usage: node --import tsx rotateChild.ts <database url> <data dir>; prints "row <id>" per row.
import { createPrismaClient } from "../../../src/db/index.ts";
import { runKeyRotation } from "../../../src/db/rotateKey.ts";
import { createLogger } from "../../../src/log.ts";

const [url, dataDir] = process.argv.slice(2);
if (url === undefined || dataDir === undefined) throw new Error("usage: rotateChild.ts <url> <dataDir>");
const logger = createLogger({ level: "silent" });
const { prisma, pool } = createPrismaClient(url, logger, 2);
await runKeyRotation({
  config: { ENCRYPTION_KEY: undefined, NEW_ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
  logger,
  db: prisma,
  onRow: (userId) => process.stdout.write(`row ${userId}\n`),
});
process.stdout.write("done\n");
await prisma.$disconnect();
await pool.end();

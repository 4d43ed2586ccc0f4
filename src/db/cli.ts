// `npm run db:migrate`, `npm run db:rotate-key` and `npm run db:new-migration -- <name>`
// (`npm run db:forget-user` is the privacy feature's own tool, src/privacy/cli.ts).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, loadConfig, type Config } from "../config/index.ts";
import { createLogger, type Logger } from "../log.ts";
import { hasEmbeddedPostgres } from "./embedded.ts";
import { openDatabase } from "./index.ts";
import { defaultMigrationsDir, readMigrations } from "./migrate.ts";
import { migrationStamp, newMigrationNameProblem } from "./migrationNames.ts";
import { destructiveChanges } from "./migrationSafety.ts";
import { runKeyRotation, UnreadableStoredKeyError } from "./rotateKey.ts";
import { diffSchemas } from "./schemaDiff.ts";

async function migrateCommand(config: Config, logger: Logger): Promise<number> {
  const db = await openDatabase({ config, logger, poolMax: 1 });
  await db.close();
  return 0;
}

async function rotateKeyCommand(config: Config, logger: Logger): Promise<number> {
  const db = await openDatabase({ config, logger, poolMax: 2 });
  try {
    try {
      const outcome = await runKeyRotation({ config, logger, db: db.prisma });
      logger.info(
        { rotated: outcome.rotated, skipped: outcome.skipped, keyId: outcome.newKeyId, in: outcome.newKeyIn },
        "key rotation finished",
      );
      return 0;
    } catch (error) {
      if (!(error instanceof UnreadableStoredKeyError)) throw error;
      // The truth, and nothing lost: rows already moved open with the new key, which is stored.
      logger.error(
        { userId: error.userId, keyId: error.keyId, reason: error.reason, rotated: error.done.rotated },
        "rotation stopped: a stored key cannot be opened; the key was not switched and no key was lost",
      );
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
  } finally {
    await db.close();
  }
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql from the schema change since `--from` (default: git HEAD). */
async function newMigrationCommand(config: Config, logger: Logger, args: string[]): Promise<number> {
  const name = args.find((a) => !a.startsWith("--"));
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    logger.error("usage: npm run db:new-migration -- <snake_case_name> [--from <old schema.prisma>]");
    return 2;
  }
  const migrationsDir = defaultMigrationsDir();
  const folder = `${migrationStamp(new Date())}_${name}`;
  const problem = newMigrationNameProblem(
    folder,
    (await readMigrations(migrationsDir)).map((m) => m.name),
  );
  if (problem !== undefined) {
    logger.error({ migration: folder }, `refusing to write the migration: ${problem}`);
    return 1;
  }
  const root = path.dirname(path.dirname(migrationsDir));
  const schema = path.join(root, "prisma", "schema.prisma");
  const fromIndex = args.indexOf("--from");
  const tmp = await mkdtemp(path.join(os.tmpdir(), "new-migration-"));
  // The WASM diff needs a reachable Postgres even though it reads nothing: use ours.
  const db = await openDatabase({ config, logger, poolMax: 1, migrate: false });
  try {
    let from = fromIndex >= 0 ? args[fromIndex + 1] : undefined;
    if (from === undefined) {
      from = path.join(tmp, "head.prisma");
      const head = await gitShow(root, "HEAD:prisma/schema.prisma");
      await writeFile(from, head);
    }
    const sql = await diffSchemas({ from, to: schema, serverUrl: db.url });
    if (sql.trim() === "" || sql.includes("This is an empty migration")) {
      logger.info("schema.prisma has no changes against the old schema; nothing written");
      return 0;
    }
    const dir = path.join(migrationsDir, folder);
    if (existsSync(dir)) throw new Error(`${dir} exists`);
    await mkdir(dir);
    await writeFile(path.join(dir, "migration.sql"), sql);
    const destructive = destructiveChanges(sql);
    if (destructive.length > 0) {
      // The check (npm run db:check-migrations) will fail on it: say so while it is fresh.
      logger.warn(
        { changes: destructive.map((c) => `${c.kind}: ${c.statement}`) },
        "this migration breaks the previous release during a rolling update: split it (expand now, contract later) or mark it `-- contract-step: <note>`",
      );
    }
    logger.info(
      { file: path.join(dir, "migration.sql") },
      "migration written: review it, then run the db tests (drift test)",
    );
    return 0;
  } finally {
    await db.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

function gitShow(cwd: string, spec: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", ["show", spec], { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(new Error(`git show ${spec} failed; pass --from <old schema.prisma>`)) : resolve(stdout),
    );
  });
}

async function main(argv: string[]): Promise<number> {
  const config = loadConfig(undefined, undefined, "tool", { embeddedPostgres: hasEmbeddedPostgres() });
  const logger = createLogger({ level: config.LOG_LEVEL, name: "db" });
  const [command, ...rest] = argv;
  switch (command) {
    case "migrate":
      return migrateCommand(config, logger);
    case "rotate-key":
      return rotateKeyCommand(config, logger);
    case "new-migration":
      return newMigrationCommand(config, logger, rest);
    default:
      logger.error({ command }, "usage: tsx src/db/cli.ts migrate | rotate-key | new-migration <name>");
      return 2;
  }
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

// The restore drill: a running bot's database dumped with pg_dump, restored with pg_restore into a
// fresh database, and the bot started on it with the same encryption key: rules intact, stored keys
// readable, no alert sent twice and none lost for listings that appeared after the dump.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/index.ts";
import { dumpDatabase, restoreDatabase } from "../../src/db/backup.ts";
import { createPrismaClient } from "../../src/db/index.ts";
import { createKeyVault } from "../../src/db/keyVault.ts";
import { assertStoredKeysReadable } from "../../src/db/rotateKey.ts";
import { createLogger } from "../../src/log.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { emptyDatabase, freshDatabase, testServerUrl, type TestDatabase } from "../support/db.ts";
import { startDiscordDouble, type DiscordDouble, type StoredMessage } from "../support/discord.ts";
import { startBot, type Bot } from "../support/harness.ts";
import { eventually } from "./support.ts";

/** The Postgres server's major version, and pg_dump's: a dump needs a pg_dump at least as new. */
async function toolsFitServer(): Promise<boolean> {
  let tool: number;
  try {
    tool = Number(/(\d+)/.exec(execFileSync("pg_dump", ["--version"], { encoding: "utf8" }))?.[1]);
  } catch {
    process.stdout.write(
      "notice: pg_dump is absent (Debian: postgresql-client); the restore drill is skipped\n",
    );
    return false;
  }
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  await client.end();
  const server = Math.floor(Number(rows[0]?.v) / 10_000);
  if (tool >= server) return true;
  process.stdout.write(
    `notice: pg_dump ${tool} cannot dump this Postgres ${server} (the embedded one?); the restore drill is skipped: run it with TEST_DATABASE_URL on a server of pg_dump's version\n`,
  );
  return false;
}

const fits = await toolsFitServer();

/** The restored database, shaped as the harness takes a test database. */
async function restoredDatabase(file: string): Promise<TestDatabase> {
  const empty = await emptyDatabase();
  await restoreDatabase(file, empty.url);
  const { prisma, pool } = createPrismaClient(empty.url, createLogger({ level: "silent" }), 10);
  return {
    name: empty.name,
    url: empty.url,
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
      await empty.close();
    },
  };
}

describe.skipIf(!fits)("backup and restore drill", () => {
  const encryptionKey = randomBytes(32).toString("base64");
  const item = `Test Blade | restore drill ${randomBytes(3).toString("hex")} (Pristine)`;
  let double: DiscordDouble;
  let sandbox: Sandbox;
  let original: TestDatabase;
  let restored: TestDatabase | undefined;
  let bot: Bot | undefined;
  let dir: string;

  beforeAll(async () => {
    double = await startDiscordDouble();
    sandbox = await startSandbox({ rateLimit: false });
    original = await freshDatabase();
    dir = await mkdtemp(path.join(tmpdir(), "restore-drill-"));
  });

  afterAll(async () => {
    await bot?.stop();
    await restored?.close();
    await original?.close();
    await sandbox?.close();
    await double?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("GIVEN a bot with a linked account, a rule and a sent alert WHEN its database is dumped, restored into a fresh one and the bot restarted on it with the same key THEN rules and keys are intact and only listings after the dump are alerted, once each", async () => {
    const reuse = { double, sandbox, encryptionKey };
    bot = await startBot({ reuse: { ...reuse, db: original } });
    const alice = bot.users.alice;
    await bot.link(alice);
    const user = await original.prisma.user.findUniqueOrThrow({ where: { discordId: alice.id } });
    const rule = await original.prisma.watchRule.create({
      data: { userId: user.id, name: "restore drill", filters: { item }, itemKey: item.toLowerCase() },
    });
    const dmsAbout = (listingId: string) =>
      double.dmsTo(alice.id).filter((m: StoredMessage) => JSON.stringify(m).includes(listingId));

    const before = sandbox.control.createListing({ market_hash_name: item, price: 1_000 });
    await eventually(
      () => dmsAbout(before.id).length === 1,
      20_000,
      "the alert for the listing before the dump",
    );

    // The backup, taken while the bot runs; then the bot and its database are lost.
    const file = path.join(dir, "bot.dump");
    await dumpDatabase(original.url, file);
    expect((await stat(file)).mode & 0o077, "the dump is readable by its owner only").toBe(0);
    await bot.stop();
    bot = undefined;

    // Listings keep appearing while the bot is down.
    const after = [
      sandbox.control.createListing({ market_hash_name: item, price: 2_000 }),
      sandbox.control.createListing({ market_hash_name: item, price: 3_000 }),
    ];

    restored = await restoredDatabase(file);
    const restoredRule = await restored.prisma.watchRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect({ name: restoredRule.name, filters: restoredRule.filters, userId: restoredRule.userId }).toEqual({
      name: "restore drill",
      filters: { item },
      userId: user.id,
    });

    // The stored key opens with the same encryption key, and only with it.
    const vault = createKeyVault(Buffer.from(encryptionKey, "base64"));
    expect(await assertStoredKeysReadable(restored.prisma, vault)).toBe(1);
    const stored = await restored.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(vault.decrypt(stored.encryptedKey ?? "", stored.id)).toBe(alice.demo.apiKey);
    await expect(
      assertStoredKeysReadable(restored.prisma, createKeyVault(randomBytes(32))),
    ).rejects.toBeInstanceOf(ConfigError);

    bot = await startBot({ reuse: { ...reuse, db: restored } });
    for (const listing of after) {
      await eventually(() => dmsAbout(listing.id).length > 0, 20_000, `the alert for listing ${listing.id}`);
    }
    // The feed reads oldest first: a second alert for the listing before the dump would have been
    // sent no later than these.
    expect(dmsAbout(before.id)).toHaveLength(1);
    for (const listing of after) expect(dmsAbout(listing.id), listing.id).toHaveLength(1);
    expect(await restored.prisma.alertLog.count({ where: { ruleId: rule.id } })).toBe(3);
  }, 90_000);
});

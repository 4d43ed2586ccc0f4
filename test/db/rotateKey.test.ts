import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyVault, fingerprint } from "../../src/db/keyVault.ts";
import { ensureUser, linkUser } from "../../src/db/repos/users.ts";
import {
  assertStoredKeysReadable,
  resealStoredKeys,
  runKeyRotation,
  UnreadableStoredKeyError,
  upgradeStoredKeys,
} from "../../src/db/rotateKey.ts";
import { createLogger } from "../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";

const logger = createLogger({ level: "silent" });
const CLI = path.resolve(import.meta.dirname, "../../src/db/cli.ts");

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

async function seed(vault: ReturnType<typeof createKeyVault>, prefix: string, n: number) {
  for (let i = 0; i < n; i++) {
    const apiKey = `${prefix}-secret-key-${i}-abcd`;
    const discordId = `${prefix.length}${String(Date.now()).slice(-8)}${i}${Math.floor(Math.random() * 1e6)}`;
    const row = await ensureUser(db.prisma, discordId);
    await linkUser(db.prisma, {
      discordId,
      encryptedKey: vault.encrypt(apiKey, row.id),
      keyId: vault.keyId,
      keyFingerprint: fingerprint(apiKey),
      platformId: null,
      platformName: null,
    });
  }
}

/** Runs `src/db/cli.ts` in a child with only the given environment (no .env: cwd is a temp folder). */
function cli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), CLI, ...args],
      { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LOG_LEVEL: "info", ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("encryption key rotation", () => {
  it("GIVEN keys sealed under the current key WHEN rotated THEN every key opens with the new one, and a second run has nothing to do", async () => {
    const from = createKeyVault(randomBytes(32));
    const to = createKeyVault(randomBytes(32));
    await seed(from, "rot", 5);
    await db.prisma.user.deleteMany({});
    await seed(from, "rot", 5);
    const first = await resealStoredKeys({ db: db.prisma, from, to, logger, batchSize: 2 });
    expect(first).toEqual({ rotated: 5, skipped: 0 });
    const rows = await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
    for (const row of rows) {
      expect(row.keyId).toBe(to.keyId);
      expect(to.decrypt(row.encryptedKey ?? "", row.id)).toMatch(/^rot-secret-key-\d-abcd$/);
    }
    expect(await resealStoredKeys({ db: db.prisma, from, to, logger })).toEqual({ rotated: 0, skipped: 0 });
  });

  it("GIVEN a key sealed under an unknown key WHEN rotating THEN the run stops at it, says which row, and changes nothing of it", async () => {
    await db.prisma.user.deleteMany({});
    const stranger = createKeyVault(randomBytes(32));
    const from = createKeyVault(randomBytes(32));
    const to = createKeyVault(randomBytes(32));
    await seed(stranger, "lost", 1);
    const before = await db.prisma.user.findFirstOrThrow({ where: { keyId: stranger.keyId } });

    const error = await resealStoredKeys({ db: db.prisma, from, to, logger }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnreadableStoredKeyError);
    expect((error as UnreadableStoredKeyError).userId).toBe(before.id);
    expect((error as Error).message).toContain(`key ${stranger.keyId}`);
    expect((await db.prisma.user.findUniqueOrThrow({ where: { id: before.id } })).encryptedKey).toBe(
      before.encryptedKey,
    );
  });

  it("GIVEN stored keys sealed with a key the bot does not hold WHEN it starts THEN it refuses, naming the key and the fix", async () => {
    await db.prisma.user.deleteMany({});
    const stranger = createKeyVault(randomBytes(32));
    await seed(stranger, "gone", 2);

    await expect(assertStoredKeysReadable(db.prisma, createKeyVault(randomBytes(32)))).rejects.toThrow(
      new RegExp(`2 sealed with key ${stranger.keyId}.*ENCRYPTION_KEY`),
    );
    await expect(assertStoredKeysReadable(db.prisma, stranger)).resolves.toBe(2);
  });

  it("GIVEN a sealed key copied to another user's row WHEN opened there THEN it does not open", async () => {
    const vault = createKeyVault(randomBytes(32));
    const sealed = vault.encrypt("secret-key-of-user-7", 7);

    expect(vault.decrypt(sealed, 7)).toBe("secret-key-of-user-7");
    expect(() => vault.decrypt(sealed, 8)).toThrow(/another user|failed authentication/);
  });

  it("GIVEN rows in the older format (not bound to their user) WHEN the bot starts THEN they are sealed again for their row", async () => {
    await db.prisma.user.deleteMany({});
    const key = randomBytes(32);
    const vault = createKeyVault(key);
    await seed(vault, "old", 2);
    // Rewrite both rows as the older format sealed them: v1, bound to the key id only.
    const { createCipheriv } = await import("node:crypto");
    for (const row of await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } })) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", key, iv, { authTagLength: 16 });
      c.setAAD(Buffer.from(`v1:${vault.keyId}`));
      const ct = Buffer.concat([c.update(`v1-secret-${row.id}`, "utf8"), c.final()]);
      const sealed = [
        "v1",
        vault.keyId,
        iv.toString("base64"),
        c.getAuthTag().toString("base64"),
        ct.toString("base64"),
      ].join(":");
      await db.prisma.user.update({ where: { id: row.id }, data: { encryptedKey: sealed } });
    }

    expect(await upgradeStoredKeys(db.prisma, vault, logger)).toEqual({ rotated: 2, skipped: 0 });
    for (const row of await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } })) {
      expect(row.encryptedKey?.startsWith("v2:")).toBe(true);
      expect(vault.decrypt(row.encryptedKey ?? "", row.id)).toBe(`v1-secret-${row.id}`);
    }
    expect(await upgradeStoredKeys(db.prisma, vault, logger)).toEqual({ rotated: 0, skipped: 0 });
  });

  it("GIVEN a server database WHEN `db:migrate` and `db:rotate-key` run from the command line THEN both succeed and keys move to NEW_ENCRYPTION_KEY", async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), "cli-"));
    try {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const oldVault = createKeyVault(oldKey);
      await db.prisma.user.deleteMany({});
      await seed(oldVault, "cli", 2);

      const migrated = await cli(["migrate"], { DATABASE_URL: db.url, DATA_DIR: cwd }, cwd);
      expect(migrated.code).toBe(0);

      const env = {
        DATABASE_URL: db.url,
        DATA_DIR: cwd,
        ENCRYPTION_KEY: oldKey.toString("base64"),
        NEW_ENCRYPTION_KEY: newKey.toString("base64"),
      };
      const rotated = await cli(["rotate-key"], env, cwd);
      expect(rotated.code).toBe(0);
      expect(rotated.stdout + rotated.stderr).not.toContain(newKey.toString("base64"));
      expect(rotated.stdout + rotated.stderr).not.toContain(oldKey.toString("base64"));
      const newVault = createKeyVault(newKey);
      const rows = await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
      expect(rows.map((r) => newVault.decrypt(r.encryptedKey ?? "", r.id))).toHaveLength(2);

      const missing = await cli(
        ["rotate-key"],
        { DATABASE_URL: db.url, DATA_DIR: cwd, ENCRYPTION_KEY: newKey.toString("base64") },
        cwd,
      );
      expect(missing.code).toBe(2);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it("GIVEN key-file mode (embedded database) WHEN rotated THEN stored keys and the file move to a new key together, and the key is never logged", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "rotate-file-"));
    try {
      const oldKey = randomBytes(32);
      await writeFile(path.join(dataDir, "encryption.key"), `${oldKey.toString("base64")}\n`, {
        mode: 0o600,
      });
      await db.prisma.user.deleteMany({});
      await seed(createKeyVault(oldKey), "file", 3);
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      const outcome = await runKeyRotation({
        config: { ENCRYPTION_KEY: undefined, NEW_ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
        logger: createLogger({ level: "debug" }, sink),
        db: db.prisma,
      });
      expect(outcome).toMatchObject({ rotated: 3, newKeyIn: "file" });
      const newKey = Buffer.from(
        (await readFile(path.join(dataDir, "encryption.key"), "utf8")).trim(),
        "base64",
      );
      expect(newKey).toHaveLength(32);
      expect(newKey.equals(oldKey)).toBe(false);
      const vault = createKeyVault(newKey);
      const rows = await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
      expect(rows.map((r) => vault.decrypt(r.encryptedKey ?? "", r.id))).toHaveLength(3);
      // The rotation's pending copy of the new key is gone once every row uses it.
      await expect(readFile(path.join(dataDir, "encryption.key.next"), "utf8")).rejects.toThrow();
      const log = lines.join("");
      expect(log).not.toContain(newKey.toString("base64"));
      expect(log).not.toContain(oldKey.toString("base64"));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

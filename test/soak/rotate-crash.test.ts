// Keys never lost: a key rotation killed with SIGKILL at random rows, 20 times, leaves every stored
// key readable by the bot after each kill, and a last run finishes the rotation.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyVault, resolveEncryptionKey } from "../../src/db/keyVault.ts";
import { ensureUser, linkUser } from "../../src/db/repos/users.ts";
import { createLogger } from "../../src/log.ts";
import { reliabilityTally } from "../reliability/report.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { seededRandom } from "../../src/util/rng.ts";

const CHILD = path.resolve(import.meta.dirname, "support/rotateChild.ts");
const USERS = 300;
const CYCLES = 20;
const logger = createLogger({ level: "silent" });
const tally = reliabilityTally(
  "rotate-crash",
  "Key rotation killed at random rows (money and keys, item 3)",
  import.meta.url,
);

let db: TestDatabase;
let dataDir: string;
const plain = new Map<number, string>();

beforeAll(async () => {
  db = await freshDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "rotate-crash-"));
  const key = randomBytes(32);
  await writeFile(path.join(dataDir, "encryption.key"), `${key.toString("base64")}\n`, { mode: 0o600 });
  const vault = createKeyVault(key);
  for (let i = 0; i < USERS; i += 1) {
    const row = await ensureUser(db.prisma, `${700000000000000000n + BigInt(i)}`);
    const apiKey = `crash-secret-${i}-${randomBytes(6).toString("hex")}`;
    plain.set(row.id, apiKey);
    await linkUser(db.prisma, {
      discordId: row.discordId,
      encryptedKey: vault.encrypt(apiKey, row.id),
      keyId: vault.keyId,
      keyFingerprint: vault.fingerprint(apiKey),
      platformId: null,
      platformName: null,
    });
  }
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await db?.close();
});

/** Runs the rotation; kills it with SIGKILL once it has re-sealed `killAfter` rows (if it gets there). */
function rotate(killAfter: number | undefined): Promise<{ rows: number; done: boolean; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CHILD, db.url, dataDir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let rows = 0;
    let done = false;
    let killed = false;
    let err = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      rows += (chunk.match(/^row /gm) ?? []).length;
      if (chunk.includes("done")) done = true;
      if (killAfter !== undefined && rows >= killAfter && !killed) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal === null && code !== 0) reject(new Error(`rotation exited ${code}: ${err}`));
      else resolve({ rows, done, killed });
    });
  });
}

/** What the bot would open stored keys with, from the data folder as the kill left it. */
async function everyKeyOpens(): Promise<number> {
  const resolved = await resolveEncryptionKey(
    { ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
    logger,
  );
  const vault = createKeyVault(resolved.key, resolved.keyId, resolved.ring);
  const rows = await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
  let opened = 0;
  for (const row of rows) {
    expect(vault.decrypt(row.encryptedKey ?? "", row.id)).toBe(plain.get(row.id));
    opened += 1;
  }
  return opened;
}

describe("key rotation under kill -9", () => {
  it(`GIVEN ${USERS} stored keys WHEN a rotation is killed at a random row ${CYCLES} times THEN every key opens after each kill, and a last run finishes on one key`, async () => {
    const random = seededRandom(20261125);
    let kills = 0;
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const outcome = await rotate(1 + Math.floor(random() * (USERS - 1)));
      if (outcome.killed) kills += 1;
      expect(await everyKeyOpens()).toBe(USERS);
      tally.add("rotation runs killed with SIGKILL", outcome.killed ? 1 : 0);
      tally.add("stored keys checked readable after a kill", USERS);
    }
    expect(kills).toBeGreaterThanOrEqual(CYCLES / 2);

    const last = await rotate(undefined);
    expect(last.done).toBe(true);
    const key = Buffer.from((await readFile(path.join(dataDir, "encryption.key"), "utf8")).trim(), "base64");
    const onlyNew = createKeyVault(key);
    const rows = await db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
    expect(rows.every((r) => r.keyId === onlyNew.keyId)).toBe(true);
    expect(rows.every((r) => onlyNew.decrypt(r.encryptedKey ?? "", r.id) === plain.get(r.id))).toBe(true);
    await expect(readFile(path.join(dataDir, "encryption.key.next"), "utf8")).rejects.toThrow();
    tally.add("keys lost", 0);
  });
});

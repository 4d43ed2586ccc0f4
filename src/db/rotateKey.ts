// Key rotation and re-sealing of stored marketplace keys, crash-safe at every row: the new key is
// stored before any row is sealed with it, old and new stay known until every row opens with the
// new one, and a row that cannot be opened stops the run with the truth (nothing is guessed).
import { randomBytes } from "node:crypto";
import { readFile, unlink } from "node:fs/promises";
import { ConfigError, type Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import { KeyVaultError } from "./errors.ts";
import {
  createKeyVault,
  deriveKeyId,
  KEY_BYTES,
  nextKeyFilePath,
  resolveEncryptionKey,
  syncDir,
  writeKeyFile,
  type KeyVault,
} from "./keyVault.ts";
import { listUsersNotOnKey, replaceEncryptedKey, storedKeyCounts } from "./repos/users.ts";
import type { Db } from "./types.ts";
import path from "node:path";

export interface RotationResult {
  /** Sealed again with the target key. */
  rotated: number;
  /** Changed by someone else (relinked) while we worked: already fine. */
  skipped: number;
}

/** A stored key no key of the ring opens: the run stops there and says which row and key. */
export class UnreadableStoredKeyError extends Error {
  override readonly name = "UnreadableStoredKeyError";
  constructor(
    readonly userId: number,
    readonly keyId: string | null,
    readonly reason: string,
    readonly done: RotationResult,
  ) {
    super(
      `stored key of user row ${userId} (sealed with key ${keyId ?? "unknown"}) cannot be opened: ${reason}. ` +
        `Stopped without changing it; ${done.rotated} rows were sealed again before it and every one of them still opens.`,
    );
  }
}

/**
 * Seals every stored key again with `to` (and for its user row): rows on another key or in an
 * older format. `from` must open them (its ring holds the old and the new key). Each row is
 * replaced by compare-and-set only after its new value was made, so a kill at any row leaves it on
 * the old value or the new one, both readable. Stops at the first row that cannot be opened.
 */
export async function resealStoredKeys(args: {
  db: Db;
  from: KeyVault;
  to: KeyVault;
  logger: Logger;
  batchSize?: number;
  /** Called after each row (tests and progress reports). */
  onRow?: (userId: number) => void;
}): Promise<RotationResult> {
  const result: RotationResult = { rotated: 0, skipped: 0 };
  let afterId = 0;
  for (;;) {
    const users = await listUsersNotOnKey(args.db, args.to.keyId, {
      afterId,
      limit: args.batchSize ?? 200,
      includeOlderFormat: true,
    });
    if (users.length === 0) break;
    for (const user of users) {
      afterId = user.id;
      if (!args.to.needsReseal(user.encryptedKey)) continue;
      let plain: string;
      try {
        plain = args.from.decrypt(user.encryptedKey, user.id);
      } catch (err) {
        if (!(err instanceof KeyVaultError)) throw err;
        throw new UnreadableStoredKeyError(user.id, user.keyId, err.kind, result);
      }
      const changed = await replaceEncryptedKey(args.db, user.id, user.encryptedKey, {
        encryptedKey: args.to.encrypt(plain, user.id),
        keyId: args.to.keyId,
      });
      if (changed) result.rotated += 1;
      else result.skipped += 1;
      args.onRow?.(user.id);
    }
  }
  return result;
}

export interface KeyRotationOutcome extends RotationResult {
  /** Where the new key now lives: the key file (embedded mode) or the environment (ENCRYPTION_KEY). */
  newKeyIn: "file" | "env";
  newKeyId: string;
}

/**
 * `npm run db:rotate-key`. Key-file mode (embedded database, no ENCRYPTION_KEY): the new key is
 * written to `encryption.key.next` (synced to disk) before any row changes, a killed run resumes
 * with that same key, and only when every row opens with it does it replace `encryption.key`.
 * Environment mode: ENCRYPTION_KEY is the current key and NEW_ENCRYPTION_KEY the new one, which
 * the operator keeps; a killed run is resumed by running it again with both.
 */
export async function runKeyRotation(args: {
  config: Pick<Config, "ENCRYPTION_KEY" | "NEW_ENCRYPTION_KEY" | "embeddedDatabase" | "dataDir">;
  logger: Logger;
  db: Db;
  onRow?: (userId: number) => void;
}): Promise<KeyRotationOutcome> {
  const { config, logger } = args;
  const log = logger.child({ module: "db.rotateKey" });
  const current = await resolveEncryptionKey(config, logger);
  const keyFile = current.source === "env" ? undefined : current.file;
  let next: Buffer;
  if (config.NEW_ENCRYPTION_KEY !== undefined) {
    next = Buffer.from(config.NEW_ENCRYPTION_KEY, "base64");
  } else if (keyFile !== undefined) {
    next = await storedNextKey(config, log);
  } else {
    throw new ConfigError([
      "NEW_ENCRYPTION_KEY: required to rotate (32 random bytes in base64); ENCRYPTION_KEY stays the current key",
    ]);
  }
  if (deriveKeyId(next) === current.keyId) {
    throw new ConfigError(["NEW_ENCRYPTION_KEY: is the current key; nothing to do"]);
  }
  const from = createKeyVault(current.key, current.keyId, [...current.ring, next]);
  const to = createKeyVault(next, deriveKeyId(next), [current.key]);
  log.info({ from: from.keyId, to: to.keyId }, "re-sealing stored keys");
  const result = await resealStoredKeys({
    db: args.db,
    from,
    to,
    logger,
    ...(args.onRow ? { onRow: args.onRow } : {}),
  });
  log.info({ ...result, from: from.keyId, to: to.keyId }, "stored keys re-sealed");
  if (keyFile !== undefined) {
    // Every row opens with the new key: it becomes the key, then the pending copy goes.
    await writeKeyFile(keyFile, next, { exclusive: false });
    await unlink(nextKeyFilePath(config)).catch(() => undefined);
    await syncDir(path.dirname(keyFile));
    log.info({ file: keyFile, keyId: to.keyId }, "encryption key file replaced with the new key");
    return { ...result, newKeyIn: "file", newKeyId: to.keyId };
  }
  log.warn(
    { keyId: to.keyId },
    "stored keys now use the new key: set ENCRYPTION_KEY to NEW_ENCRYPTION_KEY's value before starting the bot",
  );
  return { ...result, newKeyIn: "env", newKeyId: to.keyId };
}

/** The rotation's new key: the one a killed run stored, or a fresh one stored (and synced) now. */
async function storedNextKey(config: Pick<Config, "dataDir">, log: Logger): Promise<Buffer> {
  const file = nextKeyFilePath(config);
  const fresh = randomBytes(KEY_BYTES);
  if (await writeKeyFile(file, fresh, { exclusive: true })) return fresh;
  const stored = Buffer.from((await readFile(file, "utf8")).trim(), "base64");
  if (stored.length !== KEY_BYTES) {
    throw new ConfigError([`${file}: must hold ${KEY_BYTES} bytes in base64 (the file is damaged)`]);
  }
  log.info({ keyId: deriveKeyId(stored) }, "resuming a rotation with the new key it stored");
  return stored;
}

/**
 * At start: every stored key must be sealed with a key this bot holds. Otherwise refuse to start,
 * naming the key and the fix, rather than fail on every poll. Returns the number of rows checked.
 */
export async function assertStoredKeysReadable(db: Db, vault: KeyVault): Promise<number> {
  const rows = await storedKeyCounts(db);
  const unknown = rows.filter((r) => r.key_id === null || !vault.knownKeyIds.includes(r.key_id));
  if (unknown.length > 0) {
    const list = unknown
      .map((r) => `${String(r.n)} sealed with key ${r.key_id ?? "(none recorded)"}`)
      .join(", ");
    throw new ConfigError([
      `ENCRYPTION_KEY: stored marketplace keys were sealed with a key this bot does not hold (${list}; it holds ${vault.knownKeyIds.join(", ")}). ` +
        "Set ENCRYPTION_KEY to that key (or restore DATA_DIR/encryption.key from a backup); if a key rotation was interrupted, run `npm run db:rotate-key` again with ENCRYPTION_KEY and NEW_ENCRYPTION_KEY as before.",
    ]);
  }
  return rows.reduce((n, r) => n + Number(r.n), 0);
}

/**
 * At start, after the check: rows sealed in the older format (not bound to their user) or with a
 * ring key are sealed again with the current key for their own row. Idempotent and crash-safe.
 */
export async function upgradeStoredKeys(db: Db, vault: KeyVault, logger: Logger): Promise<RotationResult> {
  const result = await resealStoredKeys({ db, from: vault, to: vault, logger });
  if (result.rotated > 0) {
    logger.child({ module: "db.rotateKey" }).info(result, "stored keys sealed again for their user");
  }
  return result;
}

// Re-encrypts every stored marketplace key under a new encryption key; resumable after a crash
// because rows already on the new key are skipped.
import { randomBytes } from "node:crypto";
import { ConfigError, type Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import { KeyVaultError } from "./errors.ts";
import { createKeyVault, KEY_BYTES, resolveEncryptionKey, writeKeyFile, type KeyVault } from "./keyVault.ts";
import { listUsersNotOnKey, replaceEncryptedKey } from "./repos/users.ts";
import type { Db } from "./types.ts";

export interface RotationResult {
  rotated: number;
  /** Changed by someone else (relinked) while we worked: already fine. */
  skipped: number;
  /** Could not be decrypted with the current key: left untouched, listed in the log. */
  failed: number;
}

export async function rotateStoredKeys(args: {
  db: Db;
  from: KeyVault;
  to: KeyVault;
  logger: Logger;
  batchSize?: number;
}): Promise<RotationResult> {
  const log = args.logger.child({ module: "db.rotateKey" });
  const result: RotationResult = { rotated: 0, skipped: 0, failed: 0 };
  let afterId = 0;
  for (;;) {
    const users = await listUsersNotOnKey(args.db, args.to.keyId, { afterId, limit: args.batchSize ?? 200 });
    if (users.length === 0) break;
    for (const user of users) {
      afterId = user.id;
      let plain: string;
      try {
        plain = args.from.decrypt(user.encryptedKey);
      } catch (err) {
        if (!(err instanceof KeyVaultError)) throw err;
        result.failed += 1;
        log.error(
          { userId: user.id, reason: err.kind },
          "stored key could not be decrypted with the current key",
        );
        continue;
      }
      const changed = await replaceEncryptedKey(args.db, user.id, user.encryptedKey, {
        encryptedKey: args.to.encrypt(plain),
        keyId: args.to.keyId,
      });
      if (changed) result.rotated += 1;
      else result.skipped += 1;
    }
  }
  log.info({ ...result, from: args.from.keyId, to: args.to.keyId }, "stored keys re-encrypted");
  return result;
}

export interface KeyRotationOutcome extends RotationResult {
  /** Where the new key now lives: the key file (embedded mode) or nowhere yet (set ENCRYPTION_KEY). */
  newKeyIn: "file" | "env";
  newKeyId: string;
}

/**
 * `npm run db:rotate-key`: re-encrypts stored keys from the current key (ENCRYPTION_KEY, or the
 * embedded mode's key file) to NEW_ENCRYPTION_KEY, or to a fresh key in key-file mode. The key
 * file is replaced only after every row moved; failures leave the old key in place.
 */
export async function runKeyRotation(args: {
  config: Pick<Config, "ENCRYPTION_KEY" | "NEW_ENCRYPTION_KEY" | "embeddedDatabase" | "dataDir">;
  logger: Logger;
  db: Db;
}): Promise<KeyRotationOutcome> {
  const { config, logger } = args;
  const current = await resolveEncryptionKey(config, logger);
  const keyFile = current.source === "env" ? undefined : current.file;
  let next: Buffer;
  if (config.NEW_ENCRYPTION_KEY !== undefined) next = Buffer.from(config.NEW_ENCRYPTION_KEY, "base64");
  else if (keyFile !== undefined) next = randomBytes(KEY_BYTES);
  else {
    throw new ConfigError([
      "NEW_ENCRYPTION_KEY: required to rotate (32 random bytes in base64); ENCRYPTION_KEY stays the current key",
    ]);
  }
  const from = createKeyVault(current.key);
  const to = createKeyVault(next);
  if (from.keyId === to.keyId)
    throw new ConfigError(["NEW_ENCRYPTION_KEY: is the current key; nothing to do"]);

  const result = await rotateStoredKeys({ db: args.db, from, to, logger });
  if (result.failed > 0) return { ...result, newKeyIn: keyFile ? "file" : "env", newKeyId: to.keyId };
  if (keyFile !== undefined) {
    await writeKeyFile(keyFile, next, { exclusive: false });
    logger.info({ file: keyFile, keyId: to.keyId }, "encryption key file replaced with the new key");
    return { ...result, newKeyIn: "file", newKeyId: to.keyId };
  }
  logger.warn(
    { keyId: to.keyId },
    "stored keys now use the new key: set ENCRYPTION_KEY to NEW_ENCRYPTION_KEY's value before starting the bot",
  );
  return { ...result, newKeyIn: "env", newKeyId: to.keyId };
}

// Seals users' marketplace keys at rest (AES-256-GCM) and finds the encryption key to use.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { ConfigError, type Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import { KeyVaultError } from "./errors.ts";

/** v1: bound to the key id only (older rows); v2: bound to the key id and the user's row id. */
const FORMAT_V1 = "v1";
const FORMAT = "v2";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;
export const KEY_FILE_NAME = "encryption.key";
/** A rotation's new key, stored before any row is re-sealed and kept until every row uses it. */
export const NEXT_KEY_FILE_NAME = "encryption.key.next";

export interface KeyVault {
  /** Short public id of the key new values are sealed with (not secret): stored beside each row. */
  readonly keyId: string;
  /** Every key id this vault can open: the current one and the others of its key ring. */
  readonly knownKeyIds: readonly string[];
  /**
   * `v2:<keyId>:<iv>:<tag>:<ciphertext>`, base64 parts, a fresh random IV every call, bound to
   * the user's row id: a value copied to another user's row does not open.
   */
  encrypt(plain: string, userId: number): string;
  /** Throws KeyVaultError: `wrong_key` (sealed under a key it does not hold), `tampered`, `malformed`. */
  decrypt(sealed: string, userId: number): string;
  /** True for a value to seal again: an older format, or another key than the current one. */
  needsReseal(sealed: string): boolean;
  /** "…" + the last 4 characters: enough for a user to recognise their key. */
  fingerprint(plain: string): string;
}

/** A public id for a key: a hash prefix, so it says which key without revealing it. */
export function deriveKeyId(key: Buffer): string {
  return createHash("sha256").update("key-id:").update(key).digest("hex").slice(0, 8);
}

/** "…" + last 4 characters; short strings show nothing, as 4 characters would be most of them. */
export function fingerprint(plain: string): string {
  return plain.length >= 12 ? `…${plain.slice(-4)}` : "…";
}

/** The key id a sealed value names, or undefined when it is not an envelope we know. */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split(":");
  return parts.length === 5 && (parts[0] === FORMAT || parts[0] === FORMAT_V1) ? parts[1] : undefined;
}

function aadOf(format: string, keyId: string, userId: number): Buffer {
  // Binding the header stops a ciphertext being relabelled with another key id; v2 also binds the
  // user, so a sealed key moved to another row does not open there.
  return Buffer.from(format === FORMAT_V1 ? `${FORMAT_V1}:${keyId}` : `${FORMAT}:${keyId}:${userId}`, "utf8");
}

/**
 * A vault sealing with `key` and opening values sealed with it or with any key of `ring` (the
 * previous or next key of a rotation in progress).
 */
export function createKeyVault(
  key: Buffer,
  keyId: string = deriveKeyId(key),
  ring: readonly Buffer[] = [],
): KeyVault {
  if (key.length !== KEY_BYTES) {
    throw new RangeError(`encryption key must be ${KEY_BYTES} bytes, got ${key.length}`);
  }
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(keyId)) throw new RangeError("key id must be 1-32 of [A-Za-z0-9_-]");
  const secrets = new Map<string, Buffer>([[keyId, Buffer.from(key)]]);
  for (const other of ring) {
    if (other.length !== KEY_BYTES) throw new RangeError(`encryption key must be ${KEY_BYTES} bytes`);
    const id = deriveKeyId(other);
    if (!secrets.has(id)) secrets.set(id, Buffer.from(other));
  }
  const current = secrets.get(keyId) as Buffer;

  return {
    keyId,
    knownKeyIds: [...secrets.keys()],
    encrypt(plain, userId) {
      if (!Number.isSafeInteger(userId) || userId <= 0)
        throw new RangeError("a sealed key belongs to a user row");
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aadOf(FORMAT, keyId, userId));
      const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [FORMAT, keyId, iv.toString("base64"), tag.toString("base64"), ct.toString("base64")].join(":");
    },
    decrypt(sealed, userId) {
      const parts = sealed.split(":");
      if (parts.length !== 5 || (parts[0] !== FORMAT && parts[0] !== FORMAT_V1)) {
        throw new KeyVaultError("malformed", "stored key is not a v1 or v2 envelope");
      }
      const [format, id, ivText, tagText, ctText] = parts as [string, string, string, string, string];
      const secret = secrets.get(id);
      if (secret === undefined) {
        throw new KeyVaultError(
          "wrong_key",
          `stored key was sealed with encryption key ${id}; this vault holds ${[...secrets.keys()].join(", ")}`,
        );
      }
      const iv = Buffer.from(ivText, "base64");
      const tag = Buffer.from(tagText, "base64");
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new KeyVaultError("malformed", "stored key has a bad IV or tag length");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aadOf(format, id, userId));
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(Buffer.from(ctText, "base64")), decipher.final()]);
        return plain.toString("utf8");
      } catch {
        // Never chain the crypto error: it says nothing useful and must not invite logging inputs.
        throw new KeyVaultError(
          "tampered",
          "stored key failed authentication (altered, sealed for another user, or another key)",
        );
      }
    },
    needsReseal(sealed) {
      const parts = sealed.split(":");
      return parts[0] !== FORMAT || parts[1] !== keyId;
    },
    fingerprint,
  };
}

export interface ResolvedEncryptionKey {
  key: Buffer;
  keyId: string;
  /** Other keys rows may still be sealed with: a rotation's new key while it runs. */
  ring: Buffer[];
  /** `env`: ENCRYPTION_KEY; `file`: an existing data/encryption.key; `generated`: just created. */
  source: "env" | "file" | "generated";
  /** The key file, when the key lives in one. */
  file?: string;
}

export function keyFilePath(config: Pick<Config, "dataDir">): string {
  return path.join(config.dataDir, KEY_FILE_NAME);
}

export function nextKeyFilePath(config: Pick<Config, "dataDir">): string {
  return path.join(config.dataDir, NEXT_KEY_FILE_NAME);
}

/**
 * ENCRYPTION_KEY when set. Otherwise a key kept in `<dataDir>/encryption.key` (generated on first
 * use, 0600): the embedded database's folder, or the compose volume beside its Postgres server.
 * Several processes on one database must share ENCRYPTION_KEY; the start-up check refuses a
 * process whose key opens no stored row.
 */
export async function resolveEncryptionKey(
  config: Pick<Config, "ENCRYPTION_KEY" | "embeddedDatabase" | "dataDir">,
  logger: Logger,
): Promise<ResolvedEncryptionKey> {
  if (config.ENCRYPTION_KEY !== undefined) {
    const key = Buffer.from(config.ENCRYPTION_KEY, "base64");
    return { key, keyId: deriveKeyId(key), ring: [], source: "env" };
  }
  const file = keyFilePath(config);
  const existing = await readKeyFile(file, logger);
  // A rotation stores its new key first: while it runs (or after it was killed), rows may use it.
  const next = existing ? await readKeyFile(nextKeyFilePath(config), logger) : undefined;
  const ring = next ? [next] : [];
  if (existing) return { key: existing, keyId: deriveKeyId(existing), ring, source: "file", file };

  const key = randomBytes(KEY_BYTES);
  const created = await writeKeyFile(file, key, { exclusive: true });
  if (!created) {
    // Another process created it between our read and write: use theirs.
    const theirs = await readKeyFile(file, logger);
    if (theirs) return { key: theirs, keyId: deriveKeyId(theirs), ring: [], source: "file", file };
  }
  logger.warn(
    { file, keyId: deriveKeyId(key), serverDatabase: !config.embeddedDatabase },
    "generated an encryption key for stored marketplace keys; back this file up (without it linked keys cannot be read) or set ENCRYPTION_KEY (required when several processes share the database)",
  );
  return { key, keyId: deriveKeyId(key), ring: [], source: "generated", file };
}

async function readKeyFile(file: string, logger: Logger): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (isErrno(err, "ENOENT")) return undefined;
    throw err;
  }
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== KEY_BYTES) {
    throw new ConfigError([`${file}: must hold ${KEY_BYTES} bytes in base64 (the file is damaged)`]);
  }
  const { mode } = await stat(file);
  if ((mode & 0o077) !== 0) {
    await chmod(file, 0o600);
    logger.warn({ file }, "encryption key file was readable by others; permissions reset to 0600");
  }
  return key;
}

/**
 * Writes a key file with 0600 in a 0700 folder (created if missing). `exclusive` refuses to
 * replace an existing file (returns false); otherwise the file is replaced atomically.
 */
export async function writeKeyFile(
  file: string,
  key: Buffer,
  opts: { exclusive: boolean },
): Promise<boolean> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const target = opts.exclusive ? file : `${file}.${process.pid}.tmp`;
  let handle;
  try {
    handle = await open(target, opts.exclusive ? "wx" : "w", 0o600);
  } catch (err) {
    if (opts.exclusive && isErrno(err, "EEXIST")) return false;
    throw err;
  }
  try {
    await handle.writeFile(`${key.toString("base64")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (!opts.exclusive) {
    try {
      await rename(target, file);
    } catch (err) {
      await unlink(target).catch(() => undefined);
      throw err;
    }
  }
  await syncDir(path.dirname(file));
  return true;
}

/** Makes a file's creation, rename or removal durable: a kill or power loss cannot undo it. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

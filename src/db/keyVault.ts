// Seals users' marketplace keys at rest (AES-256-GCM) and finds the encryption key to use.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { ConfigError, type Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import { KeyVaultError } from "./errors.ts";

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;
export const KEY_FILE_NAME = "encryption.key";

export interface KeyVault {
  /** Short public id of the encryption key (not secret): stored beside each ciphertext. */
  readonly keyId: string;
  /** `v1:<keyId>:<iv>:<tag>:<ciphertext>`, base64 parts; a fresh random IV every call. */
  encrypt(plain: string): string;
  /** Throws KeyVaultError: `wrong_key` (sealed under another key), `tampered`, `malformed`. */
  decrypt(sealed: string): string;
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

/** The key id a sealed value names, or undefined when it is not a v1 envelope. */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split(":");
  return parts.length === 5 && parts[0] === FORMAT ? parts[1] : undefined;
}

export function createKeyVault(key: Buffer, keyId: string = deriveKeyId(key)): KeyVault {
  if (key.length !== KEY_BYTES) {
    throw new RangeError(`encryption key must be ${KEY_BYTES} bytes, got ${key.length}`);
  }
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(keyId)) throw new RangeError("key id must be 1-32 of [A-Za-z0-9_-]");
  // Binding the header as associated data stops a ciphertext being relabelled with another key id.
  const aad = Buffer.from(`${FORMAT}:${keyId}`, "utf8");
  const secret = Buffer.from(key);

  return {
    keyId,
    encrypt(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", secret, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [FORMAT, keyId, iv.toString("base64"), tag.toString("base64"), ct.toString("base64")].join(":");
    },
    decrypt(sealed) {
      const parts = sealed.split(":");
      if (parts.length !== 5 || parts[0] !== FORMAT) {
        throw new KeyVaultError("malformed", "stored key is not a v1 envelope");
      }
      const [, id, ivText, tagText, ctText] = parts as [string, string, string, string, string];
      if (id !== keyId) {
        throw new KeyVaultError(
          "wrong_key",
          `stored key was sealed with encryption key ${id}, this vault holds ${keyId}`,
        );
      }
      const iv = Buffer.from(ivText, "base64");
      const tag = Buffer.from(tagText, "base64");
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new KeyVaultError("malformed", "stored key has a bad IV or tag length");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(Buffer.from(ctText, "base64")), decipher.final()]);
        return plain.toString("utf8");
      } catch {
        // Never chain the crypto error: it says nothing useful and must not invite logging inputs.
        throw new KeyVaultError("tampered", "stored key failed authentication (altered, or another key)");
      }
    },
    fingerprint,
  };
}

export interface ResolvedEncryptionKey {
  key: Buffer;
  keyId: string;
  /** `env`: ENCRYPTION_KEY; `file`: an existing data/encryption.key; `generated`: just created. */
  source: "env" | "file" | "generated";
  /** The key file, when the key lives in one. */
  file?: string;
}

export function keyFilePath(config: Pick<Config, "dataDir">): string {
  return path.join(config.dataDir, KEY_FILE_NAME);
}

/**
 * ENCRYPTION_KEY when set. Otherwise, with the embedded database, a key kept in
 * `<dataDir>/encryption.key` (generated on first use, 0600); with a server database the key
 * must be configured, since a key on one host's disk would strand the data on the server.
 */
export async function resolveEncryptionKey(
  config: Pick<Config, "ENCRYPTION_KEY" | "embeddedDatabase" | "dataDir">,
  logger: Logger,
): Promise<ResolvedEncryptionKey> {
  if (config.ENCRYPTION_KEY !== undefined) {
    const key = Buffer.from(config.ENCRYPTION_KEY, "base64");
    return { key, keyId: deriveKeyId(key), source: "env" };
  }
  if (!config.embeddedDatabase) {
    throw new ConfigError([
      "ENCRYPTION_KEY: required when DATABASE_URL is set; stored marketplace keys are encrypted with it. " +
        "Generate one with `openssl rand -base64 32` (or `node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"`) and keep it safe.",
    ]);
  }
  const file = keyFilePath(config);
  const existing = await readKeyFile(file, logger);
  if (existing) return { key: existing, keyId: deriveKeyId(existing), source: "file", file };

  const key = randomBytes(KEY_BYTES);
  const created = await writeKeyFile(file, key, { exclusive: true });
  if (!created) {
    // Another process created it between our read and write: use theirs.
    const theirs = await readKeyFile(file, logger);
    if (theirs) return { key: theirs, keyId: deriveKeyId(theirs), source: "file", file };
  }
  logger.warn(
    { file, keyId: deriveKeyId(key) },
    "generated an encryption key for stored marketplace keys; back this file up (without it linked keys cannot be read) or set ENCRYPTION_KEY",
  );
  return { key, keyId: deriveKeyId(key), source: "generated", file };
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
  return true;
}

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

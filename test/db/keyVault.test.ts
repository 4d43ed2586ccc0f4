import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { KeyVaultError } from "../../src/db/errors.ts";
import { createKeyVault, fingerprint, resolveEncryptionKey } from "../../src/db/keyVault.ts";
import { createLogger } from "../../src/log.ts";

const API_KEY = "sk_live_0123456789abcdefghij_a1b2";

function capturingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: "debug" }, sink), text: () => lines.join("") };
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "vault-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("key vault", () => {
  it("GIVEN a key WHEN a value is sealed and opened THEN the original comes back and the envelope hides it", () => {
    const vault = createKeyVault(randomBytes(32));
    const sealed = vault.encrypt(API_KEY, 7);
    expect(sealed).toMatch(/^v2:[0-9a-f]{8}:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain(API_KEY);
    expect(vault.decrypt(sealed, 7)).toBe(API_KEY);
  });

  it("GIVEN the same value sealed twice THEN the ciphertexts differ (fresh IV each time)", () => {
    const vault = createKeyVault(randomBytes(32));
    expect(vault.encrypt(API_KEY, 7)).not.toBe(vault.encrypt(API_KEY, 7));
  });

  it("GIVEN a sealed value WHEN one byte of the ciphertext changes THEN decrypting fails as tampered", () => {
    const vault = createKeyVault(randomBytes(32));
    const parts = vault.encrypt(API_KEY, 7).split(":");
    const ct = Buffer.from(parts[4] ?? "", "base64");
    ct[0] = (ct[0] ?? 0) ^ 1;
    parts[4] = ct.toString("base64");
    expect(() => vault.decrypt(parts.join(":"), 7)).toThrow(expect.objectContaining({ kind: "tampered" }));
  });

  it("GIVEN a sealed value WHEN its tag is altered or it is relabelled THEN decrypting fails", () => {
    const key = randomBytes(32);
    const vault = createKeyVault(key);
    const parts = vault.encrypt(API_KEY, 7).split(":");
    const badTag = [...parts];
    badTag[3] = Buffer.alloc(16).toString("base64");
    expect(() => vault.decrypt(badTag.join(":"), 7)).toThrow(KeyVaultError);
    // Same key, another label: the header is authenticated, so this fails too.
    const relabelled = createKeyVault(key, "otherid");
    const moved = [...parts];
    moved[1] = "otherid";
    expect(() => relabelled.decrypt(moved.join(":"), 7)).toThrow(
      expect.objectContaining({ kind: "tampered" }),
    );
    expect(() => vault.decrypt("garbage", 7)).toThrow(expect.objectContaining({ kind: "malformed" }));
  });

  it("GIVEN a value sealed with one key WHEN another key opens it THEN it fails as wrong_key without revealing either", () => {
    const a = createKeyVault(randomBytes(32));
    const b = createKeyVault(randomBytes(32));
    let caught: unknown;
    try {
      b.decrypt(a.encrypt(API_KEY, 7), 7);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyVaultError);
    expect((caught as KeyVaultError).kind).toBe("wrong_key");
    expect(String((caught as Error).message)).not.toContain(API_KEY);
  });

  it("GIVEN a key WHEN fingerprinted THEN only an ellipsis and its last 4 characters show", () => {
    expect(fingerprint(API_KEY)).toBe("…a1b2");
    expect(createKeyVault(randomBytes(32)).fingerprint(API_KEY)).toBe("…a1b2");
    expect(fingerprint("short")).toBe("…");
  });

  it("GIVEN a key of the wrong size THEN the vault refuses it", () => {
    expect(() => createKeyVault(randomBytes(16))).toThrow(RangeError);
  });
});

describe("resolveEncryptionKey", () => {
  it("GIVEN ENCRYPTION_KEY THEN it is used and no file is written", async () => {
    const dataDir = await tempDir();
    const key = randomBytes(32);
    const resolved = await resolveEncryptionKey(
      { ENCRYPTION_KEY: key.toString("base64"), embeddedDatabase: true, dataDir },
      createLogger({ level: "silent" }),
    );
    expect(resolved.source).toBe("env");
    expect(resolved.key.equals(key)).toBe(true);
    await expect(stat(path.join(dataDir, "encryption.key"))).rejects.toThrow();
  });

  it("GIVEN the embedded database and no key WHEN resolved twice THEN a 0600 key file is generated once, with a warning that never shows the key", async () => {
    const dataDir = path.join(await tempDir(), "data");
    const { logger, text } = capturingLogger();
    const first = await resolveEncryptionKey(
      { ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
      logger,
    );
    expect(first.source).toBe("generated");
    const file = path.join(dataDir, "encryption.key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect(text()).toContain("generated an encryption key");
    expect(text()).not.toContain(first.key.toString("base64"));

    const second = await resolveEncryptionKey(
      { ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
      logger,
    );
    expect(second.source).toBe("file");
    expect(second.key.equals(first.key)).toBe(true);
    expect((await readFile(file, "utf8")).trim()).toBe(first.key.toString("base64"));
  });

  it("GIVEN a key file readable by others THEN its permissions are tightened", async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, "encryption.key");
    await writeFile(file, randomBytes(32).toString("base64"), { mode: 0o644 });
    await resolveEncryptionKey(
      { ENCRYPTION_KEY: undefined, embeddedDatabase: true, dataDir },
      createLogger({ level: "silent" }),
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("GIVEN a server DATABASE_URL and no ENCRYPTION_KEY (compose with only a token) THEN a key is kept in the data volume, the same on the next start", async () => {
    const dataDir = await tempDir();
    const config = { ENCRYPTION_KEY: undefined, embeddedDatabase: false, dataDir };
    const first = await resolveEncryptionKey(config, createLogger({ level: "silent" }));
    const again = await resolveEncryptionKey(config, createLogger({ level: "silent" }));

    expect(first.source).toBe("generated");
    expect(again).toMatchObject({ source: "file", keyId: first.keyId });
  });
});

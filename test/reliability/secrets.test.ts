// Secrets: stored keys are ciphertext; no log line (at trace level, through linking, failures,
// 401s and 500s, trade views and the alert engine's polling) and no message the bot sends ever
// holds an API key, an Authorization value, a trade token or the encryption key; and a key
// rotation re-encrypts every stored key so that only the new key opens them.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyVaultError } from "../../src/db/errors.ts";
import { createKeyVault, type KeyVault } from "../../src/db/keyVault.ts";
import { runKeyRotation } from "../../src/db/rotateKey.ts";
import { createLogger } from "../../src/log.ts";
import { alertEngineOf, startBot, type Bot, type BotUser } from "../support/harness.ts";
import { reliabilityTally } from "./report.ts";
import { answer, buttonId, isEphemeral, textOf } from "./support.ts";

const tally = reliabilityTally("secrets", "Secrets (item 7)", import.meta.url);

/** A well-formed key the marketplace does not know. */
const WRONG_KEY = "sandbox-wrong-key-0000000000000999";
const QUIET = {
  POLL_INTERVAL_MS: "3600000",
  BID_POLL_INTERVAL_MS: "3600000",
  TRADE_POLL_INTERVAL_MS: "3600000",
};

/** Everything pino wrote, raw, at trace level: what an operator's log store would hold. */
const captured: string[] = [];
const logger = createLogger(
  { level: "trace", name: "bot" },
  { write: (text: string) => void captured.push(text) },
);
/** Secret strings, with what they are (for failure messages). */
const secrets = new Map<string, string>();

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  bot = await startBot({ env: QUIET, overrides: { logger } });
  ({ alice, bob } = bot.users);
  secrets.set(alice.demo.apiKey, "alice's API key");
  secrets.set(bob.demo.apiKey, "bob's API key");
  secrets.set(WRONG_KEY, "a rejected API key");
  secrets.set(bot.app.config.ENCRYPTION_KEY ?? "", "the encryption key");
  secrets.set("test-bot-token", "the Discord bot token");
});

afterAll(async () => {
  await bot?.stop();
});

const engine = () => alertEngineOf(bot);

/** Each secret found in `text`, by what it is. */
function leaks(text: string): string[] {
  return [...secrets].filter(([secret]) => secret !== "" && text.includes(secret)).map(([, what]) => what);
}

/** Where secrets must never appear: the logs and everything the bot sent to Discord. */
function scan(): { logs: string[]; discord: string[] } {
  const log = captured.join("");
  const sent = bot.double.requests.map((r) => `${r.method} ${r.path} ${r.rawBody}`).join("\n");
  const shown = [...bot.double.interactions()]
    .flatMap((i) => [i.originalMessageId, ...i.followUpIds])
    .map((id) => (id === undefined ? undefined : bot.double.message(id)))
    .map((m) => (m === undefined ? "" : `${textOf(m)} ${JSON.stringify(m.components)}`))
    .join("\n");
  const dms = [alice, bob]
    .flatMap((u) => bot.double.dmsTo(u.id))
    .map((m) => `${textOf(m)} ${JSON.stringify(m.components)}`);
  return { logs: leaks(log), discord: leaks(`${sent}\n${shown}\n${dms.join("\n")}`) };
}

describe("stored keys", () => {
  it("GIVEN alice links her key THEN her users row holds ciphertext that opens with the vault to her key, and the key itself is nowhere in the row", async () => {
    await bot.link(alice);
    const rows = await bot.db.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT * FROM users WHERE discord_id = ${alice.id}`;
    expect(rows).toHaveLength(1);
    const row = rows[0] ?? {};
    const raw = JSON.stringify(row, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    expect(raw).not.toContain(alice.demo.apiKey);
    const sealed = String(row.encrypted_key);
    expect(sealed).toMatch(/^v2:[0-9a-f]{8}:/);
    expect(bot.app.vault.decrypt(sealed, Number(row.id))).toBe(alice.demo.apiKey);
    expect(row.key_id).toBe(bot.app.vault.keyId);
    tally.add("stored rows checked for plaintext keys");
  });
});

describe("logs and replies never hold a secret", () => {
  it("GIVEN a link with a key the marketplace rejects THEN bob is told so privately and nothing is stored", async () => {
    const form = await bot.double.slash(bob, "account link").firstResponse();
    const refused = await answer(
      bot.double.modalSubmit(bob, String(form.data?.custom_id), { key: WRONG_KEY }),
    );
    expect(isEphemeral(refused)).toBe(true);
    expect(textOf(refused)).toContain("That key was rejected by the marketplace");
    expect(
      await bot.db.prisma.user.count({ where: { discordId: bob.id, encryptedKey: { not: null } } }),
    ).toBe(0);
    await bot.link(bob);
    tally.add("paths exercised");
  });

  it("GIVEN the marketplace answers 401 or 500 THEN the commands explain it, the key check marks the key revoked, and relinking recovers", async () => {
    bot.sandbox.control.injectFault({ path: "/me/watchlist", kind: "status", status: 401, times: 1 });
    const unauthorized = await answer(bot.double.slash(alice, "watchlist show"));
    expect(textOf(unauthorized)).toContain("Your marketplace key was rejected");

    bot.sandbox.control.injectFault({ path: "/me/offers-timeline", kind: "status", status: 500, times: 3 });
    const failing = await answer(bot.double.slash(alice, "offer list"));
    expect(textOf(failing)).toContain("The marketplace is having trouble right now");
    bot.sandbox.control.clearFaults();

    const status = await answer(bot.double.slash(alice, "account status"));
    bot.sandbox.control.injectFault({ path: "/me/transactions", kind: "status", status: 401, times: 1 });
    const checked = await answer(bot.double.button(alice, buttonId(status, "Check key now"), status));
    bot.sandbox.control.clearFaults();
    expect(textOf(checked)).toContain("The marketplace refused your key");
    await bot.link(alice);
    expect(textOf(await answer(bot.double.slash(alice, "account status")))).toContain("active");
    tally.add("paths exercised", 3);
  });

  it("GIVEN a sale waiting on alice WHEN she views it and the alert engine polls with her key THEN she sees the trade, gets its DM, and the trade token is never shown or logged", async () => {
    await engine().runTradesOnce(); // baseline: trades that existed before
    const trade = bot.sandbox.control.createSaleForSeller(alice.demo.platformId);
    expect(trade.trade_token).toMatch(/^[0-9a-f]{12}$/);
    secrets.set(trade.trade_token, "a trade token");
    secrets.set(trade.trade_url, "a trade URL (carries the token)");

    const view = await answer(bot.double.slash(alice, "trades view", { trade: trade.id }));
    expect(textOf(view)).toContain(trade.id);
    const list = await answer(bot.double.slash(alice, "trades list"));
    expect(textOf(list)).toContain(trade.id);

    const tradesBefore = bot.sandbox.control.stats().routes["GET /me/trades"]?.total ?? 0;
    await engine().runTradesOnce();
    await engine().runBidsOnce();
    await engine().runFeedOnce();
    await engine().runDeliveryOnce();
    expect(bot.sandbox.control.stats().routes["GET /me/trades"]?.total ?? 0).toBeGreaterThan(tradesBefore);
    const dm = await bot.double.waitForDm(alice.id, (m) => textOf(m).includes(`Trade ${trade.id}`), 20_000);
    expect(textOf(dm)).toContain(trade.id);
    tally.add("paths exercised", 2);
  });

  it("GIVEN a log call that carries secrets in the usual fields THEN the logger redacts every one of them", () => {
    const lines = captured.length;
    logger.child({ module: "probe" }).warn(
      {
        apiKey: alice.demo.apiKey,
        req: { headers: { authorization: alice.demo.apiKey } },
        headers: { authorization: bob.demo.apiKey },
        trade: { trade_token: [...secrets].find(([, what]) => what === "a trade token")?.[0] },
      },
      "redaction probe",
    );
    const probe = captured.slice(lines).join("");
    expect(probe).toContain("redaction probe");
    expect(probe.match(/\[redacted\]/g)).toHaveLength(4);
    expect(leaks(probe)).toEqual([]);
  });

  it("GIVEN everything above THEN no captured log line and nothing sent to Discord holds a secret, and the logs did record those paths", () => {
    const log = captured.join("");
    // The scan means something only if the paths were logged at all.
    for (const endpoint of [
      "GET /me",
      "GET /me/transactions",
      "GET /me/watchlist",
      "GET /trades/{trade_id}",
      "GET /me/trades",
    ]) {
      expect(log, `a logged call to ${endpoint}`).toContain(`"endpoint":"${endpoint}"`);
    }
    // Captured at trace: debug lines (each market call) are in, not just warnings and errors.
    expect(log).toContain('"level":20');
    expect(scan()).toEqual({ logs: [], discord: [] });
    tally.set("secrets scanned for (distinct strings)", [...secrets.keys()].filter((s) => s !== "").length);
    tally.set("log lines scanned", log.split("\n").filter((l) => l !== "").length);
    tally.set("Discord requests scanned", bot.double.requests.length);
  });
});

describe("key rotation", () => {
  it("GIVEN five linked users WHEN the stored keys are rotated THEN every ciphertext changes, opens only with the new key to the same key, and the bot restarted on the new key works", async () => {
    const plain = new Map<string, string>([
      [alice.id, alice.demo.apiKey],
      [bob.id, bob.demo.apiKey],
    ]);
    for (let i = 0; i < 3; i++) {
      const user = bot.sandbox.control.createUser({
        name: `rotation_${i}_${randomBytes(2).toString("hex")}`,
      });
      const discordId = `30000000000000000${i}`;
      secrets.set(user.apiKey, `a rotation user's API key`);
      await bot.app.deps.accounts.link({ discordUserId: discordId, apiKey: user.apiKey });
      plain.set(discordId, user.apiKey);
    }
    const before = await bot.db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
    expect(before).toHaveLength(5);

    const oldVault: KeyVault = bot.app.vault;
    const newKey = randomBytes(32).toString("base64");
    secrets.set(newKey, "the new encryption key");
    const newVault = createKeyVault(Buffer.from(newKey, "base64"));
    const outcome = await runKeyRotation({
      config: {
        ENCRYPTION_KEY: bot.app.config.ENCRYPTION_KEY,
        NEW_ENCRYPTION_KEY: newKey,
        embeddedDatabase: false,
        dataDir: bot.app.config.dataDir,
      },
      logger,
      db: bot.db.prisma,
    });
    expect(outcome).toMatchObject({ rotated: 5, skipped: 0, newKeyId: newVault.keyId });

    const after = await bot.db.prisma.user.findMany({ where: { encryptedKey: { not: null } } });
    expect(after).toHaveLength(5);
    for (const row of after) {
      const was = before.find((b) => b.id === row.id);
      const sealed = row.encryptedKey ?? "";
      expect(sealed).not.toBe(was?.encryptedKey);
      expect(row.keyId).toBe(newVault.keyId);
      expect(newVault.decrypt(sealed, row.id)).toBe(plain.get(row.discordId));
      expect(() => oldVault.decrypt(sealed, row.id)).toThrow(KeyVaultError);
    }

    bot = await bot.restart({ env: { ...QUIET, ENCRYPTION_KEY: newKey }, overrides: { logger } });
    expect(bot.app.vault.keyId).toBe(newVault.keyId);
    const status = await answer(bot.double.slash(alice, "account status"));
    expect(textOf(status)).toContain("active");
    const watchlist = await answer(bot.double.slash(alice, "watchlist show"));
    expect(textOf(watchlist)).toContain("watchlist");
    expect(textOf(watchlist)).not.toContain("rejected");

    expect(scan()).toEqual({ logs: [], discord: [] });
    tally.set("stored keys rotated", outcome.rotated);
    tally.set("secrets scanned for (distinct strings)", [...secrets.keys()].filter((s) => s !== "").length);
    tally.set(
      "log lines scanned",
      captured
        .join("")
        .split("\n")
        .filter((l) => l !== "").length,
    );
    tally.set("Discord requests scanned", bot.double.requests.length);
  });
});

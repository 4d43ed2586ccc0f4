// /account link, status and unlink end to end: the key goes in through a modal, is checked against the
// sandbox marketplace, stored encrypted, and never shown or sent back to Discord.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getUserByDiscordId } from "../../src/db/repos/users.ts";
import { isEphemeral, textOf } from "../support/discord.ts";
import { startBot, type Bot, type BotUser } from "../support/harness.ts";

let bot: Bot;

beforeAll(async () => {
  bot = await startBot();
});

afterAll(async () => {
  await bot?.stop();
});

beforeEach(async () => {
  bot.sandbox.control.clearFaults();
  for (const user of [bot.users.alice, bot.users.bob]) {
    await bot.double.slash(user, "account unlink").finalMessage();
  }
});

/** Opens the link form and submits `key`; resolves with the submit's handle. */
async function submitKey(user: BotUser, key: string) {
  const opened = await bot.double.slash(user, "account link").firstResponse();
  expect(opened.type).toBe(9);
  return bot.double.modalSubmit(user, String(opened.data?.custom_id), { key });
}

describe("/account link", () => {
  it("GIVEN a valid key WHEN submitted in the form THEN the ephemeral reply names the platform user and shows only the last four characters", async () => {
    const { alice } = bot.users;
    const key = alice.demo.apiKey;
    const reply = await (await submitKey(alice, key)).finalMessage();
    expect(isEphemeral(reply)).toBe(true);
    expect(textOf(reply)).toContain(`Linked to **alice** with key \`…${key.slice(-4)}\``);

    const everythingSentToDiscord = bot.double.requests.map((r) => r.rawBody).join("\n");
    expect(everythingSentToDiscord).not.toContain(key);
    expect(JSON.stringify(bot.logs)).not.toContain(key);

    const stored = await getUserByDiscordId(bot.db.prisma, alice.id);
    expect(stored?.status).toBe("active");
    expect(stored?.encryptedKey).not.toContain(key);
    expect(stored && stored.encryptedKey && bot.app.vault.decrypt(stored.encryptedKey, stored.id)).toBe(key);
  });

  it("GIVEN the command itself WHEN registered THEN the key is never a visible option", () => {
    const account = bot.double.registeredCommands().find((c) => c.name === "account");
    const link = (account?.options as { name: string; options?: unknown[] }[] | undefined)?.find(
      (o) => o.name === "link",
    );
    expect(link).toBeDefined();
    expect(link?.options ?? []).toEqual([]);
  });

  it("GIVEN a key the marketplace does not know WHEN submitted THEN the user reads that it was rejected and nothing is stored", async () => {
    const { bob } = bot.users;
    const reply = await (await submitKey(bob, "sandbox-not-a-real-key-0000")).finalMessage();
    expect(textOf(reply)).toContain("That key was rejected by the marketplace");
    expect((await getUserByDiscordId(bot.db.prisma, bob.id))?.encryptedKey ?? null).toBeNull();
  });

  it("GIVEN a key revoked on the marketplace WHEN submitted THEN the user reads that it was rejected and nothing is stored", async () => {
    const { bob } = bot.users;
    const user = bot.sandbox.control.createUser({ name: "revoked-user" });
    bot.sandbox.control.revokeKey(user.apiKey);
    const reply = await (await submitKey(bob, user.apiKey)).finalMessage();
    expect(textOf(reply)).toContain("rejected");
    expect(textOf(reply)).toContain("revoked");
    expect((await getUserByDiscordId(bot.db.prisma, bob.id))?.encryptedKey ?? null).toBeNull();
  });

  it("GIVEN a slow marketplace WHEN the key is submitted THEN the bot defers within a second and edits the answer in later", async () => {
    const { alice } = bot.users;
    bot.sandbox.control.injectFault({ path: "/me/transactions", kind: "latency", ms: 3500, times: 1 });
    const submit = await submitKey(alice, alice.demo.apiKey);
    const first = await submit.firstResponse();
    expect(first.type).toBe(5);
    expect(first.elapsedMs).toBeLessThan(1000);
    const final = await submit.finalMessage(10_000);
    expect(textOf(final)).toContain("Linked to **alice**");
    expect((final.editedAt ?? 0) - first.at).toBeGreaterThanOrEqual(3000);
  });
});

describe("/account status and unlink", () => {
  it("GIVEN a linked account WHEN status is asked THEN it shows name, platform id, fingerprint, active status, link date and rule count", async () => {
    const { alice } = bot.users;
    await bot.link(alice);
    const status = await bot.double.slash(alice, "account status").finalMessage();
    const text = textOf(status);
    expect(isEphemeral(status)).toBe(true);
    expect(text).toContain("alice");
    expect(text).toContain(alice.demo.platformId);
    expect(text).toContain(`…${alice.demo.apiKey.slice(-4)}`);
    expect(text).toContain("active");
    expect(text).toMatch(/Linked since\n<t:\d+:f>/);
    expect(text).toContain("Watch rules\n0");
  });

  it("GIVEN a linked account whose key was revoked WHEN the user checks the key THEN the status message says it was refused and the link is marked revoked", async () => {
    const { alice } = bot.users;
    const key = bot.sandbox.control.createUser({ name: "soon-revoked" }).apiKey;
    await bot.link(alice, key);
    const status = await bot.double.slash(alice, "account status").finalMessage();
    const checkId = String(
      ((status.components[0] as { components: { custom_id: string }[] }).components[0] ?? { custom_id: "" })
        .custom_id,
    );
    bot.sandbox.control.revokeKey(key);
    const check = bot.double.button(alice, checkId, status);
    expect((await check.firstResponse()).type).toBe(6);
    const updated = await check.finalMessage();
    expect(textOf(updated)).toContain("The marketplace refused your key");
    expect((await getUserByDiscordId(bot.db.prisma, alice.id))?.status).toBe("revoked");
  });

  it("GIVEN a linked account WHEN unlinked THEN the key is deleted and status says nothing is linked", async () => {
    const { bob } = bot.users;
    await bot.link(bob);
    const reply = await bot.double.slash(bob, "account unlink").finalMessage();
    expect(textOf(reply)).toContain("Unlinked");
    const stored = await getUserByDiscordId(bot.db.prisma, bob.id);
    expect(stored?.encryptedKey).toBeNull();
    expect(stored?.status).toBe("unlinked");
    const status = await bot.double.slash(bob, "account status").finalMessage();
    expect(textOf(status)).toContain("No marketplace account is linked");
  });

  it("GIVEN nothing linked WHEN unlinking THEN the user is told there is nothing to remove", async () => {
    const reply = await bot.double.slash(bot.users.bob, "account unlink").finalMessage();
    expect(textOf(reply)).toContain("nothing to remove");
  });
});

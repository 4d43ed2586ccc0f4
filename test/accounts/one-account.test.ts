// One marketplace account belongs to one Discord user at a time, so it is never spent through two
// sets of caps: a second Discord user's link of it is refused with what to do and changes nothing,
// two links at once cannot both win (the database's unique index over active links decides), and
// the account can be linked elsewhere once its link is unlinked (or its key refused).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountLinkedElsewhere } from "../../src/db/errors.ts";
import { getUserByDiscordId, linkUser, markRevoked } from "../../src/db/repos/users.ts";
import { isUniqueViolation } from "../../src/db/types.ts";
import { startQuietBot, type Bot, type BotUser } from "../support/harness.ts";
import { standInLink } from "../support/links.ts";
import { answer, buttonId, isEphemeral, textOf } from "../commands/trading-support.ts";
import { uniqueItemName } from "../alerts/engine/world.ts";

let bot: Bot;
let alice: BotUser;
let bob: BotUser;

beforeAll(async () => {
  bot = await startQuietBot(["alice", "bob"]);
  ({ alice, bob } = bot.users);
});

afterAll(async () => {
  const errors = bot?.errorLogs() ?? [];
  await bot?.stop();
  expect(errors).toEqual([]);
});

/** Opens /account link and submits `key`; resolves with what the user reads. */
async function submitKey(user: BotUser, key: string) {
  const opened = await bot.double.slash(user, "account link").firstResponse();
  expect(opened.type).toBe(9);
  return answer(bot.double.modalSubmit(user, String(opened.data?.custom_id), { key }));
}

const linkOf = async (user: BotUser) => {
  const row = await getUserByDiscordId(bot.db.prisma, user.id);
  if (row === null) throw new Error(`${user.username} has no row`);
  const { status, platformId, linkGeneration, encryptedKey } = row;
  return { status, platformId, linkGeneration, encryptedKey };
};

let seq = 0;
const discordIdOf = () => `${930000000000000000n + BigInt(++seq)}`;

describe("/account link of an account another Discord user has linked", () => {
  it("GIVEN alice linked to her account and bob to his own with a live-armed rule WHEN bob submits alice's key THEN he is told privately that the account is linked to another Discord user and to /account unlink there first, and neither link nor his rule changes, AND once alice unlinks, bob's link of it goes through", async () => {
    const settings = await answer(
      bot.double.slash(bob, "account settings", { per_purchase_cap: "100", daily_cap: "500" }),
    );
    expect(textOf(settings)).toContain("Settings saved");
    const item = uniqueItemName("one-account");
    await answer(bot.double.slash(bob, "watch add", { name: "bob live", item, max_price: 30 }));
    const quote = await answer(
      bot.double.slash(bob, "watch arm", { rule: "bob live", mode: "live", max_buys: 1 }),
    );
    expect(textOf(await answer(bot.double.button(bob, buttonId(quote, "Arm"), quote)))).toContain(
      "Armed live: bob live",
    );
    const before = { alice: await linkOf(alice), bob: await linkOf(bob) };
    expect(before.bob.platformId).toBe(bob.demo.platformId);

    const refused = await submitKey(bob, alice.demo.apiKey);

    expect(isEphemeral(refused)).toBe(true);
    const said = textOf(refused);
    expect(said).toContain("already linked to another Discord user");
    expect(said).toContain("`/account unlink`");
    expect(said).not.toContain("Linked to");
    expect(said).not.toContain(alice.username);
    expect({ alice: await linkOf(alice), bob: await linkOf(bob) }).toEqual(before);
    const rule = await bot.db.prisma.watchRule.findFirstOrThrow({
      where: { name: "bob live", user: { discordId: bob.id } },
    });
    expect(rule.armMode).toBe("live");

    expect(textOf(await answer(bot.double.slash(alice, "account unlink")))).toContain("Unlinked");
    const linked = textOf(await submitKey(bob, alice.demo.apiKey));
    expect(linked).toContain("Linked to **alice**");
    expect((await linkOf(bob)).platformId).toBe(alice.demo.platformId);
  });
});

describe("the database keeps one active link per account", () => {
  it("GIVEN two Discord users WHEN both link the same account at once, ten times over THEN each time exactly one link wins and the other is refused", async () => {
    for (let round = 0; round < 10; round++) {
      const platformId = `4242${discordIdOf()}`;
      const [first, second] = [discordIdOf(), discordIdOf()];
      const results = await Promise.allSettled([
        linkUser(bot.db.prisma, standInLink(first, { platformId })),
        linkUser(bot.db.prisma, standInLink(second, { platformId })),
      ]);
      const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(AccountLinkedElsewhere);
      expect(await bot.db.prisma.user.count({ where: { platformId, status: "active" } })).toBe(1);
    }
  });

  it("GIVEN an active link WHEN another row is made an active link of the same account straight in the database THEN the unique index refuses it", async () => {
    const platformId = `4242${discordIdOf()}`;
    await linkUser(bot.db.prisma, standInLink(discordIdOf(), { platformId }));
    const error: unknown = await bot.db.prisma.user
      .create({ data: { discordId: discordIdOf(), status: "active", platformId, encryptedKey: "sealed" } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("GIVEN an account whose link's key was refused WHEN another Discord user links it THEN the link goes through, AND the first user's re-link is then refused", async () => {
    const platformId = `4242${discordIdOf()}`;
    const [first, second] = [discordIdOf(), discordIdOf()];
    const { user } = await linkUser(bot.db.prisma, standInLink(first, { platformId }));
    expect(await markRevoked(bot.db.prisma, user.id)).toBe(true);

    const taken = await linkUser(bot.db.prisma, standInLink(second, { platformId }));
    expect(taken.user.status).toBe("active");
    await expect(
      linkUser(bot.db.prisma, standInLink(first, { platformId, encryptedKey: "v1:abcd1234:iv:tag:new" })),
    ).rejects.toBeInstanceOf(AccountLinkedElsewhere);
    expect((await getUserByDiscordId(bot.db.prisma, first))?.status).toBe("revoked");
  });
});

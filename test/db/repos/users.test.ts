import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRule, listRules } from "../../../src/db/repos/rules.ts";
import {
  clearDmClosed,
  deleteUser,
  ensureUser,
  getSettings,
  getUserByDiscordId,
  linkUser,
  listActiveLinkedUsers,
  markDmClosed,
  markRevoked,
  markRevokedNotified,
  unlinkUser,
  updateSettings,
} from "../../../src/db/repos/users.ts";
import { trackBid } from "../../../src/db/repos/bids.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { standInLink } from "../../support/links.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
const discordId = () => `${900000000000000000n + BigInt(++seq)}`;
const link = (id: string) => linkUser(db.prisma, standInLink(id)).then((o) => o.user);

describe("users repository", () => {
  it("GIVEN a new Discord user WHEN linked THEN the key, fingerprint and defaults are stored", async () => {
    const id = discordId();
    const user = await link(id);
    expect(user).toMatchObject({
      discordId: id,
      status: "active",
      keyFingerprint: "…a1b2",
      keyId: "abcd1234",
    });
    expect(user.linkedAt).toBeInstanceOf(Date);
    expect(user.settings).toEqual({
      defaultDestination: "dm",
      defaultGuildId: null,
      defaultChannelId: null,
      // New users start with caps: $100 a purchase, $300 a day.
      perPurchaseCapCents: 10_000,
      dailyCapCents: 30_000,
      alerts: { listing: true, outbid: true, trade: true, buyOrder: true },
      quietHours: null,
      timezone: "UTC",
    });
    expect((await getUserByDiscordId(db.prisma, id))?.id).toBe(user.id);
  });

  it("GIVEN an active link WHEN two pollers mark it revoked at once THEN exactly one call reports the change", async () => {
    const user = await link(discordId());
    const results = await Promise.all([markRevoked(db.prisma, user.id), markRevoked(db.prisma, user.id)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await getUserByDiscordId(db.prisma, user.discordId))?.status).toBe("revoked");
    expect(await markRevokedNotified(db.prisma, user.id)).toBe(true);
    expect(await markRevokedNotified(db.prisma, user.id)).toBe(false);

    // Relinking makes it active again and clears the revocation marks.
    const relinked = await link(user.discordId);
    expect(relinked).toMatchObject({ status: "active", revokedAt: null, revokedNotifiedAt: null });
  });

  it("GIVEN a linked user with rules and tracked bids WHEN unlinked THEN the key and polls are gone but rules stay", async () => {
    const user = await link(discordId());
    await createRule(db.prisma, { userId: user.id, name: "r", filters: {} }, { maxRulesPerUser: 5 });
    await trackBid(db.prisma, { userId: user.id, listingId: "123", maxPriceCents: 500 });

    expect((await unlinkUser(db.prisma, user.id)).wasLinked).toBe(true);
    expect((await unlinkUser(db.prisma, user.id)).wasLinked).toBe(false);
    const after = await getUserByDiscordId(db.prisma, user.discordId);
    expect(after).toMatchObject({
      status: "unlinked",
      encryptedKey: null,
      keyFingerprint: null,
      keyId: null,
    });
    expect(await db.prisma.trackedBid.count({ where: { userId: user.id } })).toBe(0);
    expect(await listRules(db.prisma, user.id)).toHaveLength(1);
    expect((await listActiveLinkedUsers(db.prisma)).map((u) => u.id)).not.toContain(user.id);
  });

  it("GIVEN settings WHEN patched THEN only given fields change and cents beyond 2^31 come back exactly as numbers", async () => {
    const user = await link(discordId());
    const updated = await updateSettings(db.prisma, user.id, {
      dailyCapCents: 5_000_000_000,
      perPurchaseCapCents: 250_000,
      alerts: { outbid: false },
      quietHours: { startMinute: 22 * 60, endMinute: 7 * 60 },
      timezone: "Europe/Berlin",
      defaultDestination: "channel",
      defaultGuildId: "111111111111111111",
      defaultChannelId: "222222222222222222",
    });
    expect(updated).toEqual({
      defaultDestination: "channel",
      defaultGuildId: "111111111111111111",
      defaultChannelId: "222222222222222222",
      perPurchaseCapCents: 250_000,
      dailyCapCents: 5_000_000_000,
      alerts: { listing: true, outbid: false, trade: true, buyOrder: true },
      quietHours: { startMinute: 1320, endMinute: 420 },
      timezone: "Europe/Berlin",
    });
    const cleared = await updateSettings(db.prisma, user.id, { quietHours: null, dailyCapCents: null });
    expect(cleared.quietHours).toBeNull();
    expect(cleared.dailyCapCents).toBeNull();
    expect((await getSettings(db.prisma, user.id))?.perPurchaseCapCents).toBe(250_000);
    await expect(
      updateSettings(db.prisma, user.id, { quietHours: { startMinute: 1440, endMinute: 0 } }),
    ).rejects.toThrow(RangeError);
    await expect(updateSettings(db.prisma, user.id, { dailyCapCents: 1.5 })).rejects.toThrow(RangeError);
  });

  it("GIVEN a DM bounced because DMs are closed WHEN marked twice and cleared twice THEN each reports the change once", async () => {
    const user = await link(discordId());
    expect(await markDmClosed(db.prisma, user.id)).toBe(true);
    expect(await markDmClosed(db.prisma, user.id)).toBe(false);
    expect((await getUserByDiscordId(db.prisma, user.discordId))?.dmClosedAt).toBeInstanceOf(Date);
    expect(await clearDmClosed(db.prisma, user.id)).toBe(true);
    expect(await clearDmClosed(db.prisma, user.id)).toBe(false);
  });

  it("GIVEN users in every state WHEN listing linked users for the pollers THEN only active keyed ones come, in id pages", async () => {
    const a = await link(discordId());
    const b = await link(discordId());
    const revoked = await link(discordId());
    await markRevoked(db.prisma, revoked.id);
    const never = await ensureUser(db.prisma, discordId());
    expect(never.status).toBe("unlinked");

    const page1 = await listActiveLinkedUsers(db.prisma, { afterId: a.id - 1, limit: 1 });
    expect(page1.map((u) => u.id)).toEqual([a.id]);
    const rest = await listActiveLinkedUsers(db.prisma, { afterId: a.id });
    expect(rest.map((u) => u.id)).toContain(b.id);
    expect(rest.map((u) => u.id)).not.toContain(revoked.id);
    expect(rest.map((u) => u.id)).not.toContain(never.id);
  });

  it("GIVEN a user WHEN deleted THEN everything of theirs goes with them", async () => {
    const user = await link(discordId());
    await createRule(db.prisma, { userId: user.id, name: "gone", filters: {} }, { maxRulesPerUser: 5 });
    expect(await deleteUser(db.prisma, user.discordId)).toBe(true);
    expect(await db.prisma.watchRule.count({ where: { userId: user.id } })).toBe(0);
  });
});

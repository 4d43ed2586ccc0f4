// The auto-accept claim: one insert decides, so of many passes seeing the same sale at once
// (replicas, a restart mid-cycle) exactly one accepts it and tells the user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimAutoAccept, getAutoAccept, saveAutoAccept } from "../../../src/db/repos/autoAccept.ts";
import { ensureUser, getUserById, linkUser, unlinkUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { standInLink } from "../../support/links.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

const ON = { enabled: true, minPriceCents: null, itemContains: null };
const SALE = { priceCents: 1000, itemName: "Rifle" };
const linked = async (discordId: string) => (await linkUser(db.prisma, standInLink(discordId))).user;

describe("auto-accept repository", () => {
  it("GIVEN ten passes claiming the same sale at once WHEN they race THEN exactly one claim is granted", async () => {
    const user = await linked("900000000000000101");
    await saveAutoAccept(db.prisma, user.id, ON, user.linkGeneration);
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => claimAutoAccept(db.prisma, user.id, "9001", SALE)),
    );
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    expect(await db.prisma.autoAccept.count({ where: { userId: user.id } })).toBe(1);
    // Another sale of the same user is its own claim.
    expect(await claimAutoAccept(db.prisma, user.id, "9002", SALE)).toBeDefined();
  });

  it("GIVEN auto-accept turned on WHEN it is off, on another account, unlinked, or the sale is outside its conditions THEN nothing is claimed", async () => {
    const user = await linked("900000000000000103");
    await saveAutoAccept(
      db.prisma,
      user.id,
      { ...ON, minPriceCents: 500, itemContains: "rifle" },
      user.linkGeneration,
    );
    expect(
      await claimAutoAccept(db.prisma, user.id, "1", { priceCents: 499, itemName: "Rifle A" }),
    ).toBeUndefined();
    expect(
      await claimAutoAccept(db.prisma, user.id, "2", { priceCents: 500, itemName: "Pistol" }),
    ).toBeUndefined();
    expect(
      await claimAutoAccept(db.prisma, user.id, "3", { priceCents: undefined, itemName: "Rifle" }),
    ).toBeUndefined();
    expect(
      await claimAutoAccept(db.prisma, user.id, "4", { priceCents: 500, itemName: "Old RIFLE" }),
    ).toBeDefined();
    // Another account linked: the generation moved on, so what was turned on does not carry over.
    await linkUser(db.prisma, standInLink(user.discordId, { platformId: `other${user.discordId}` }));
    await saveAutoAccept(
      db.prisma,
      user.id,
      { ...ON, minPriceCents: 500, itemContains: "rifle" },
      user.linkGeneration,
    );
    expect(
      await claimAutoAccept(db.prisma, user.id, "5", { priceCents: 900, itemName: "Rifle" }),
    ).toBeUndefined();
    const relinked = await getUserById(db.prisma, user.id);
    await saveAutoAccept(db.prisma, user.id, ON, relinked?.linkGeneration);
    expect(await claimAutoAccept(db.prisma, user.id, "6", SALE)).toBeDefined();
    await unlinkUser(db.prisma, user.id);
    await saveAutoAccept(db.prisma, user.id, ON, relinked?.linkGeneration);
    expect(await claimAutoAccept(db.prisma, user.id, "7", SALE)).toBeUndefined();
  });

  it("GIVEN no settings saved WHEN read THEN auto-accept is off, AND saved conditions read back", async () => {
    const user = await ensureUser(db.prisma, "900000000000000102");
    expect((await getAutoAccept(db.prisma, user.id)).enabled).toBe(false);
    await saveAutoAccept(db.prisma, user.id, { enabled: true, minPriceCents: 500, itemContains: "Rifle" });
    expect(await getAutoAccept(db.prisma, user.id)).toEqual({
      enabled: true,
      minPriceCents: 500,
      itemContains: "Rifle",
    });
  });
});

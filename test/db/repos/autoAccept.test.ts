// The auto-accept claim: one insert decides, so of many passes seeing the same sale at once
// (replicas, a restart mid-cycle) exactly one accepts it and tells the user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimAutoAccept, getAutoAccept, saveAutoAccept } from "../../../src/db/repos/autoAccept.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

describe("auto-accept repository", () => {
  it("GIVEN ten passes claiming the same sale at once WHEN they race THEN exactly one claim is granted", async () => {
    const user = await ensureUser(db.prisma, "900000000000000101");
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => claimAutoAccept(db.prisma, user.id, "9001")),
    );
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    expect(await db.prisma.autoAccept.count({ where: { userId: user.id } })).toBe(1);
    // Another sale of the same user is its own claim.
    expect(await claimAutoAccept(db.prisma, user.id, "9002")).toBeDefined();
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

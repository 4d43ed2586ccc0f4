// The closed-DM notice is taken once per closure, by one caller, and can be given back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimDmNotice,
  clearDmClosed,
  ensureUser,
  markDmClosed,
  releaseDmNotice,
} from "../../../src/db/repos/users.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.close();
});

let seq = 0;
const discordId = () => `${910000000000000000n + BigInt(++seq)}`;

describe("closed-DM notice", () => {
  it("GIVEN DMs that never bounced WHEN the notice is claimed THEN there is none", async () => {
    const id = discordId();
    await ensureUser(db.prisma, id);
    expect(await claimDmNotice(db.prisma, id)).toBeUndefined();
  });

  it("GIVEN a bounced DM WHEN two replies claim the notice at once THEN exactly one gets it, and later replies none", async () => {
    const id = discordId();
    const user = await ensureUser(db.prisma, id);
    await markDmClosed(db.prisma, user.id);
    const claims = await Promise.all([claimDmNotice(db.prisma, id), claimDmNotice(db.prisma, id)]);
    expect(claims.filter((c) => c instanceof Date)).toHaveLength(1);
    expect(await claimDmNotice(db.prisma, id)).toBeUndefined();
  });

  it("GIVEN a notice whose reply failed WHEN it is given back THEN the next reply takes it", async () => {
    const id = discordId();
    const user = await ensureUser(db.prisma, id);
    await markDmClosed(db.prisma, user.id);
    expect(await claimDmNotice(db.prisma, id)).toBeInstanceOf(Date);
    await releaseDmNotice(db.prisma, id);
    expect(await claimDmNotice(db.prisma, id)).toBeInstanceOf(Date);
  });

  it("GIVEN DMs that reopened and bounced again WHEN a reply claims THEN the user is told again", async () => {
    const id = discordId();
    const user = await ensureUser(db.prisma, id);
    await markDmClosed(db.prisma, user.id);
    expect(await claimDmNotice(db.prisma, id)).toBeInstanceOf(Date);
    await clearDmClosed(db.prisma, user.id);
    expect(await claimDmNotice(db.prisma, id)).toBeUndefined();
    await markDmClosed(db.prisma, user.id);
    expect(await claimDmNotice(db.prisma, id)).toBeInstanceOf(Date);
  });
});

// Deleting a user's data: every table is searched through the database's own catalogue, so a
// table added later cannot keep a deleted user's rows unnoticed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertAlertsWithOutbox } from "../../src/db/repos/alerts.ts";
import { claimAutoAccept } from "../../src/db/repos/autoAccept.ts";
import { claimArmedMatch } from "../../src/db/repos/autoBuys.ts";
import { ensureUser } from "../../src/db/repos/users.ts";
import { reservationOf } from "../../src/spending/guard.ts";
import { createLogger } from "../../src/log.ts";
import { deleteUserData, previewDelete } from "../../src/privacy/index.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";
import { waitUntil } from "../alerts/engine/world.ts";
import { holdsUsers, ownedRows, traces, userTables } from "./catalogue.ts";
import { seedEverything, type SeededUser } from "./fixtures.ts";

let db: TestDatabase;
const logger = createLogger({ level: "silent" });
const deps = () => ({ prisma: db.prisma, logger });

beforeAll(async () => {
  db = await freshDatabase();
});

afterAll(async () => {
  await db?.close();
});

let counter = 0;
function ids(): { discordId: string; platformId: string } {
  counter += 1;
  return { discordId: `81234567890123${4000 + counter}`, platformId: `4242000000${7000 + counter}` };
}

/** A second user whose alert names the first as a listing's seller: theirs, so it stays. */
async function neighbour(victim: SeededUser): Promise<SeededUser> {
  const other = await seedEverything(db.prisma, { ...ids(), tag: `n${counter}` });
  await db.prisma.outbox.create({
    data: {
      userId: other.userId,
      destination: "dm",
      payload: { alert: { kind: "listing", seller: { id: victim.platformId } } },
      status: "sent",
    },
  });
  return other;
}

describe("deleting a user's data", () => {
  it("GIVEN a user with rows in every table that can hold one WHEN deleted THEN the catalogue walk finds them nowhere AND the other user's rows, even the one naming them as seller, stay", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "victim", armed: "live" });
    const other = await neighbour(victim);
    const tables = (await userTables(db.pool)).filter(holdsUsers);
    expect(tables.length).toBeGreaterThanOrEqual(15);
    // The fixture must reach every such table, or the check below would prove nothing for it.
    const before = await ownedRows(db.pool, victim);
    const unseeded = [...before].filter(([, count]) => count === 0).map(([table]) => table);
    expect(unseeded).toEqual([]);
    const othersBefore = await ownedRows(db.pool, other);

    const result = await deleteUserData(deps(), { discordUserId: victim.discordId });

    expect(result.deleted).toBe(true);
    expect(await traces(db.pool, victim)).toEqual([]);
    expect(await ownedRows(db.pool, other)).toEqual(othersBefore);
    const mention = await db.prisma.outbox.count({
      where: {
        userId: other.userId,
        payload: { path: ["alert", "seller", "id"], equals: victim.platformId },
      },
    });
    expect(mention).toBe(1);
  });

  it("GIVEN a table the delete knows nothing about holding the user's Discord id WHEN deleted THEN the catalogue walk reports it (the check is generic)", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "unknown-table" });
    await db.pool.query(
      "CREATE TABLE scratch_notes (id serial PRIMARY KEY, owner_discord_id text, note jsonb)",
    );
    try {
      await db.pool.query("INSERT INTO scratch_notes (owner_discord_id, note) VALUES (NULL, $1)", [
        JSON.stringify({ about: victim.discordId }),
      ]);
      await deleteUserData(deps(), { discordUserId: victim.discordId });
      expect(await traces(db.pool, victim)).toEqual(["scratch_notes (any column): 1"]);
    } finally {
      await db.pool.query("DROP TABLE scratch_notes");
    }
  });

  it("GIVEN a live-armed rule, an active guard and auto-accept on WHEN deleted THEN the result says each was stopped before the erase", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "armed", armed: "live" });
    const preview = await previewDelete(db.prisma, victim.discordId);
    expect(preview?.stop).toMatchObject({
      keyLinked: true,
      armedRules: 1,
      activeGuards: 1,
      autoAccept: true,
      tracked: 3,
      queuedAlerts: 1,
    });
    expect(preview?.erase.alerts).toBe(1);
    const result = await deleteUserData(deps(), { discordUserId: victim.discordId });
    expect(result).toMatchObject({
      deleted: true,
      stopped: { armedRules: 1, guards: 1, autoAccept: true },
      erased: { watchRules: 1, alerts: 1, outbox: 2, purchases: 1, guards: 1, guardEvents: 1 },
    });
  });

  it("GIVEN two deletes of one user at once (a double click, two replicas) WHEN both run THEN one erases, the other finds nothing, and neither fails", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "twice" });
    const results = await Promise.all([
      deleteUserData(deps(), { discordUserId: victim.discordId }),
      deleteUserData(deps(), { discordUserId: victim.discordId }),
    ]);
    expect(results.map((r) => r.deleted).sort()).toEqual([false, true]);
    expect(await traces(db.pool, victim)).toEqual([]);
    expect(await deleteUserData(deps(), { discordUserId: victim.discordId })).toEqual({ deleted: false });
    expect(await previewDelete(db.prisma, victim.discordId)).toBeUndefined();
  });

  it("GIVEN a deleted user WHEN they come back THEN they start from nothing: default settings, no key, no rules", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "again" });
    await deleteUserData(deps(), { discordUserId: victim.discordId });
    const fresh = await ensureUser(db.prisma, victim.discordId);
    expect(fresh.id).not.toBe(victim.userId);
    expect(fresh.encryptedKey).toBeNull();
    expect(fresh.platformId).toBeNull();
    expect(fresh.settings.quietHours).toBeNull();
    expect(fresh.settings.perPurchaseCapCents).toBe(10_000);
    expect(await db.prisma.watchRule.count({ where: { userId: fresh.id } })).toBe(0);
  });

  it("GIVEN a poller still holding a deleted user's ids WHEN it claims an armed match or a sale, or queues alerts with another user's THEN nothing of theirs is written, nothing fails, and the other user's alert is queued", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "stale", armed: "live" });
    const other = await seedEverything(db.prisma, { ...ids(), tag: "stale-other" });
    await deleteUserData(deps(), { discordUserId: victim.discordId });

    const claim = await claimArmedMatch(db.prisma, {
      userId: victim.userId,
      ruleId: victim.ruleId,
      listingId: "900719925474000",
      mode: "live",
      itemName: "Item",
      priceCents: 1_000,
      referenceCents: undefined,
      exitCents: undefined,
      seenAt: new Date(),
      reserve: {
        request: reservationOf({
          userId: victim.userId,
          kind: "auto_buy",
          idempotencyKey: `auto:${victim.ruleId}:900719925474000`,
          subjectId: "900719925474000",
          unitPriceCents: 1_000,
          totalCents: 1_000,
          authority: { kind: "rule", ruleId: victim.ruleId },
        }),
        filters: {},
        sellerPlatformId: null,
      },
    });
    expect(claim).toEqual({ ok: false, reason: "not_armed" });
    expect(
      await claimAutoAccept(db.prisma, victim.userId, "trade-after-delete", {
        priceCents: 100,
        itemName: "Item",
      }),
    ).toBeUndefined();
    const alert = (userId: number, key: string) => ({
      userId,
      kind: "listing" as const,
      subjectId: "900719925474001",
      version: "1",
      dedupeKey: key,
      destination: "dm" as const,
      payload: { alert: { kind: "listing" } },
    });
    const queued = await insertAlertsWithOutbox(db.prisma, [
      alert(victim.userId, "after-delete:victim"),
      alert(other.userId, "after-delete:other"),
    ]);
    expect(queued.map((q) => q.dedupeKey)).toEqual(["after-delete:other"]);
    expect(await traces(db.pool, victim)).toEqual([]);
  });

  it("GIVEN a purchase of theirs sent and not yet answered WHEN deleted THEN automation stops at once but the erase waits for the purchase's outcome", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "buying", armed: "live" });
    const pending = await db.prisma.purchase.create({
      data: {
        userId: victim.userId,
        idempotencyKey: `inflight-${victim.userId}`,
        kind: "auto_buy",
        totalCents: 900n,
      },
    });
    const deleting = deleteUserData({ ...deps(), pollMs: 20 }, { discordUserId: victim.discordId });
    await waitUntil(
      async () =>
        (await db.prisma.watchRule.count({ where: { userId: victim.userId, armMode: null } })) === 1,
      5_000,
      "the armed rule to be disarmed",
    );
    expect(await db.prisma.user.count({ where: { id: victim.userId } })).toBe(1);
    await db.prisma.purchase.update({ where: { id: pending.id }, data: { status: "succeeded" } });
    expect(await deleting).toMatchObject({
      deleted: true,
      stopped: { armedRules: 1 },
      erased: { purchases: 2 },
    });
    expect(await traces(db.pool, victim)).toEqual([]);
  });

  it("GIVEN one of the user's messages claimed by a delivery worker WHEN deleted THEN the delete returns only once that claim's lease has run out", async () => {
    const victim = await seedEverything(db.prisma, { ...ids(), tag: "inflight" });
    await db.prisma.$executeRaw`
      UPDATE outbox SET status = 'sending', locked_by = 'worker-x',
                        locked_until = now() + interval '600 milliseconds'
       WHERE user_id = ${victim.userId} AND status = 'pending'`;
    const [claimed] = await db.prisma.$queryRaw<{ until: Date }[]>`
      SELECT locked_until AS until FROM outbox WHERE user_id = ${victim.userId} AND status = 'sending'`;
    await deleteUserData({ ...deps(), pollMs: 20 }, { discordUserId: victim.discordId });
    expect(claimed).toBeDefined();
    const [after] = await db.prisma.$queryRaw<
      { passed: boolean }[]
    >`SELECT now() >= ${claimed?.until} AS passed`;
    expect(after?.passed).toBe(true);
  });
});

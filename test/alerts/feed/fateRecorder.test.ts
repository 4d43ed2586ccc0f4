// Listing fates on alert rows: batched writes, first sighting wins, an exact state replaces the feed's guess.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFateRecorder } from "../../../src/feed/fateRecorder.ts";
import { insertAlertsWithOutbox } from "../../../src/db/repos/alerts.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { listingWith } from "../fixtures.ts";

const logger = createLogger({ level: "silent" });
const T0 = Date.parse("2026-11-20T12:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000);
let db: TestDatabase;
let seq = 0;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** A fresh listing id alerted to two users, plus an outbid alert about it (not a listing alert). */
async function alerted(): Promise<string> {
  const listingId = String(900_000 + ++seq);
  const users = await Promise.all(
    [1, 2].map((n) => ensureUser(db.prisma, String(800000000000000000n + BigInt(seq * 10 + n)))),
  );
  await insertAlertsWithOutbox(db.prisma, [
    ...users.map((u) => ({
      userId: u.id,
      kind: "listing" as const,
      subjectId: listingId,
      version: "1000",
      dedupeKey: `listing:x${u.id}:${listingId}`,
      destination: "dm" as const,
      payload: {},
    })),
    {
      userId: users[0]?.id ?? 0,
      kind: "outbid" as const,
      subjectId: listingId,
      version: "1",
      dedupeKey: `outbid:${seq}:${listingId}`,
      destination: "dm" as const,
      payload: {},
    },
  ]);
  return listingId;
}

async function fatesOf(listingId: string) {
  const rows = await db.prisma.alertLog.findMany({
    where: { subjectId: listingId },
    orderBy: { id: "asc" },
    select: { kind: true, goneAt: true, goneState: true },
  });
  return rows.map((r) => ({ kind: r.kind, at: r.goneAt?.toISOString(), state: r.goneState }));
}

const recorder = (now = () => at(100)) =>
  createFateRecorder({ prisma: db.prisma, logger, now, flushDelayMs: 60_000 });

describe("listing fates on alert rows", () => {
  it("GIVEN a listing alerted to two users WHEN the feed sees it gone THEN both listing alerts say gone at that time AND other kinds are untouched", async () => {
    const id = await alerted();
    const r = recorder();

    r.observeGone([id, "123"], at(10));
    expect((await fatesOf(id))[0]?.state).toBeNull(); // batched: nothing written before the flush
    await r.flush();

    const gone = { kind: "listing", at: at(10).toISOString(), state: "gone" };
    expect(await fatesOf(id)).toEqual([gone, gone, { kind: "outbid", at: undefined, state: null }]);
  });

  it("GIVEN a feed guess WHEN a read shows it sold with sold_at THEN the exact state and time replace the guess", async () => {
    const id = await alerted();
    const r = recorder();
    r.observeGone([id], at(10));
    await r.flush();

    r.observeListing(listingWith({ id, state: "sold", sold_at: at(4).toISOString() }));
    await r.flush();

    expect((await fatesOf(id)).slice(0, 2).map((f) => [f.state, f.at])).toEqual([
      ["sold", at(4).toISOString()],
      ["sold", at(4).toISOString()],
    ]);
  });

  it("GIVEN a feed guess WHEN a later read says delisted without a time THEN the state changes and the earlier time stays", async () => {
    const id = await alerted();
    const r = recorder(() => at(300));
    r.observeGone([id], at(10));
    await r.flush();

    r.observeListing(listingWith({ id, state: "delisted" }));
    await r.flush();

    expect((await fatesOf(id))[0]).toEqual({ kind: "listing", at: at(10).toISOString(), state: "delisted" });
  });

  it("GIVEN an exact state THEN later sightings change nothing, nor does a listed read write anything", async () => {
    const id = await alerted();
    const r = recorder();
    r.observeListing(listingWith({ id, state: "listed" }));
    await r.flush();
    expect((await fatesOf(id))[0]?.state).toBeNull();

    r.observeListing(listingWith({ id, state: "sold", sold_at: at(4).toISOString() }));
    await r.flush();
    r.observeGone([id], at(2));
    r.observeListing(listingWith({ id, state: "refunded", sold_at: at(1).toISOString() }));
    await r.flush();

    expect((await fatesOf(id))[0]).toEqual({ kind: "listing", at: at(4).toISOString(), state: "sold" });
  });

  it("GIVEN sightings of many listings THEN they are written in batches of maxBatch", async () => {
    const ids = await Promise.all([alerted(), alerted(), alerted()]);
    const r = createFateRecorder({ prisma: db.prisma, logger, flushDelayMs: 60_000, maxBatch: 2 });
    r.observeGone(ids, at(7));
    await r.close();
    r.observeGone([ids[0] ?? ""], at(8)); // after close: dropped
    await r.flush();

    for (const id of ids) expect((await fatesOf(id))[0]?.at).toBe(at(7).toISOString());
  });
});

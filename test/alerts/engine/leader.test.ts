// Leadership: one holder of the advisory lock per database; a dead holder's lock passes on, a lost connection deposes.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLeader, type Leader } from "../../../src/runtime/leader.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";
import { waitUntil } from "./world.ts";

let db: TestDatabase;
const leaders: Leader[] = [];
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  db = await freshDatabase();
});

afterEach(async () => {
  await Promise.all(leaders.splice(0).map((l) => l.stop()));
});

afterAll(async () => {
  await db?.close();
});

function leader(
  events: string[] = [],
  name = "x",
  timing: { checkIntervalMs?: number; leaseMs?: number } = {},
): Leader {
  const l = createLeader({
    url: db.url,
    logger,
    checkIntervalMs: 60_000, // the tests drive check() themselves
    ...timing,
    onElected: () => events.push(`${name}:elected`),
    onDeposed: () => events.push(`${name}:deposed`),
  });
  leaders.push(l);
  return l;
}

async function terminateLockHolders(): Promise<number> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const res = await admin.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return res.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe("leader election", () => {
  it("GIVEN two processes on one database WHEN both try THEN exactly one leads", async () => {
    const a = leader();
    const b = leader();

    const [ra, rb] = await Promise.all([a.check(), b.check()]);

    expect([ra, rb].filter(Boolean)).toHaveLength(1);
    expect(a.isLeader()).toBe(ra);
    expect(b.isLeader()).toBe(rb);
    // Still so on the next round: the holder keeps it, the other keeps failing.
    expect(await a.check()).toBe(ra);
    expect(await b.check()).toBe(rb);
  });

  it("GIVEN a leader WHEN its database connection is lost THEN it stops leading at once, without waiting for a check", async () => {
    const events: string[] = [];
    const a = leader(events, "a");
    expect(await a.check()).toBe(true);

    expect(await terminateLockHolders()).toBe(1);

    await waitUntil(() => !a.isLeader(), 5_000, "the leader to notice the lost connection");
    expect(events).toEqual(["a:elected", "a:deposed"]);
  });

  it("GIVEN a leader process that dies WHEN the follower checks THEN it takes the lock, AND the old one cannot take it back", async () => {
    const events: string[] = [];
    const a = leader(events, "a");
    const b = leader(events, "b");
    expect(await a.check()).toBe(true);
    expect(await b.check()).toBe(false);

    // The holder's session ends (process killed); it runs no more checks of its own meanwhile.
    expect(await terminateLockHolders()).toBe(1);
    await waitUntil(() => b.check(), 5_000, "the follower to take the lock");

    expect(b.isLeader()).toBe(true);
    expect(await a.check()).toBe(false);
    expect(a.isLeader()).toBe(false);
    expect(events.filter((e) => e.endsWith("elected"))).toEqual(["a:elected", "b:elected"]);
  });

  it("GIVEN a leader that freezes (no more checks) WHEN its lease passes THEN the server ends its session and the follower takes over", async () => {
    // A lease long enough that a loaded machine cannot let it pass between the two first checks
    // (at 300 ms, a CI run with a benchmark beside it once did).
    const a = leader([], "a", { checkIntervalMs: 100, leaseMs: 1_000 });
    const b = leader([], "b");
    expect(await a.check()).toBe(true);
    expect(await b.check()).toBe(false);

    await waitUntil(() => b.check(), 5_000, "the follower to take the frozen leader's lock");

    expect(a.isLeader()).toBe(false);
  });

  it("GIVEN a leader that stops WHEN another checks THEN the lock is free at once", async () => {
    const a = leader();
    const b = leader();
    expect(await a.check()).toBe(true);
    await a.stop();

    expect(await b.check()).toBe(true);
    expect(a.isLeader()).toBe(false);
  });
});

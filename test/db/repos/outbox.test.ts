import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../../src/db/index.ts";
import { insertAlertWithOutbox } from "../../../src/db/repos/alerts.ts";
import {
  claimDue,
  depth,
  enqueueMessage,
  holdPending,
  markFailed,
  renewLease,
  markSent,
  pruneOutbox,
  releaseClaims,
  releaseHeld,
  retryDelayMs,
  takeHeld,
  usersWithHeld,
} from "../../../src/db/repos/outbox.ts";
import { installTag } from "../../../src/db/repos/state.ts";
import { outboxNonce } from "../../../src/outbox/nonce.ts";
import { ensureUser } from "../../../src/db/repos/users.ts";
import type { PrismaClient } from "../../../src/generated/prisma/client.ts";
import { createLogger } from "../../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../../support/db.ts";

let db: TestDatabase;
let other: { prisma: PrismaClient; close(): Promise<void> };
beforeAll(async () => {
  db = await freshDatabase();
  const { prisma, pool } = createPrismaClient(db.url, createLogger({ level: "silent" }), 4);
  other = { prisma, close: async () => (await prisma.$disconnect(), await pool.end()) };
});
afterAll(async () => {
  await other.close();
  await db.close();
});

let seq = 0;
const newUser = () => ensureUser(db.prisma, `${600000000000000000n + BigInt(++seq)}`);
const queue = (userId: number, n: number, status: "pending" | "held" = "pending") =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      enqueueMessage(db.prisma, { userId, destination: "dm", payload: { n: i }, status }),
    ),
  );
/** Empties the queue of due rows from earlier tests so each test sees only its own. */
const drain = async () => {
  for (;;) {
    const claimed = await claimDue(db.prisma, { workerId: "drain", limit: 500, leaseMs: 60_000 });
    if (claimed.length === 0) return;
    for (const c of claimed) await markSent(db.prisma, c.id, "drain");
  }
};

describe("outbox repository", () => {
  it("GIVEN 60 due messages WHEN two workers claim concurrently until empty THEN every message is claimed by exactly one", async () => {
    await drain();
    const user = await newUser();
    const ids = await queue(user.id, 60);
    const claimLoop = async (prisma: PrismaClient, workerId: string) => {
      const mine: number[] = [];
      for (;;) {
        const batch = await claimDue(prisma, { workerId, limit: 7, leaseMs: 60_000 });
        if (batch.length === 0) return mine;
        for (const m of batch) {
          expect(m.discordUserId).toBe(user.discordId);
          mine.push(m.id);
        }
      }
    };
    const [a, b] = await Promise.all([claimLoop(db.prisma, "worker-a"), claimLoop(other.prisma, "worker-b")]);
    expect(a.length + b.length).toBe(60);
    expect(new Set([...a, ...b])).toEqual(new Set(ids));
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    const rows = await db.prisma.outbox.findMany({ where: { userId: user.id } });
    expect(rows.every((r) => r.status === "sending" && r.attempts === 1)).toBe(true);
  });

  it("GIVEN a worker that died holding a lease WHEN the lease expires THEN another worker claims it and the dead one cannot mark it sent", async () => {
    await drain();
    const user = await newUser();
    const [id] = await queue(user.id, 1);
    const [claimed] = await claimDue(db.prisma, { workerId: "dead", limit: 10, leaseMs: 60_000 });
    expect(claimed?.id).toBe(id);
    expect(await claimDue(other.prisma, { workerId: "alive", limit: 10, leaseMs: 60_000 })).toEqual([]);

    // Time passes beyond the lease.
    await db.prisma
      .$executeRaw`UPDATE outbox SET locked_until = now() - interval '1 second' WHERE id = ${id}`;
    const [retaken] = await claimDue(other.prisma, { workerId: "alive", limit: 10, leaseMs: 60_000 });
    expect(retaken).toMatchObject({ id, attempts: 2 });
    expect(await markSent(db.prisma, id ?? 0, "dead", { discordMessageId: "1" })).toBe(false);
    expect(await markSent(other.prisma, id ?? 0, "alive", { discordMessageId: "999" })).toBe(true);
    expect(await db.prisma.outbox.findUnique({ where: { id: BigInt(id ?? 0) } })).toMatchObject({
      status: "sent",
      discordMessageId: "999",
      lockedBy: null,
    });
  });

  it("GIVEN a failed send WHEN marked failed THEN it waits with backoff, gives up after the last attempt, and permanent errors stop at once", async () => {
    await drain();
    const user = await newUser();
    const [id = 0] = await queue(user.id, 1);
    const policy = { maxAttempts: 2, baseDelayMs: 60_000, maxDelayMs: 600_000 };
    await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 });
    expect(await markFailed(db.prisma, id, "w", { error: "503 from Discord" }, policy)).toBe("retry");
    const row = await db.prisma.outbox.findUnique({ where: { id: BigInt(id) } });
    expect(row).toMatchObject({ status: "pending", lastError: "503 from Discord", lockedBy: null });
    expect((row?.nextAttemptAt.getTime() ?? 0) - Date.now()).toBeGreaterThan(30_000);
    expect(await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 })).toEqual([]);

    await db.prisma
      .$executeRaw`UPDATE outbox SET next_attempt_at = now() - interval '1 second' WHERE id = ${id}`;
    await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 });
    expect(await markFailed(db.prisma, id, "w", { error: "503 again" }, policy)).toBe("failed");
    expect(await markFailed(db.prisma, id, "w", { error: "late" }, policy)).toBe("lost_lease");

    const [permanent = 0] = await queue(user.id, 1);
    await claimDue(db.prisma, { workerId: "w", limit: 1, leaseMs: 60_000 });
    expect(await markFailed(db.prisma, permanent, "w", { error: "Unknown Channel", permanent: true })).toBe(
      "failed",
    );

    expect([1, 2, 3, 10].map((n) => retryDelayMs(n, policy))).toEqual([60_000, 120_000, 240_000, 600_000]);
  });

  it("GIVEN quiet hours WHEN messages are held, released or taken for a digest THEN none is lost or duplicated", async () => {
    await drain();
    const user = await newUser();
    await queue(user.id, 2);
    expect(await holdPending(db.prisma, user.id)).toBe(2);
    await insertAlertWithOutbox(db.prisma, {
      userId: user.id,
      kind: "outbid",
      subjectId: "77",
      version: "1500",
      dedupeKey: `outbid:${user.id}:77:1500`,
      destination: "dm",
      payload: { content: "outbid" },
      status: "held",
    });
    expect(await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 })).toEqual([]);
    expect(await usersWithHeld(db.prisma)).toContain(user.id);
    expect((await depth(db.prisma)).held).toBeGreaterThanOrEqual(3);

    const taken = await takeHeld(db.prisma, user.id, 2);
    expect(taken).toHaveLength(2);
    expect(taken.map((t) => t.kind)).toEqual([null, null]);
    expect(await releaseHeld(db.prisma, user.id)).toBe(1);
    const released = await claimDue(db.prisma, { workerId: "w", limit: 10, leaseMs: 60_000 });
    expect(released.map((m) => m.payload)).toEqual([{ content: "outbid" }]);
    expect(await usersWithHeld(db.prisma)).not.toContain(user.id);
  });

  it("GIVEN a worker shutting down WHEN it releases its claims THEN they are due again without an attempt counted", async () => {
    await drain();
    const user = await newUser();
    await queue(user.id, 3);
    await claimDue(db.prisma, { workerId: "leaving", limit: 10, leaseMs: 60_000 });
    expect(await releaseClaims(db.prisma, "leaving")).toBe(3);
    const again = await claimDue(db.prisma, { workerId: "next", limit: 10, leaseMs: 60_000 });
    expect(again.map((m) => m.attempts)).toEqual([1, 1, 1]);
  });

  it("GIVEN queued, sent and failed messages THEN depth counts them and pruning removes only old finished ones", async () => {
    await drain();
    const user = await newUser();
    await queue(user.id, 2);
    const d = await depth(db.prisma);
    expect(d.pending).toBe(2);
    expect(d.oldestPendingAt).toBeInstanceOf(Date);
    const before = await db.prisma.outbox.count();
    expect(await pruneOutbox(db.prisma, new Date(Date.now() + 60_000))).toBeGreaterThan(0);
    const after = await db.prisma.outbox.count();
    expect(after).toBeLessThan(before);
    expect(await db.prisma.outbox.count({ where: { status: "pending" } })).toBe(2);
  });

  it("GIVEN a claimed row whose lease ran out and was claimed again WHEN its first worker renews before sending THEN it is refused and the new owner's renewal works", async () => {
    await drain();
    const user = await newUser();
    await queue(user.id, 1);
    const [first] = await claimDue(db.prisma, { workerId: "slow", limit: 1, leaseMs: 1 });
    if (!first) throw new Error("nothing claimed");
    // The lease lapses (1 ms) and another worker takes the row over.
    await db.prisma.$executeRaw`SELECT pg_sleep(0.01)`;
    const [again] = await claimDue(db.prisma, { workerId: "fast", limit: 1, leaseMs: 60_000 });

    expect(again?.id).toBe(first.id);
    expect(await renewLease(db.prisma, first.id, "slow", 60_000)).toBe(false);
    expect(await renewLease(db.prisma, first.id, "fast", 60_000)).toBe(true);
  });

  it("GIVEN the same row id in a restored database WHEN nonces are made THEN they differ, stay stable per row and fit Discord's 25 characters", async () => {
    const tag = await installTag(db.prisma);
    expect(await installTag(db.prisma)).toBe(tag);
    const before = outboxNonce(
      tag,
      { id: 123_456_789, createdAt: new Date("2026-11-01T10:00:00.000Z") },
      "dm",
    );
    const restored = outboxNonce(
      tag,
      { id: 123_456_789, createdAt: new Date("2026-11-25T10:00:00.001Z") },
      "dm",
    );

    expect(restored).not.toBe(before);
    expect(outboxNonce(tag, { id: 123_456_789, createdAt: new Date("2026-11-01T10:00:00.000Z") }, "dm")).toBe(
      before,
    );
    expect(
      outboxNonce(tag, { id: 123_456_789, createdAt: new Date("2026-11-01T10:00:00.000Z") }, "channel"),
    ).not.toBe(before);
    expect(before.length).toBeLessThanOrEqual(25);
    expect(
      outboxNonce(tag, { id: Number.MAX_SAFE_INTEGER, createdAt: new Date(8.64e15) }, "dm").length,
    ).toBeLessThanOrEqual(25);
  });

  it("GIVEN an alert's row written again under another id (a crash took the first back) WHEN nonces are made THEN both rows carry the same nonce, another alert's differs, and each fits Discord's 25 characters", async () => {
    const tag = await installTag(db.prisma);
    const key = "listing:u42:9001:";
    const first = outboxNonce(
      tag,
      { id: 10, createdAt: new Date("2026-11-01T10:00:00.000Z"), dedupeKey: key },
      "dm",
    );
    const rewritten = outboxNonce(
      tag,
      { id: 11, createdAt: new Date("2026-11-01T10:00:01.000Z"), dedupeKey: key },
      "dm",
    );
    expect(rewritten).toBe(first);
    expect(first.startsWith(tag)).toBe(true);
    expect(first).toHaveLength(25);
    expect(
      outboxNonce(
        tag,
        { id: 10, createdAt: new Date("2026-11-01T10:00:00.000Z"), dedupeKey: `${key}x` },
        "dm",
      ),
    ).not.toBe(first);
    expect(
      outboxNonce(
        tag,
        { id: 10, createdAt: new Date("2026-11-01T10:00:00.000Z"), dedupeKey: key },
        "channel",
      ),
    ).not.toBe(first);
  });
});

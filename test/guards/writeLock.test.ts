// The write lock the guards and the user's order edits share (src/db/writeLocks.ts), on a
// real database: one holder per subject, automation never waits, a command waits its turn (within
// its limit), and a failure inside ends the lock with it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withWriteLock, type WriteSubject } from "../../src/db/writeLocks.ts";
import { freshDatabase, type TestDatabase } from "../support/db.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** A holder that stays inside the lock until released; `leaving` runs as its work ends. */
function holder(subject: WriteSubject, leaving: () => void = () => {}) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const done = withWriteLock(db.prisma, subject, "wait", async () => {
    entered();
    await gate;
    leaving();
    return "held";
  });
  return { inside, release, done };
}

describe("a subject's write lock", () => {
  it("GIVEN an order's lock held WHEN automation tries it THEN it is refused at once and runs nothing, AND another order's or a listing of the same id's lock is free", async () => {
    const order = { kind: "buy_order", id: "7001" } as const;
    const h = holder(order);
    await h.inside;
    let ran = false;
    expect(
      await withWriteLock(db.prisma, order, "try", async () => {
        ran = true;
      }),
    ).toEqual({ ok: false });
    expect(ran).toBe(false);
    expect(await withWriteLock(db.prisma, { kind: "buy_order", id: "7002" }, "try", async () => 1)).toEqual({
      ok: true,
      value: 1,
    });
    expect(await withWriteLock(db.prisma, { kind: "listing", id: "7001" }, "try", async () => 2)).toEqual({
      ok: true,
      value: 2,
    });
    h.release();
    expect(await h.done).toEqual({ ok: true, value: "held" });
  });

  it("GIVEN an order's lock held WHEN a command waits for it THEN it runs only after the holder is done, AND one that cannot have it within its wait limit runs nothing", async () => {
    const order = { kind: "buy_order", id: "7003" } as const;
    const sequence: string[] = [];
    const h = holder(order, () => sequence.push("holder"));
    await h.inside;
    const waiting = withWriteLock(db.prisma, order, "wait", async () => {
      sequence.push("waiter");
      return "after";
    });
    let ranLate = false;
    expect(
      await withWriteLock(
        db.prisma,
        order,
        "wait",
        async () => {
          ranLate = true;
        },
        { waitMs: 200 },
      ),
    ).toEqual({ ok: false });
    expect(ranLate).toBe(false);
    expect(sequence).toEqual([]);
    h.release();
    expect(await waiting).toEqual({ ok: true, value: "after" });
    expect(sequence).toEqual(["holder", "waiter"]);
  });

  it("GIVEN work that fails under the lock WHEN it throws THEN the error reaches the caller, AND the lock is free again", async () => {
    const order = { kind: "buy_order", id: "7004" } as const;
    await expect(
      withWriteLock(db.prisma, order, "wait", async () => {
        throw new Error("the request failed");
      }),
    ).rejects.toThrow("the request failed");
    expect(await withWriteLock(db.prisma, order, "try", async () => "free")).toEqual({
      ok: true,
      value: "free",
    });
  });
});

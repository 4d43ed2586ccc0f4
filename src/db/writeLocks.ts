// One writer at a time per buy order or listing, across every replica: a Postgres advisory lock
// held from the read of the latest state to the answer of the write made from it (ADR 045).
import { Prisma, type PrismaClient } from "../generated/prisma/client.ts";
import { outsideTransaction, type Db } from "./types.ts";

/** What a write lock is about: an order's absolute update, a listing's price. */
export interface WriteSubject {
  readonly kind: "buy_order" | "listing";
  readonly id: string;
}

declare const held: unique symbol;

/**
 * Proof that the caller holds the subject's write lock: only `withWriteLock` makes one, so a verb
 * that must run under the lock takes it as an argument.
 */
export interface HeldWriteLock {
  readonly subject: WriteSubject;
  readonly [held]: true;
}

/**
 * "wait": a user's command waits its turn (up to `WAIT_LIMIT_MS`). "try": automation never
 * waits; a subject being changed is left for its next pass.
 */
export type LockMode = "wait" | "try";

export type Locked<T> = { ok: true; value: T } | { ok: false };

/** The key space of these locks (the two-integer form, apart from the leader locks' one-bigint keys). */
export const WRITE_LOCK_NAMESPACE = 0x5752; // "WR"

/** How long a command waits for the write in flight (a request's own time-out is 10 s). */
export const WAIT_LIMIT_MS = 25_000;

/**
 * The longest a lock is held. Only a request stuck far beyond its own time-out comes near: the
 * transaction holding the lock then ends, and the work's outcome is still returned.
 */
export const HOLD_LIMIT_MS = 5 * 60_000;

/**
 * Runs `fn` holding the subject's write lock. The lock lives in a transaction of its own that does
 * nothing else: `fn` reads and writes on `db` as usual (so a spend reservation is committed
 * before its request leaves), and the lock ends with that transaction, or with its connection if
 * the process dies. `{ ok: false }`: the lock was not had (taken, or not within the wait limit);
 * nothing was run.
 *
 * While it waits, a command holds one pooled connection that does nothing else; automation, which
 * never waits, holds none beyond the holder's.
 */
export async function withWriteLock<T>(
  db: Db,
  subject: WriteSubject,
  mode: LockMode,
  fn: (lock: HeldWriteLock) => Promise<T>,
  opts: { waitMs?: number } = {},
): Promise<Locked<T>> {
  const waitMs = opts.waitMs ?? WAIT_LIMIT_MS;
  outsideTransaction(db, "a write lock");
  const key = Prisma.sql`${WRITE_LOCK_NAMESPACE}::integer, hashtext(${`${subject.kind}:${subject.id}`})`;
  let outcome: { value: T } | { error: unknown } | undefined;
  let locked = false;
  try {
    await (db as PrismaClient).$transaction(
      async (tx) => {
        locked = mode === "try" ? await tryLock(tx, key) : await waitLock(tx, key, waitMs);
        if (!locked) return;
        try {
          outcome = { value: await fn({ subject } as HeldWriteLock) };
        } catch (error) {
          outcome = { error };
        }
      },
      { maxWait: 10_000, timeout: HOLD_LIMIT_MS + waitMs },
    );
  } catch (error) {
    // The lock's transaction failed before the work ran (no connection, the server gone): nothing
    // was done. After it ran, only the lock's ending failed: its outcome stands.
    if (outcome === undefined) throw error;
  }
  if (outcome === undefined) return { ok: false };
  if ("error" in outcome) throw outcome.error;
  return { ok: true, value: outcome.value };
}

async function tryLock(tx: Prisma.TransactionClient, key: Prisma.Sql): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${key}) AS locked`;
  return row?.locked === true;
}

async function waitLock(tx: Prisma.TransactionClient, key: Prisma.Sql, waitMs: number): Promise<boolean> {
  // A whole number of milliseconds, never input: safe to inline (SET takes no parameters).
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(waitMs))}`);
  try {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(${key})::text AS locked`;
    return true;
  } catch (error) {
    if (isLockTimeout(error)) return false;
    throw error;
  }
}

/** Postgres' lock_not_available (55P03): a raw query's P2010, the driver adapter's cause in meta. */
function isLockTimeout(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const { code, meta } = err as { code?: unknown; meta?: unknown };
  return code === "P2010" && meta !== undefined && JSON.stringify(meta).includes('"55P03"');
}

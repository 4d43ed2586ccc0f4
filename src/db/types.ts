// Shared shapes for the repositories: the client-or-transaction they accept, and money mapping.
import { Prisma, type PrismaClient } from "../generated/prisma/client.ts";

/** Either the client or an interactive transaction: repositories work inside both. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** A JSON value as a repository stores it (outbox payloads, rule filters). */
export type JsonValue = Prisma.InputJsonValue;

/** BIGINT cents from the database as a plain number (exact up to 2^53, ~90 trillion dollars). */
export function centsFromDb(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount of ${value} cents is beyond exact number range`);
  return n;
}

export function nullableCentsFromDb(value: bigint | null): number | null {
  return value === null ? null : centsFromDb(value);
}

/** Cents to BIGINT; refuses fractions and unsafe numbers rather than rounding money silently. */
export function centsToDb(cents: number): bigint {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a whole number, got ${cents}`);
  return BigInt(cents);
}

export function nullableCentsToDb(cents: number | null): bigint | null {
  return cents === null ? null : centsToDb(cents);
}

/** BIGINT ids (alert log, outbox) as numbers: they stay far below 2^53. */
export function idFromDb(value: bigint): number {
  return centsFromDb(value);
}

/**
 * Runs `fn` in a transaction: a new one on the client, or the caller's when `db` already is one
 * (so repositories compose inside a caller's transaction).
 */
export async function withTransaction<T>(
  db: Db,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
  options?: { timeout?: number; maxWait?: number },
): Promise<T> {
  // Generous defaults: a burst of transactions can queue for a pooled connection for a while.
  return "$transaction" in db
    ? db.$transaction(fn, { maxWait: 10_000, timeout: 15_000, ...options })
    : fn(db);
}

/**
 * A unique-constraint violation: Prisma's P2002, or Postgres' 23505 as a raw query (or a database
 * function it calls) reports it through the driver adapter.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const { code, meta } = err as { code?: unknown; meta?: unknown };
  if (code === "P2002") return true;
  if (code !== "P2010" || meta === undefined) return false;
  const text = JSON.stringify(meta);
  return text.includes("23505") || text.includes("UniqueConstraintViolation");
}

/**
 * A one-row subquery to join into a statement run on its own (not in a transaction): that
 * statement's commit returns before its write-ahead log record is on disk (ADR 037). Only for
 * writes that a later flushed commit always follows before anything they record leaves the
 * process: the log is flushed in order, so that commit flushes them too, and a crash before it
 * takes back only what nobody outside has seen. Refused inside a transaction, where it would
 * relax the whole transaction's commit.
 */
export function commitFlushedLater(db: Db): Prisma.Sql {
  outsideTransaction(db, "a commit flushed later");
  return Prisma.sql`(SELECT set_config('synchronous_commit', 'off', true))`;
}

/**
 * Refuses a transaction's client: for a statement that decides its own commit (one flushed later
 * would make the caller's whole transaction's commit so).
 */
export function outsideTransaction(db: Db, what: string): void {
  // A transaction's client has no $connect (it does have $transaction).
  if (!("$connect" in db)) throw new Error(`${what} cannot be asked inside a transaction`);
}

// Typed failures of the persistence layer; messages never carry keys, passwords or plaintext.

export type MigrationErrorCode =
  /** A previous run failed half way (Prisma's P3009): fix the database, then mark it rolled back. */
  | "failed_migration"
  /** Applying a migration failed now (Prisma's P3018); the error is in `_prisma_migrations.logs`. */
  | "apply_failed"
  /** An applied migration's file changed afterwards. */
  | "modified_after_applied"
  /** The migrations folder is unreadable or a migration lacks its migration.sql. */
  | "invalid_migrations"
  /** Another migrator held the lock for longer than we were willing to wait. */
  | "lock_timeout";

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    readonly migrations: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class EmbeddedDatabaseError extends Error {
  override readonly name = "EmbeddedDatabaseError";
  constructor(
    message: string,
    /** The tail of the embedded server's log, when there is one. */
    readonly serverLog?: string,
    options?: { cause?: unknown },
  ) {
    super(serverLog ? `${message}\n--- server log (tail) ---\n${serverLog}` : message, options);
  }
}

export type KeyVaultErrorKind = "malformed" | "wrong_key" | "tampered";

export class KeyVaultError extends Error {
  override readonly name = "KeyVaultError";
  constructor(
    readonly kind: KeyVaultErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A link refused: the marketplace account is linked, and active, for another Discord user (one
 * account belongs to one Discord user at a time, ADR 046).
 */
export class AccountLinkedElsewhere extends Error {
  override readonly name = "AccountLinkedElsewhere";
  constructor() {
    super("this marketplace account is linked to another Discord user");
  }
}

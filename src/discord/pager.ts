// Cursor chains behind Previous/Next buttons. A custom id holds at most 45 subject characters, too
// few for a query plus an opaque marketplace cursor, so the button carries a short random token and
// a page number ("Xk3f9aQ2.2") and the query and cursors stay here for a while.
//
// Why memory and not the database: the state is a convenience for a few minutes of browsing, is
// rebuilt by running the command again, and a restart losing it costs one click ("expired, run the
// command again"). A table would add a migration and a sweeper for nothing a user would notice.
import { randomBytes } from "node:crypto";
import { UserFacingError } from "../errors.ts";
import type { Paging } from "./render/button.ts";

/** How long a result set stays pageable after its last use. */
export const PAGER_TTL_MS = 30 * 60_000;
const MAX_SESSIONS = 2_000;

interface Session<Q> {
  readonly query: Q;
  /** cursors[p] reads page p; page 0 needs none. A missing entry: page not reached yet. */
  readonly cursors: Map<number, string | undefined>;
  expiresAt: number;
}

export interface PageRef<Q> {
  readonly token: string;
  readonly page: number;
  readonly query: Q;
  /** The marketplace cursor for this page (undefined for the first). */
  readonly cursor: string | undefined;
}

export interface Pager<Q> {
  /** Starts a result set; returns the ref of its first page. */
  open(query: Q): PageRef<Q>;
  /**
   * Resolves a button's subject ("token.page") to the page to read. Throws a clear
   * UserFacingError when the result set is gone (expired, evicted, or the bot restarted).
   */
  resolve(subject: string, what: string): PageRef<Q>;
  /** Records what the read of `ref` taught us: the cursor of the page after it, if any. */
  record(ref: PageRef<Q>, next: string | undefined): { hasPrevious: boolean; hasNext: boolean };
  /** Subject for a button leading to `page` of the same result set. */
  subject(ref: PageRef<Q>, page: number): string;
}

const SUBJECT = /^([A-Za-z0-9_-]{6,16})\.(\d{1,4})$/;

export function createPager<Q>(now: () => number): Pager<Q> {
  const sessions = new Map<string, Session<Q>>();

  const sweep = (at: number) => {
    for (const [token, s] of sessions) {
      if (s.expiresAt <= at) sessions.delete(token);
    }
    // Oldest first in insertion order: drop the least recently used beyond the cap.
    while (sessions.size > MAX_SESSIONS) {
      const oldest = sessions.keys().next().value;
      if (oldest === undefined) break;
      sessions.delete(oldest);
    }
  };

  const touch = (token: string, s: Session<Q>, at: number) => {
    s.expiresAt = at + PAGER_TTL_MS;
    sessions.delete(token);
    sessions.set(token, s);
  };

  return {
    open(query) {
      const at = now();
      sweep(at);
      const token = randomBytes(6).toString("base64url");
      const session: Session<Q> = { query, cursors: new Map([[0, undefined]]), expiresAt: 0 };
      touch(token, session, at);
      return { token, page: 0, query, cursor: undefined };
    },
    resolve(subject, what) {
      const at = now();
      const m = SUBJECT.exec(subject);
      const token = m?.[1] ?? "";
      const page = Number(m?.[2] ?? "-1");
      const session = sessions.get(token);
      if (!session || session.expiresAt <= at || !session.cursors.has(page)) {
        throw new UserFacingError(
          "expired",
          `These ${what} are no longer available (they expire after a while of not being used); run the command again.`,
        );
      }
      touch(token, session, at);
      return { token, page, query: session.query, cursor: session.cursors.get(page) };
    },
    record(ref, next) {
      const session = sessions.get(ref.token);
      if (session && next !== undefined) session.cursors.set(ref.page + 1, next);
      return { hasPrevious: ref.page > 0, hasNext: next !== undefined };
    },
    subject: (ref, page) => `${ref.token}.${page}`,
  };
}

/**
 * Records the read of `ref` (`next`: the cursor of the page after it) and returns its Previous/Next
 * controls; `idFor` makes a button's custom id from its subject.
 */
export function cursorPaging<Q>(
  pager: Pager<Q>,
  ref: PageRef<Q>,
  next: string | undefined,
  idFor: (subject: string) => string,
): Paging {
  const { hasPrevious, hasNext } = pager.record(ref, next);
  return {
    previousId: idFor(pager.subject(ref, Math.max(0, ref.page - 1))),
    nextId: idFor(pager.subject(ref, ref.page + 1)),
    hasPrevious,
    hasNext,
  };
}

// ---- numbered pages -----------------------------------------------------------------------------
// Lists the marketplace reads by page number need no memory: the buttons carry the number.

/** Previous/Next for zero-based `page`; `idFor` makes the custom id of a button leading to a page. */
export function numberedPaging(page: number, hasMore: boolean, idFor: (page: number) => string): Paging {
  return {
    previousId: idFor(Math.max(0, page - 1)),
    nextId: idFor(page + 1),
    hasPrevious: page > 0,
    hasNext: hasMore,
  };
}

/** The zero-based page a numbered Previous/Next button carries as its whole subject. */
export function pageFromSubject(subject: string): number {
  if (!/^\d{1,4}$/.test(subject))
    throw new UserFacingError("invalid_input", "This button is damaged; run the command again.");
  return Number(subject);
}

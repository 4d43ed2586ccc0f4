// The ledger snapshot a /portfolio command just read, kept briefly per user so its Previous/Next
// buttons page through it instead of reading up to 60 pages from the marketplace again.
import { LruCache } from "../market/lruCache.ts";
import type { LedgerSnapshot } from "./readPortfolio.ts";

export interface SnapshotCache {
  /** The user's snapshot if it was read less than the cache's lifetime ago. */
  get(userId: number): LedgerSnapshot | undefined;
  set(userId: number, snapshot: LedgerSnapshot): void;
}

export function createSnapshotCache(opts: {
  readonly ttlMs: number;
  readonly maxUsers: number;
  readonly now: () => number;
}): SnapshotCache {
  const entries = new LruCache<number, { readonly at: number; readonly snapshot: LedgerSnapshot }>(
    opts.maxUsers,
  );
  return {
    get(userId) {
      const hit = entries.get(userId);
      if (hit === undefined) return undefined;
      if (opts.now() - hit.at > opts.ttlMs) {
        entries.delete(userId);
        return undefined;
      }
      return hit.snapshot;
    },
    set(userId, snapshot) {
      entries.set(userId, { at: opts.now(), snapshot });
    },
  };
}

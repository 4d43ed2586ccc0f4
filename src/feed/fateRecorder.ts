// Collects sightings of listings off the market and writes them to their alert rows in batches, off every hot path.
import { recordListingFates } from "../db/repos/alerts.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { Listing } from "../market/schemas.ts";
import { fateOfListing, GONE, improves, merge, type FateObservation } from "./listingFates.ts";

export interface FateRecorderOptions {
  prisma: Db;
  logger: Logger;
  /** Clock of listing reads (the pollers' clock). */
  now?: () => Date;
  /** How long sightings wait to share one write (default 1 s). */
  flushDelayMs?: number;
  /** Most listings one UPDATE carries. */
  maxBatch?: number;
}

export interface FateRecorder {
  /** Queues sightings; never waits and never throws. */
  observe(observations: readonly FateObservation[]): void;
  /** A listing the bot read: queued when it is no longer listed. */
  observeListing(listing: Listing): void;
  /** Listings the feed saw leave the market at about `at`. */
  observeGone(listingIds: readonly string[], at: Date): void;
  /** Writes everything queued so far (tests, shutdown); resolves once it is stored or logged as failed. */
  flush(): Promise<void>;
  /** Flushes, then drops later sightings. */
  close(): Promise<void>;
}

export function createFateRecorder(opts: FateRecorderOptions): FateRecorder {
  const log = opts.logger.child({ module: "alerts.fates" });
  const now = opts.now ?? (() => new Date());
  const flushDelayMs = opts.flushDelayMs ?? 1_000;
  const maxBatch = Math.max(1, opts.maxBatch ?? 500);
  let pending = new Map<string, FateObservation>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const schedule = () => {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => void flush(), flushDelayMs);
    timer.unref();
  };

  async function write(batch: FateObservation[]): Promise<void> {
    for (let i = 0; i < batch.length; i += maxBatch) {
      const part = batch.slice(i, i + maxBatch);
      try {
        const updated = await recordListingFates(opts.prisma, part);
        if (updated > 0) log.debug({ listings: part.length, updated }, "listing fates recorded");
      } catch (err) {
        // Lost sightings only blur the report; the next read of the listing tells again.
        log.warn({ err, listings: part.length }, "recording listing fates failed");
      }
    }
  }

  function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = [...pending.values()];
    pending = new Map();
    // One write at a time, in order: a later batch never lands under an earlier one.
    writing = writing.then(() => (batch.length === 0 ? undefined : write(batch)));
    return writing;
  }

  const observe = (observations: readonly FateObservation[]) => {
    if (closed) return;
    for (const o of observations) {
      const stored = pending.get(o.listingId);
      if (improves(stored, o)) pending.set(o.listingId, merge(stored, o));
    }
    if (pending.size > 0) schedule();
  };

  return {
    observe,
    observeListing(listing) {
      const fate = fateOfListing(listing, now());
      if (fate !== undefined) observe([fate]);
    },
    observeGone(listingIds, at) {
      observe(listingIds.map((listingId) => ({ listingId, state: GONE, at, exactTime: false })));
    },
    flush,
    async close() {
      await flush();
      closed = true;
    },
  };
}

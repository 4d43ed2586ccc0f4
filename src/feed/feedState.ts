// The feed's state in poller_state: the mark in its columns, a walk in progress in `extra`.
import { z } from "zod";
import { beginHighWaterMark, getPollerState, saveHighWaterMark } from "../db/repos/state.ts";
import type { Db } from "../db/types.ts";
import { NO_LISTING } from "./feedMarks.ts";
import type { FeedMark, FeedWalk } from "./feedMarks.ts";

export interface FeedState {
  /** Undefined: the feed never ran on this database. */
  mark: FeedMark | undefined;
  /** The mark is the bot's start time: the first successful read replaces it with a listing. */
  provisional: boolean;
  walk: FeedWalk | undefined;
}

export interface FeedStateStore {
  load(): Promise<FeedState>;
  /** First start: stores `start` as a provisional mark unless a mark exists; returns what is stored. */
  begin(start: FeedMark): Promise<FeedState>;
  /**
   * Stores the mark with the walk in progress. Forward only (a deposed leader's late cycle cannot
   * move it back), except that a provisional mark may be replaced by any listing.
   */
  save(mark: FeedMark, walk: FeedWalk | undefined): Promise<void>;
}

const StoredMark = z.object({ listingId: z.string().regex(/^\d{1,40}$/), createdAt: z.string().optional() });
const StoredWalk = z.object({
  top: StoredMark,
  cursor: z.string().min(1),
  last: StoredMark.optional(),
  startedAt: z.number(),
  pages: z.number().int().min(0),
});
/** Unknown shapes (an older version's extra) read as "no walk": the next cycle starts a new one. */
const FeedExtra = z.object({ walk: StoredWalk.optional() }).catch({}).optional();

export function feedStateStore(db: Db, key = "feed"): FeedStateStore {
  const load = async (): Promise<FeedState> => {
    const row = await getPollerState(db, key, FeedExtra);
    const walk = row?.extra?.walk;
    const state = { walk: walk === undefined ? undefined : toWalk(walk) };
    if (row === null || (row.highWaterMark === null && row.highWaterCreatedAt === null)) {
      return { mark: undefined, provisional: false, ...state };
    }
    const createdAt = row.highWaterCreatedAt?.toISOString();
    if (row.highWaterMark === null)
      return { mark: { listingId: NO_LISTING, createdAt }, provisional: true, ...state };
    return { mark: { listingId: row.highWaterMark, createdAt }, provisional: false, ...state };
  };
  return {
    load,
    async begin(start) {
      const at = start.createdAt === undefined ? new Date() : new Date(start.createdAt);
      await beginHighWaterMark(db, key, at);
      return load();
    },
    async save(mark, walk) {
      const at = mark.createdAt === undefined ? null : new Date(mark.createdAt);
      await saveHighWaterMark(db, key, {
        mark: mark.listingId,
        createdAt: at !== null && Number.isNaN(at.getTime()) ? null : at,
        extra: walk === undefined ? null : { walk: fromWalk(walk) },
      });
    },
  };
}

function toWalk(w: z.infer<typeof StoredWalk>): FeedWalk {
  return {
    top: { listingId: w.top.listingId, createdAt: w.top.createdAt },
    cursor: w.cursor,
    last: w.last === undefined ? undefined : { listingId: w.last.listingId, createdAt: w.last.createdAt },
    startedAt: w.startedAt,
    pages: w.pages,
  };
}

function fromWalk(w: FeedWalk): z.input<typeof StoredWalk> {
  const m = (x: FeedMark) => ({
    listingId: x.listingId,
    ...(x.createdAt === undefined ? {} : { createdAt: x.createdAt }),
  });
  return {
    top: m(w.top),
    cursor: w.cursor,
    ...(w.last === undefined ? {} : { last: m(w.last) }),
    startedAt: w.startedAt,
    pages: w.pages,
  };
}

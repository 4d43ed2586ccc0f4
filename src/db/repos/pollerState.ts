// Pollers' progress: the newest listing seen (a high-water mark) and any extra state as JSON.
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";

export interface PollerStateRecord<T> {
  key: string;
  highWaterMark: string | null;
  highWaterCreatedAt: Date | null;
  /** Parsed with the schema given to getPollerState; undefined when nothing is stored. */
  extra: T | undefined;
  updatedAt: Date;
}

/** Reads a poller's state; stored JSON goes through `extraSchema` (stale shapes throw, not leak). */
export async function getPollerState<T = unknown>(
  db: Db,
  key: string,
  extraSchema: z.ZodType<T> = z.unknown() as z.ZodType<T>,
): Promise<PollerStateRecord<T> | null> {
  const row = await db.pollerState.findUnique({ where: { key } });
  if (!row) return null;
  return {
    key: row.key,
    highWaterMark: row.highWaterMark,
    highWaterCreatedAt: row.highWaterCreatedAt,
    extra: row.extra === null ? undefined : extraSchema.parse(row.extra),
    updatedAt: row.updatedAt,
  };
}

/** Overwrites the state (fields left undefined keep their value). */
export async function setPollerState(
  db: Db,
  key: string,
  state: {
    highWaterMark?: string | null;
    highWaterCreatedAt?: Date | null;
    extra?: Prisma.InputJsonValue | null;
  },
): Promise<void> {
  const data = {
    ...(state.highWaterMark !== undefined ? { highWaterMark: state.highWaterMark } : {}),
    ...(state.highWaterCreatedAt !== undefined ? { highWaterCreatedAt: state.highWaterCreatedAt } : {}),
    ...(state.extra !== undefined ? { extra: state.extra === null ? Prisma.DbNull : state.extra } : {}),
  };
  await db.pollerState.upsert({ where: { key }, create: { key, ...data }, update: data });
}

/**
 * Moves the high-water mark forward only: to (createdAt, id) if it is newer than the stored
 * one. Ids are numeric strings, compared as numbers. True when it moved. Two pollers racing
 * cannot move it backwards.
 */
export async function advanceHighWaterMark(
  db: Db,
  key: string,
  mark: string,
  createdAt: Date,
): Promise<boolean> {
  if (!/^\d{1,40}$/.test(mark)) throw new RangeError("high-water mark must be a numeric id");
  const changed = await db.$executeRaw`
    INSERT INTO poller_state (key, high_water_mark, high_water_created_at, updated_at)
    VALUES (${key}, ${mark}, ${createdAt}, now())
    ON CONFLICT (key) DO UPDATE
       SET high_water_mark = EXCLUDED.high_water_mark,
           high_water_created_at = EXCLUDED.high_water_created_at,
           updated_at = now()
     WHERE poller_state.high_water_mark IS NULL
        OR poller_state.high_water_created_at IS NULL
        OR (EXCLUDED.high_water_created_at, lpad(EXCLUDED.high_water_mark, 40, '0'))
           > (poller_state.high_water_created_at, lpad(poller_state.high_water_mark, 40, '0'))`;
  return changed === 1;
}

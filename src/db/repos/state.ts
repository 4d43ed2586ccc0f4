// What the bot keeps of its own progress: each poller's high-water mark (the newest listing seen, or
// only the time a feed started) with any extra state as JSON, and the hash of the slash commands
// last registered per scope, to skip needless re-registration, and the installation's tag.
import { randomBytes } from "node:crypto";
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

/**
 * A first start's mark: only a point in time (the start), no listing yet. Written unless the row
 * already holds a mark, so a restart keeps the first start and two leaders agree on it. A later
 * saveHighWaterMark replaces it with any listing.
 */
export async function beginHighWaterMark(db: Db, key: string, startedAt: Date): Promise<void> {
  await db.$executeRaw`
    INSERT INTO poller_state (key, high_water_mark, high_water_created_at, updated_at)
    VALUES (${key}, NULL, ${startedAt}, now())
    ON CONFLICT (key) DO UPDATE
       SET high_water_created_at = EXCLUDED.high_water_created_at,
           updated_at = now()
     WHERE poller_state.high_water_mark IS NULL
       AND poller_state.high_water_created_at IS NULL`;
}

/**
 * Stores a mark with the poller's extra state (`extra` null clears it). Forward only, like
 * advanceHighWaterMark, but the same mark is stored again (its extra state moved on), and a first
 * start's time-only mark gives way to any listing. True when the row was written.
 */
export async function saveHighWaterMark(
  db: Db,
  key: string,
  state: { mark: string; createdAt: Date | null; extra: Prisma.InputJsonValue | null },
): Promise<boolean> {
  if (!/^\d{1,40}$/.test(state.mark)) throw new RangeError("high-water mark must be a numeric id");
  const extra = state.extra === null ? null : JSON.stringify(state.extra);
  const changed = await db.$executeRaw`
    INSERT INTO poller_state (key, high_water_mark, high_water_created_at, extra, updated_at)
    VALUES (${key}, ${state.mark}, ${state.createdAt}, ${extra}::jsonb, now())
    ON CONFLICT (key) DO UPDATE
       SET high_water_mark = EXCLUDED.high_water_mark,
           high_water_created_at = EXCLUDED.high_water_created_at,
           extra = EXCLUDED.extra,
           updated_at = now()
     WHERE poller_state.high_water_mark IS NULL
        OR poller_state.high_water_created_at IS NULL
        OR EXCLUDED.high_water_created_at IS NULL
        OR (EXCLUDED.high_water_created_at, lpad(EXCLUDED.high_water_mark, 40, '0'))
           >= (poller_state.high_water_created_at, lpad(poller_state.high_water_mark, 40, '0'))`;
  return changed === 1;
}

// Command registration.

/** `scope` is "global" or "guild:<id>". */
export async function getCommandHash(db: Db, scope: string): Promise<string | null> {
  const row = await db.commandRegistration.findUnique({ where: { scope } });
  return row?.hash ?? null;
}

export async function setCommandHash(db: Db, scope: string, hash: string): Promise<void> {
  await db.commandRegistration.upsert({
    where: { scope },
    create: { scope, hash },
    update: { hash, registeredAt: new Date() },
  });
}

/**
 * A random tag for this installation, made once and kept with the data: part of every Discord
 * nonce, with the row's id and creation time, so rows of a restored or another database (whose
 * ids start over) never reuse a nonce Discord still remembers.
 */
export async function installTag(db: Db): Promise<string> {
  const tag = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, "0").slice(0, 5);
  await db.pollerState.upsert({
    where: { key: INSTALL_KEY },
    create: { key: INSTALL_KEY, highWaterMark: tag },
    update: {},
  });
  const row = await db.pollerState.findUniqueOrThrow({ where: { key: INSTALL_KEY } });
  return row.highWaterMark ?? tag;
}

const INSTALL_KEY = "install";

// Watch rules: per-user saved searches, and the batched load that builds the matcher's index.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Prisma, WatchRule } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { isUniqueViolation, withTransaction } from "../types.ts";
import { toUserRecord, type Destination } from "./users.ts";

export interface WatchRuleRecord {
  id: number;
  userId: number;
  name: string;
  /** Stored JSON: parse with the alerts module's RuleFilters schema before use. */
  filters: unknown;
  itemKey: string | null;
  defIndex: number | null;
  paintIndex: number | null;
  destination: Destination;
  guildId: string | null;
  channelId: string | null;
  enabled: boolean;
  matchCount: number;
  lastMatchedAt: Date | null;
  createdAt: Date;
  /** Snipe mode: null when the rule only alerts. */
  armMode: "shadow" | "live" | null;
  armMaxBuys: number | null;
  armBuys: number;
  armedAt: Date | null;
}

export interface NewRule {
  userId: number;
  name: string;
  filters: Prisma.InputJsonValue;
  itemKey?: string | null;
  defIndex?: number | null;
  paintIndex?: number | null;
  destination?: Destination;
  guildId?: string | null;
  channelId?: string | null;
}

export type CreateRuleResult =
  | { ok: true; rule: WatchRuleRecord }
  | { ok: false; reason: "limit_reached"; limit: number }
  | { ok: false; reason: "name_taken" }
  | { ok: false; reason: "no_user" };

export function toRuleRecord(r: WatchRule): WatchRuleRecord {
  return {
    id: r.id,
    userId: r.userId,
    name: r.name,
    filters: r.filters,
    itemKey: r.itemKey,
    defIndex: r.defIndex,
    paintIndex: r.paintIndex,
    destination: r.destination,
    guildId: r.guildId,
    channelId: r.channelId,
    enabled: r.enabled,
    matchCount: r.matchCount,
    lastMatchedAt: r.lastMatchedAt,
    createdAt: r.createdAt,
    armMode: r.armMode,
    armMaxBuys: r.armMaxBuys,
    armBuys: r.armBuys,
    armedAt: r.armedAt,
  };
}

/**
 * Creates a rule unless the user already has `maxRulesPerUser`. Locking the user's row makes
 * count-then-insert atomic: concurrent creates for one user queue behind each other.
 */
export async function createRule(
  db: Db,
  input: NewRule,
  opts: { maxRulesPerUser: number },
): Promise<CreateRuleResult> {
  try {
    return await withTransaction(db, async (tx) => {
      const locked = await tx.$queryRaw<
        unknown[]
      >`SELECT id FROM users WHERE id = ${input.userId} FOR UPDATE`;
      if (locked.length === 0) return { ok: false, reason: "no_user" } as const;
      const count = await tx.watchRule.count({ where: { userId: input.userId } });
      if (count >= opts.maxRulesPerUser)
        return { ok: false, reason: "limit_reached", limit: opts.maxRulesPerUser } as const;
      const taken = await tx.watchRule.findUnique({
        where: { userId_name: { userId: input.userId, name: input.name } },
        select: { id: true },
      });
      if (taken) return { ok: false, reason: "name_taken" } as const;
      const rule = await tx.watchRule.create({
        data: {
          userId: input.userId,
          name: input.name,
          filters: input.filters,
          itemKey: input.itemKey ?? null,
          defIndex: input.defIndex ?? null,
          paintIndex: input.paintIndex ?? null,
          destination: input.destination ?? "dm",
          guildId: input.guildId ?? null,
          channelId: input.channelId ?? null,
        },
      });
      return { ok: true, rule: toRuleRecord(rule) } as const;
    });
  } catch (err) {
    // Only reachable if something inserts without the row lock; the constraint still holds.
    if (isUniqueViolation(err)) return { ok: false, reason: "name_taken" };
    throw err;
  }
}

export async function listRules(db: Db, userId: number): Promise<WatchRuleRecord[]> {
  const rows = await db.watchRule.findMany({ where: { userId }, orderBy: { id: "asc" } });
  return rows.map(toRuleRecord);
}

export async function countRules(db: Db, userId: number): Promise<number> {
  return db.watchRule.count({ where: { userId } });
}

/** A rule by id, only if it belongs to `userId`. */
export async function getRule(db: Db, userId: number, ruleId: number): Promise<WatchRuleRecord | null> {
  const row = await db.watchRule.findFirst({ where: { id: ruleId, userId } });
  return row ? toRuleRecord(row) : null;
}

export async function getRuleByName(db: Db, userId: number, name: string): Promise<WatchRuleRecord | null> {
  const row = await db.watchRule.findUnique({ where: { userId_name: { userId, name } } });
  return row ? toRuleRecord(row) : null;
}

/** Deletes the rule if it is the user's; false when there was nothing to delete. */
export async function removeRule(db: Db, userId: number, ruleId: number): Promise<boolean> {
  const { count } = await db.watchRule.deleteMany({ where: { id: ruleId, userId } });
  return count === 1;
}

export async function setRuleEnabled(
  db: Db,
  userId: number,
  ruleId: number,
  enabled: boolean,
): Promise<boolean> {
  const { count } = await db.watchRule.updateMany({ where: { id: ruleId, userId }, data: { enabled } });
  return count === 1;
}

export type RulePatch = Partial<Omit<NewRule, "userId">>;

/** Changes the given fields of the user's rule; null when no such rule, "name_taken" on a clash. */
export async function updateRule(
  db: Db,
  userId: number,
  ruleId: number,
  patch: RulePatch,
): Promise<WatchRuleRecord | null | "name_taken"> {
  const data: Prisma.WatchRuleUpdateManyMutationInput = {};
  if (patch.name !== undefined) data.name = patch.name;
  if (patch.filters !== undefined) data.filters = patch.filters;
  if (patch.itemKey !== undefined) data.itemKey = patch.itemKey;
  if (patch.defIndex !== undefined) data.defIndex = patch.defIndex;
  if (patch.paintIndex !== undefined) data.paintIndex = patch.paintIndex;
  if (patch.destination !== undefined) data.destination = patch.destination;
  if (patch.guildId !== undefined) data.guildId = patch.guildId;
  if (patch.channelId !== undefined) data.channelId = patch.channelId;
  try {
    const { count } = await db.watchRule.updateMany({ where: { id: ruleId, userId }, data });
    if (count === 0) return null;
  } catch (err) {
    if (isUniqueViolation(err)) return "name_taken";
    throw err;
  }
  return getRule(db, userId, ruleId);
}

/** What the matcher's index reads of an enabled rule, and nothing more. */
export interface EnabledRule {
  id: number;
  userId: number;
  /** Stored JSON: parse with the alerts module's RuleFilters schema before use. */
  filters: unknown;
  armMode: "shadow" | "live" | null;
}

/** A batch of rules as one row (see loadAllEnabledRules). */
interface RawEnabledBatch {
  /** The batch as one JSON array of [id, owner, arm mode (0: none), filters], in id order; null: no rows. */
  rows: string | null;
}

/** One rule as a batch's JSON holds it. */
type RawEnabledRule = [id: number, userId: number, arm: "shadow" | "live" | 0, filters: unknown];

/**
 * Every enabled rule's id, owner and filters, in id order, a batch at a time (keyset pagination
 * on the primary key): a load holds two batches of rows at a time, reads no column and no join
 * the index does not use, and no long transaction holds the table. The next batch's query is
 * sent before this one is yielded, so Postgres reads it while the caller indexes this one
 * (Postgres and the index then work at once: at a million rules either alone is seconds). The
 * batch size sets the load's peak memory (measured at 100k rules: 1,000 rows peak ~175 MB RSS,
 * 5,000 ~197 MB, 10,000 ~211 MB) and hardly its time.
 *
 * A batch comes back as one row holding one JSON text, built by Postgres: an array of
 * `[id, owner, arm mode, filters]`, the filters as stored (json: their text as written). Read row
 * by row, a million rules cost this process 3.3-3.8 s of CPU (a row's decoding, mapping and its
 * own JSON.parse each); as one row a batch, ~1 s, and the aggregation runs in Postgres, at once
 * with the caller's indexing of the previous batch. One JSON.parse a batch makes the numbers
 * numbers (the ids and owners were once comma-separated text, split and converted one by one),
 * and one aggregate sorts once where one per column each sorted the batch on Postgres before 16
 * (ADR 028, 030).
 */
export async function* loadAllEnabledRules(
  db: Db,
  opts: { batchSize?: number } = {},
): AsyncGenerator<EnabledRule[]> {
  const take = opts.batchSize ?? 5000;
  const read = async (afterId: number): Promise<EnabledRule[]> => {
    const [batch] = await db.$queryRaw<RawEnabledBatch[]>`
      SELECT '[' || string_agg(
          '[' || id || ',' || user_id || ',' ||
            coalesce('"' || arm_mode::text || '"', '0') || ',' || filters::text || ']',
          ',' ORDER BY id
        ) || ']' AS rows
      FROM (
        SELECT id, user_id, filters, arm_mode
        FROM watch_rules
        WHERE enabled AND id > ${afterId}
        ORDER BY id
        LIMIT ${take}
      ) AS batch`;
    if (batch?.rows == null) return [];
    const rows = JSON.parse(batch.rows) as RawEnabledRule[];
    return rows.map(([id, userId, arm, filters]) => ({
      id,
      userId,
      filters,
      armMode: arm === "shadow" || arm === "live" ? arm : null,
    }));
  };
  let next: Promise<EnabledRule[]> | undefined = read(0);
  try {
    while (next !== undefined) {
      const rows: EnabledRule[] = await next;
      const last: EnabledRule | undefined = rows[rows.length - 1];
      next = last !== undefined && rows.length === take ? read(last.id) : undefined;
      // The query is not on the wire yet: the client's way to the socket is a chain of promise
      // steps, and the caller indexes this batch synchronously once it is yielded, so the steps
      // would wait behind it and Postgres would start the next batch only when asked for it.
      // One turn of the event loop lets them run first (measured: the load's wait for batches
      // fell from ~4.8 s to ~2.6 s of a million rules, most of the rest being their parsing).
      if (next !== undefined) await nextTurn();
      if (rows.length > 0) yield rows;
    }
  } finally {
    // A caller that stops early leaves no read behind to fail unobserved.
    await next?.catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// The alert engine's reads: the rule index's loads and change probes, the rules behind a listing's
// matches with their owners, names for autocomplete, the owners a feed gap concerns, and a rule
// with its owner for the auto-buyer.

/** Enabled rules among `ids`, with what queuing an alert needs to know about their owners. */
export function enabledRulesWithOwners(db: Db, ids: readonly number[]) {
  return db.watchRule.findMany({
    where: { id: { in: [...ids] }, enabled: true },
    include: {
      user: {
        select: {
          id: true,
          status: true,
          alertListing: true,
          defaultDestination: true,
          defaultChannelId: true,
        },
      },
    },
  });
}

/** Rule count and newest change: the rule index's cheap "anything new?" probe. */
export async function ruleSnapshot(db: Db): Promise<{ count: number; max: Date | undefined }> {
  const agg = await db.watchRule.aggregate({ _count: { _all: true }, _max: { updatedAt: true } });
  return { count: agg._count._all, max: agg._max.updatedAt ?? undefined };
}

export function rulesUpdatedSince(db: Db, since: Date) {
  return db.watchRule.findMany({
    where: { updatedAt: { gte: since } },
    select: { id: true, userId: true, filters: true, enabled: true, armMode: true },
  });
}

export async function enabledRuleIds(db: Db): Promise<number[]> {
  const rows = await db.watchRule.findMany({ where: { enabled: true }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** A user's rule names containing `text`, for autocomplete. */
export async function ruleNamesLike(db: Db, discordId: string, text: string): Promise<string[]> {
  const rows = await db.watchRule.findMany({
    where: { user: { discordId }, name: { contains: text, mode: "insensitive" } },
    select: { name: true },
    orderBy: { name: "asc" },
    take: 25,
  });
  return rows.map((r) => r.name);
}

/** Distinct item names used by rules, for autocomplete when the feed has not seen much yet. */
export async function ruleItemNames(db: Db, text: string, take: number): Promise<string[]> {
  // Stored item names hold no control characters (parseText), and Postgres text cannot hold NUL.
  if (/\p{Cc}/u.test(text)) return [];
  const rows = await db.watchRule.findMany({
    where: { itemKey: { not: null, contains: text.toLowerCase() } },
    distinct: ["itemKey"],
    select: { filters: true },
    take,
  });
  return rows.flatMap((r) => {
    const item = (r.filters as { item?: unknown } | null)?.item;
    return typeof item === "string" ? [item] : [];
  });
}

/**
 * Owners of enabled rules who take listing alerts and are not revoked, with how many such rules
 * each has, in user order; only rules created by `createdBy` when given (a feed gap's notices).
 */
export async function enabledRuleCountsByOwner(
  db: Db,
  createdBy: Date | undefined,
): Promise<Array<{ userId: number; rules: number }>> {
  const owners = await db.watchRule.groupBy({
    by: ["userId"],
    where: {
      enabled: true,
      user: { status: { not: "revoked" }, alertListing: true },
      ...(createdBy === undefined ? {} : { createdAt: { lte: createdBy } }),
    },
    _count: { _all: true },
    orderBy: { userId: "asc" },
  });
  return owners.map((o) => ({ userId: o.userId, rules: o._count._all }));
}

/** One rule with its owner's user row, in one query (the auto-buyer needs both on every match). */
export async function ruleWithOwner(db: Db, ruleId: number) {
  const row = await db.watchRule.findUnique({ where: { id: ruleId }, include: { user: true } });
  if (row === null) return undefined;
  return {
    id: row.id,
    name: row.name,
    userId: row.userId,
    /** Stored JSON: the filters the live confirmation showed, null when none were stored. */
    armFilters: row.armFilters as unknown,
    user: toUserRecord(row.user),
  };
}

// Watch rules: per-user saved searches, and the batched load that builds the matcher's index.
import type { Prisma, WatchRule } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { isUniqueViolation, withTransaction } from "../types.ts";
import type { Destination } from "./users.ts";

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

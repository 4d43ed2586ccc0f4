// Watch-rule reads beside the rules' own CRUD (rules.ts): the rule index's loads and change
// probes, the rules behind a listing's matches with their owners, names for autocomplete, the
// owners a feed gap concerns, and a rule with its owner for the auto-buyer.
import type { Db } from "../types.ts";
import { toUserRecord } from "./users.ts";

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

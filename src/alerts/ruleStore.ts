// The watch-rule reads of the alert engine: the rule index's loads and change probes, the rules
// behind a listing's matches with their owners, and names for autocomplete.
import type { Db } from "../db/types.ts";

/** Enabled rules among `ids`, with what queuing an alert needs to know about their owners. */
export function enabledRulesWithOwners(prisma: Db, ids: readonly number[]) {
  return prisma.watchRule.findMany({
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
export async function ruleSnapshot(prisma: Db): Promise<{ count: number; max: Date | undefined }> {
  const agg = await prisma.watchRule.aggregate({ _count: { _all: true }, _max: { updatedAt: true } });
  return { count: agg._count._all, max: agg._max.updatedAt ?? undefined };
}

export function rulesUpdatedSince(prisma: Db, since: Date) {
  return prisma.watchRule.findMany({
    where: { updatedAt: { gte: since } },
    select: { id: true, userId: true, filters: true, enabled: true, armMode: true },
  });
}

export async function enabledRuleIds(prisma: Db): Promise<number[]> {
  const rows = await prisma.watchRule.findMany({ where: { enabled: true }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** A user's rule names containing `text`, for autocomplete. */
export async function ruleNamesLike(prisma: Db, discordId: string, text: string): Promise<string[]> {
  const rows = await prisma.watchRule.findMany({
    where: { user: { discordId }, name: { contains: text, mode: "insensitive" } },
    select: { name: true },
    orderBy: { name: "asc" },
    take: 25,
  });
  return rows.map((r) => r.name);
}

/** Distinct item names used by rules, for autocomplete when the feed has not seen much yet. */
export async function ruleItemNames(prisma: Db, text: string, take: number): Promise<string[]> {
  // Stored item names hold no control characters (parseText), and Postgres text cannot hold NUL.
  if (/\p{Cc}/u.test(text)) return [];
  const rows = await prisma.watchRule.findMany({
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

// Seed tiers: a user's named lists of pattern seeds, and the watch rules that follow one by name
// (filters.tier). The rules of src/watch/tiers.ts (names, limits, who may remove) sit on these.
import type { Db, JsonValue } from "../types.ts";

/** The user's tiers, names and ids only (a save checks names and the count against these). */
export function tierNamesOf(db: Db, userId: number) {
  return db.seedTier.findMany({ where: { userId }, select: { id: true, name: true } });
}

/** The user's tiers in name order. */
export function listTiersOf(db: Db, userId: number) {
  return db.seedTier.findMany({ where: { userId }, orderBy: { name: "asc" } });
}

/** The user's tier of exactly that name, or null. */
export function getTier(db: Db, userId: number, name: string) {
  return db.seedTier.findUnique({ where: { userId_name: { userId, name } } });
}

export async function createTier(db: Db, userId: number, name: string, seeds: number[]): Promise<void> {
  await db.seedTier.create({ data: { userId, name, seeds } });
}

export async function setTierSeeds(db: Db, tierId: number, seeds: number[]): Promise<void> {
  await db.seedTier.update({ where: { id: tierId }, data: { seeds } });
}

export async function deleteTier(db: Db, tierId: number): Promise<void> {
  await db.seedTier.delete({ where: { id: tierId } });
}

/** Names of the tiers of the user `discordId` containing `text` (any case), at most 25, in order. */
export async function tierNamesLike(db: Db, discordId: string, text: string): Promise<string[]> {
  const rows = await db.seedTier.findMany({
    where: { user: { discordId }, name: { contains: text, mode: "insensitive" } },
    select: { name: true },
    orderBy: { name: "asc" },
    take: 25,
  });
  return rows.map((r) => r.name);
}

/** The user's rules that follow tier `name` (filters.tier), with their stored filters, by name. */
export function rulesFollowingTier(db: Db, userId: number, name: string) {
  return db.watchRule.findMany({
    where: { userId, filters: { path: ["tier"], equals: name } },
    select: { id: true, userId: true, name: true, filters: true, enabled: true, armMode: true },
    orderBy: { name: "asc" },
  });
}

/** A following rule's filters, with its tier's new seeds in them. */
export async function setFollowerFilters(db: Db, ruleId: number, filters: JsonValue): Promise<void> {
  await db.watchRule.update({ where: { id: ruleId }, data: { filters } });
}

/** Every rule of the user's, name and stored filters, by name (which tier each follows). */
export function ruleNamesAndFilters(db: Db, userId: number) {
  return db.watchRule.findMany({
    where: { userId },
    select: { name: true, filters: true },
    orderBy: { name: "asc" },
  });
}

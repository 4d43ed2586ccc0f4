// Named seed tiers: a user's lists of pattern seeds, which watch rules follow by name (add/replace, list, remove, names).
import { withTransaction } from "../db/types.ts";
import { ensureUser, getUserByDiscordId } from "../db/repos/users.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { MAX_SEEDS, parseSeeds, safeUserText, type RawOption } from "../input/parse.ts";
import { MAX_TIER_NAME } from "./dealFilters.ts";
import { RuleFilters } from "./ruleFilters.ts";
import type { RuleDeps } from "./rules.ts";
import type { Db } from "./store.ts";

export const MAX_TIERS_PER_USER = 25;
/** A tier's seeds become a rule's paint_seeds, so it holds as many as a rule may. */
export const MAX_TIER_SEEDS = MAX_SEEDS;

/** Tiers are part of the watch rules: the rules' deps, of which they use these. */
export type TierDeps = Pick<RuleDeps, "prisma" | "logger" | "onChange">;

export interface TierView {
  name: string;
  seeds: number[];
  /** Names of the user's rules that follow this tier. */
  usedBy: string[];
}

export interface SavedTier extends TierView {
  /** False when an existing tier's seeds were replaced. */
  created: boolean;
}

const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}]/u;

/** A tier name as stored: trimmed, inner spaces collapsed, 1-32 visible characters. */
export function requireTierName(raw: string, option = "name"): string {
  const name = raw.trim().replace(/\s+/g, " ");
  if (name.length === 0) throw invalidOption(option, "give the tier a name");
  if ([...name].length > MAX_TIER_NAME) throw invalidOption(option, `at most ${MAX_TIER_NAME} characters`);
  if (INVISIBLE_OR_CONTROL.test(name))
    throw invalidOption(option, "contains invisible or control characters");
  return name;
}

const shown = (name: string) => `"${safeUserText(name, MAX_TIER_NAME)}"`;

function noSuchTier(name: string): UserFacingError {
  return new UserFacingError(
    "not_found",
    `You have no seed tier named ${shown(name)}. See \`/watch tier list\`.`,
    { name },
  );
}

/** The user's rules that follow `name` (filters.tier), with their parsed filters. */
async function rulesFollowing(db: Pick<Db, "watchRule">, userId: number, name: string) {
  const rows = await db.watchRule.findMany({
    where: { userId, filters: { path: ["tier"], equals: name } },
    select: { id: true, name: true, filters: true, enabled: true },
    orderBy: { name: "asc" },
  });
  return rows;
}

/**
 * Adds a tier, or replaces the seeds of the tier of that exact name. The user's rules that
 * follow it get the new seeds in the same transaction (their updated_at moves, so every
 * process's index picks them up). Nothing changes when the input is bad.
 */
export async function saveTier(
  deps: TierDeps,
  input: { discordId: string; name: string; seeds: RawOption },
): Promise<SavedTier> {
  const name = requireTierName(input.name);
  const seeds = parseSeeds("seeds", input.seeds);
  const user = await ensureUser(deps.prisma, input.discordId);
  const result = await withTransaction(deps.prisma, async (tx) => {
    // Serialises one user's tier writes: the count and the name checks below stay true.
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${user.id} FOR UPDATE`;
    const tiers = await tx.seedTier.findMany({
      where: { userId: user.id },
      select: { id: true, name: true },
    });
    const existing = tiers.find((t) => t.name === name);
    const lookalike = tiers.find((t) => t.name !== name && t.name.toLowerCase() === name.toLowerCase());
    if (existing === undefined && lookalike !== undefined) {
      throw new UserFacingError(
        "conflict",
        `You already have a tier named ${shown(lookalike.name)}. Use that exact name to replace its seeds, or pick another name.`,
        { name },
      );
    }
    if (existing === undefined && tiers.length >= MAX_TIERS_PER_USER) {
      throw new UserFacingError(
        "limit_reached",
        `You have the most seed tiers allowed (${MAX_TIERS_PER_USER}). Remove one with \`/watch tier remove\` first.`,
        { limit: MAX_TIERS_PER_USER },
      );
    }
    if (existing === undefined) {
      await tx.seedTier.create({ data: { userId: user.id, name, seeds } });
      return { created: true, rules: [] };
    }
    await tx.seedTier.update({ where: { id: existing.id }, data: { seeds } });
    const rules = [];
    for (const row of await rulesFollowing(tx, user.id, name)) {
      const parsed = RuleFilters.safeParse(row.filters);
      if (!parsed.success) {
        deps.logger.warn(
          { ruleId: row.id },
          "stored watch rule does not parse; its tier seeds were not updated",
        );
        continue;
      }
      const filters = RuleFilters.parse({ ...parsed.data, paint_seeds: seeds });
      await tx.watchRule.update({ where: { id: row.id }, data: { filters } });
      rules.push({ id: row.id, name: row.name, filters, enabled: row.enabled });
    }
    return { created: false, rules };
  });
  for (const rule of result.rules) {
    deps.onChange?.({
      type: "upsert",
      rule: { id: rule.id, userId: user.id, filters: rule.filters, enabled: rule.enabled },
    });
  }
  deps.logger.info(
    { userId: user.id, seeds: seeds.length, created: result.created, rulesUpdated: result.rules.length },
    "seed tier saved",
  );
  return { name, seeds, usedBy: result.rules.map((r) => r.name), created: result.created };
}

export async function listTiers(deps: TierDeps, input: { discordId: string }): Promise<TierView[]> {
  const user = await getUserByDiscordId(deps.prisma, input.discordId);
  if (user === null) return [];
  const tiers = await deps.prisma.seedTier.findMany({ where: { userId: user.id }, orderBy: { name: "asc" } });
  const rules = await deps.prisma.watchRule.findMany({
    where: { userId: user.id },
    select: { name: true, filters: true },
    orderBy: { name: "asc" },
  });
  const usedBy = (tier: string) =>
    rules.filter((r) => (r.filters as { tier?: unknown } | null)?.tier === tier).map((r) => r.name);
  return tiers.map((t) => ({ name: t.name, seeds: t.seeds, usedBy: usedBy(t.name) }));
}

/** The seeds of the user's tier `name`, for /watch add tier:<name>. */
export async function tierSeeds(
  deps: TierDeps,
  input: { discordId: string; name: string },
): Promise<{ name: string; seeds: number[] }> {
  const name = requireTierName(input.name, "tier");
  const user = await getUserByDiscordId(deps.prisma, input.discordId);
  const tier =
    user === null
      ? null
      : await deps.prisma.seedTier.findUnique({ where: { userId_name: { userId: user.id, name } } });
  if (tier === null) throw noSuchTier(name);
  return { name: tier.name, seeds: tier.seeds };
}

/** Removes a tier no rule follows; a tier in use is kept and the rules using it are named. */
export async function removeTier(
  deps: TierDeps,
  input: { discordId: string; name: string },
): Promise<TierView> {
  const name = requireTierName(input.name);
  const user = await getUserByDiscordId(deps.prisma, input.discordId);
  if (user === null) throw noSuchTier(name);
  return withTransaction(deps.prisma, async (tx) => {
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${user.id} FOR UPDATE`;
    const tier = await tx.seedTier.findUnique({ where: { userId_name: { userId: user.id, name } } });
    if (tier === null) throw noSuchTier(name);
    const users = (await rulesFollowing(tx, user.id, name)).map((r) => r.name);
    if (users.length > 0) {
      const names = users.map((n) => `"${safeUserText(n, 50)}"`).join(", ");
      throw new UserFacingError(
        "conflict",
        `The tier ${shown(name)} is used by ${users.length === 1 ? "the rule" : "the rules"} ${names}. Remove ${users.length === 1 ? "it" : "them"} with \`/watch remove\` first.`,
        { name, rules: users.length },
      );
    }
    await tx.seedTier.delete({ where: { id: tier.id } });
    deps.logger.info({ userId: user.id }, "seed tier removed");
    return { name: tier.name, seeds: tier.seeds, usedBy: [] };
  });
}

/** Tier names containing the typed text, for autocomplete. */
export async function tierNames(
  deps: TierDeps,
  input: { discordId: string; prefix: string },
): Promise<string[]> {
  if (INVISIBLE_OR_CONTROL.test(input.prefix)) return [];
  const rows = await deps.prisma.seedTier.findMany({
    where: {
      user: { discordId: input.discordId },
      name: { contains: input.prefix.trim(), mode: "insensitive" },
    },
    select: { name: true },
    orderBy: { name: "asc" },
    take: 25,
  });
  return rows.map((r) => r.name);
}

// Named seed tiers: a user's lists of pattern seeds, which watch rules follow by name (add/replace, list, remove, names).
import { withTransaction } from "../db/types.ts";
import {
  createTier,
  deleteTier,
  getTier,
  listTiersOf,
  ruleNamesAndFilters,
  rulesFollowingTier,
  setFollowerFilters,
  setTierSeeds,
  tierNamesLike,
  tierNamesOf,
} from "../db/repos/tiers.ts";
import { ensureUser, getUserByDiscordId, lockUser } from "../db/repos/users.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { MAX_SEEDS, parseSeeds, safeUserText, type RawOption } from "../input/parse.ts";
import { MAX_TIER_NAME } from "./dealFilters.ts";
import { disarmIfWidened } from "./ruleEdit.ts";
import { RuleFilters } from "./ruleFilters.ts";
import type { RuleDeps } from "./rules.ts";

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
  /**
   * Names of the live-armed rules following the tier that the new seeds widen: disarmed, as any
   * widening edit of an armed rule is (they alert but buy nothing until armed live again).
   */
  disarmed: string[];
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

/**
 * Adds a tier, or replaces the seeds of the tier of that exact name. The user's rules that
 * follow it get the new seeds in the same transaction (their updated_at moves, so every
 * process's index picks them up), through the rule edit's check: a live-armed rule the new seeds
 * widen is disarmed. Nothing changes when the input is bad.
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
    await lockUser(tx, user.id);
    const tiers = await tierNamesOf(tx, user.id);
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
      await createTier(tx, user.id, name, seeds);
      return { created: true, rules: [] };
    }
    await setTierSeeds(tx, existing.id, seeds);
    const rules = [];
    for (const row of await rulesFollowingTier(tx, user.id, name)) {
      const parsed = RuleFilters.safeParse(row.filters);
      if (!parsed.success) {
        deps.logger.warn(
          { ruleId: row.id },
          "stored watch rule does not parse; its tier seeds were not updated",
        );
        continue;
      }
      const filters = RuleFilters.parse({ ...parsed.data, paint_seeds: seeds });
      const disarmed = await disarmIfWidened(tx, row, parsed.data, filters);
      await setFollowerFilters(tx, row.id, filters);
      rules.push({ id: row.id, name: row.name, filters, enabled: row.enabled, disarmed });
    }
    return { created: false, rules };
  });
  for (const rule of result.rules) {
    deps.onChange?.({
      type: "upsert",
      rule: {
        id: rule.id,
        userId: user.id,
        filters: rule.filters,
        enabled: rule.enabled,
        ...(rule.disarmed ? { armMode: null } : {}),
      },
    });
  }
  const disarmed = result.rules.filter((r) => r.disarmed).map((r) => r.name);
  deps.logger.info(
    {
      userId: user.id,
      seeds: seeds.length,
      created: result.created,
      rulesUpdated: result.rules.length,
      rulesDisarmed: disarmed.length,
    },
    "seed tier saved",
  );
  return { name, seeds, usedBy: result.rules.map((r) => r.name), created: result.created, disarmed };
}

export async function listTiers(deps: TierDeps, input: { discordId: string }): Promise<TierView[]> {
  const user = await getUserByDiscordId(deps.prisma, input.discordId);
  if (user === null) return [];
  const tiers = await listTiersOf(deps.prisma, user.id);
  const rules = await ruleNamesAndFilters(deps.prisma, user.id);
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
  const tier = user === null ? null : await getTier(deps.prisma, user.id, name);
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
    await lockUser(tx, user.id);
    const tier = await getTier(tx, user.id, name);
    if (tier === null) throw noSuchTier(name);
    const users = (await rulesFollowingTier(tx, user.id, name)).map((r) => r.name);
    if (users.length > 0) {
      const names = users.map((n) => `"${safeUserText(n, 50)}"`).join(", ");
      throw new UserFacingError(
        "conflict",
        `The tier ${shown(name)} is used by ${users.length === 1 ? "the rule" : "the rules"} ${names}. Remove ${users.length === 1 ? "it" : "them"} with \`/watch remove\` first.`,
        { name, rules: users.length },
      );
    }
    await deleteTier(tx, tier.id);
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
  return tierNamesLike(deps.prisma, input.discordId, input.prefix.trim());
}

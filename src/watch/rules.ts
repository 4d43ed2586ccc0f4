// Watch-rule verbs (add, list, remove, pause, resume, test) over Postgres, telling the matcher index of every change.
import { UserFacingError, invalidOption } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { FeeModel } from "../market/fees.ts";
import type { SearchListingsQuery } from "../market/requests.ts";
import { CATEGORY, type Listing } from "../market/schemas.ts";
import { safeUserText } from "../input/parse.ts";
import * as rulesRepo from "../db/repos/rules.ts";
import { ensureUser, getUserByDiscordId } from "../db/repos/users.ts";
import { describeFilters } from "./describeFilters.ts";
import { matchesListing, RuleFilters } from "./ruleFilters.ts";
import { ruleNamesLike } from "../db/repos/rules.ts";
import type { Db } from "../db/types.ts";

export const MAX_RULE_NAME = 50;

export type RuleDestination = { kind: "dm" } | { kind: "channel"; guildId: string; channelId: string };

export interface RuleView {
  id: number;
  name: string;
  filters: RuleFilters;
  summary: string;
  destination: RuleDestination;
  enabled: boolean;
  matchCount: number;
  lastMatchedAt: Date | undefined;
  /** Snipe mode, when armed: buys used of the most allowed since arming. */
  arm: { mode: "shadow" | "live"; buys: number; maxBuys: number; since: Date } | undefined;
}

/** What the matcher index needs to hear about; the engine applies it to its index at once. */
export type RuleChange =
  | {
      type: "upsert";
      rule: {
        id: number;
        userId: number;
        filters: RuleFilters;
        enabled: boolean;
        /** null: the change disarmed it; absent: arming unchanged. */
        armMode?: "shadow" | "live" | null;
      };
    }
  | { type: "remove"; ruleId: number }
  /** Snipe mode turned off for the user's rule `ruleId`, or for every rule of theirs: they keep alerting. */
  | { type: "disarm"; userId: number; ruleId?: number };

export interface RuleDeps {
  prisma: Db;
  logger: Logger;
  maxRulesPerUser: number;
  onChange?: ((change: RuleChange) => void) | undefined;
  /** The seller fee profit filters count in a dry run (default: DEFAULT_FEES). */
  fees?: FeeModel | undefined;
}

interface RuleRow {
  id: number;
  userId: number;
  name: string;
  filters: unknown;
  destination: "dm" | "channel";
  guildId: string | null;
  channelId: string | null;
  enabled: boolean;
  matchCount: number;
  lastMatchedAt: Date | null;
  armMode?: "shadow" | "live" | null;
  armMaxBuys?: number | null;
  armBuys?: number;
  armedAt?: Date | null;
}

/** Parses a stored rule; a row that no longer parses is reported and treated as absent. */
export function parseStoredFilters(
  row: { id: number; filters: unknown },
  logger: Logger,
): RuleFilters | undefined {
  const parsed = RuleFilters.safeParse(row.filters);
  if (!parsed.success) {
    logger.warn(
      { ruleId: row.id, issues: parsed.error.issues.slice(0, 3) },
      "stored watch rule does not parse; skipped",
    );
    return undefined;
  }
  return parsed.data;
}

function toView(row: RuleRow, filters: RuleFilters): RuleView {
  return {
    id: row.id,
    name: row.name,
    filters,
    summary: describeFilters(filters),
    destination:
      row.destination === "channel" && row.channelId !== null
        ? { kind: "channel", guildId: row.guildId ?? "", channelId: row.channelId }
        : { kind: "dm" },
    enabled: row.enabled,
    matchCount: row.matchCount,
    lastMatchedAt: row.lastMatchedAt ?? undefined,
    arm:
      row.armMode == null
        ? undefined
        : {
            mode: row.armMode,
            buys: row.armBuys ?? 0,
            maxBuys: row.armMaxBuys ?? 1,
            since: row.armedAt ?? new Date(0),
          },
  };
}

export function requireRuleName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, " ");
  if (name.length === 0) throw invalidOption("name", "give the rule a name");
  if ([...name].length > MAX_RULE_NAME) throw invalidOption("name", `at most ${MAX_RULE_NAME} characters`);
  // Names are echoed (escaped) in alerts and lists; invisible characters would only confuse.
  if (/[\p{Cc}\p{Cf}]/u.test(name)) throw invalidOption("name", "contains invisible or control characters");
  return name;
}

export async function addRule(
  deps: RuleDeps,
  input: { discordId: string; name: string; filters: RuleFilters; destination: RuleDestination },
): Promise<RuleView> {
  const name = requireRuleName(input.name);
  const filters = RuleFilters.parse(input.filters);
  // Watch rules need no linked key (the feed is public): first use creates the user's row.
  const user = await ensureUser(deps.prisma, input.discordId);
  const created = await rulesRepo.createRule(
    deps.prisma,
    {
      userId: user.id,
      name,
      filters,
      itemKey: filters.item?.toLowerCase() ?? null,
      defIndex: filters.def_index ?? null,
      paintIndex: filters.paint_index ?? null,
      destination: input.destination.kind,
      guildId: input.destination.kind === "channel" ? input.destination.guildId : null,
      channelId: input.destination.kind === "channel" ? input.destination.channelId : null,
    },
    { maxRulesPerUser: deps.maxRulesPerUser },
  );
  if (!created.ok) {
    if (created.reason === "limit_reached") {
      throw new UserFacingError(
        "limit_reached",
        `You have the most watch rules allowed (${created.limit}). Remove one with /watch remove first.`,
        { limit: created.limit },
      );
    }
    if (created.reason === "name_taken") {
      throw new UserFacingError(
        "conflict",
        `You already have a rule named "${safeUserText(name, MAX_RULE_NAME)}". Pick another name.`,
        {
          name,
        },
      );
    }
    throw new UserFacingError("not_found", "Your account could not be found; try again.", {
      reason: created.reason,
    });
  }
  const row = created.rule;
  deps.logger.info({ userId: user.id, ruleId: row.id, destination: row.destination }, "watch rule added");
  deps.onChange?.({ type: "upsert", rule: { id: row.id, userId: user.id, filters, enabled: true } });
  return toView(row, filters);
}

export async function listRules(deps: RuleDeps, input: { discordId: string }): Promise<RuleView[]> {
  const user = await getUserByDiscordId(deps.prisma, input.discordId);
  if (user === null) return [];
  const rows = await rulesRepo.listRules(deps.prisma, user.id);
  return rows.flatMap((row) => {
    const filters = parseStoredFilters(row, deps.logger);
    return filters ? [toView(row, filters)] : [];
  });
}

/** Rule names starting with (or containing) the typed text, for autocomplete. */
export async function ruleNames(
  deps: RuleDeps,
  input: { discordId: string; prefix: string },
): Promise<string[]> {
  // No stored name holds such characters (requireRuleName), and Postgres text cannot hold NUL.
  if (INVISIBLE_OR_CONTROL.test(input.prefix)) return [];
  return ruleNamesLike(deps.prisma, input.discordId, input.prefix);
}

const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}]/u;

async function findOwnRule(deps: RuleDeps, discordId: string, rawName: string): Promise<RuleRow> {
  const name = rawName.trim().replace(/\s+/g, " ");
  // Such a name matches no rule (see ruleNames); asking Postgres with a NUL in it is an error.
  const user = INVISIBLE_OR_CONTROL.test(name) ? null : await getUserByDiscordId(deps.prisma, discordId);
  const row = user === null ? null : await rulesRepo.getRuleByName(deps.prisma, user.id, name);
  if (!row) {
    throw new UserFacingError(
      "not_found",
      `You have no watch rule named "${safeUserText(name, MAX_RULE_NAME)}". See /watch list.`,
      {
        name,
      },
    );
  }
  return row;
}

export async function removeRule(
  deps: RuleDeps,
  input: { discordId: string; name: string },
): Promise<RuleView> {
  const row = await findOwnRule(deps, input.discordId, input.name);
  // Scoped to the owner again: the row may have changed hands only in theory, but the check is free.
  if (!(await rulesRepo.removeRule(deps.prisma, row.userId, row.id)))
    throw new UserFacingError("not_found", "That rule was already removed.", { ruleId: row.id });
  deps.logger.info({ userId: row.userId, ruleId: row.id }, "watch rule removed");
  deps.onChange?.({ type: "remove", ruleId: row.id });
  const filters = parseStoredFilters(row, deps.logger);
  return toView(row, filters ?? ({} as RuleFilters));
}

export async function setRuleEnabled(
  deps: RuleDeps,
  input: { discordId: string; name: string; enabled: boolean },
): Promise<RuleView> {
  const row = await findOwnRule(deps, input.discordId, input.name);
  if (!(await rulesRepo.setRuleEnabled(deps.prisma, row.userId, row.id, input.enabled))) {
    throw new UserFacingError("not_found", "That rule was just removed.", { ruleId: row.id });
  }
  const updated = { ...row, enabled: input.enabled };
  const filters = parseStoredFilters(updated, deps.logger);
  if (filters === undefined) {
    throw new UserFacingError(
      "conflict",
      "This rule was saved by another version of the bot; remove it and add it again.",
      {
        ruleId: row.id,
      },
    );
  }
  deps.logger.info({ userId: row.userId, ruleId: row.id, enabled: input.enabled }, "watch rule toggled");
  deps.onChange?.({
    type: "upsert",
    rule: { id: row.id, userId: row.userId, filters, enabled: input.enabled },
  });
  return toView(updated, filters);
}

export interface RuleTestResult {
  rule: RuleView;
  examined: number;
  matches: Listing[];
}

/** How many recent listings a dry run reads, at most (two pages). */
const TEST_PAGES = 2;

/**
 * Dry run: which recent listings the rule would have alerted on. Reads the newest listings the
 * market's own filters narrow to, then applies the bot's matcher, so what it shows is exactly
 * what would have alerted. Writes nothing and sends nothing.
 */
export async function testRule(
  deps: RuleDeps & { market: MarketApi },
  input: { discordId: string; name: string },
): Promise<RuleTestResult> {
  const row = await findOwnRule(deps, input.discordId, input.name);
  const filters = parseStoredFilters(row, deps.logger);
  if (filters === undefined) {
    throw new UserFacingError(
      "conflict",
      "This rule was saved by another version of the bot; remove it and add it again.",
      {
        ruleId: row.id,
      },
    );
  }
  const matches: Listing[] = [];
  let examined = 0;
  for await (const listing of deps.market.iterateListings(searchQueryFor(filters), {
    maxPages: TEST_PAGES,
  })) {
    examined += 1;
    // min_sales_per_day is not checked here: a dry run reads no price history.
    if (matchesListing(filters, listing, deps.fees)) matches.push(listing);
  }
  return { rule: toView(row, filters), examined, matches };
}

/**
 * The market-side filters equivalent to (or wider than) a rule, so a dry run reads relevant
 * listings. Only filters whose meaning is the same on both sides are sent; the rest are
 * applied locally by matchesListing.
 */
export function searchQueryFor(f: RuleFilters): Omit<SearchListingsQuery, "cursor"> {
  const q: Omit<SearchListingsQuery, "cursor"> = { sort_by: "most_recent", limit: 50 };
  if (f.item !== undefined) q.market_hash_name = f.item;
  if (f.def_index !== undefined) q.def_index = f.def_index;
  if (f.paint_index !== undefined) q.paint_index = f.paint_index;
  if (f.paint_seeds?.length === 1) q.paint_seed = f.paint_seeds[0] as number;
  if (f.min_float !== undefined) q.min_float = f.min_float;
  if (f.max_float !== undefined) q.max_float = f.max_float;
  if (f.max_price !== undefined) q.max_price = f.max_price;
  if (f.type !== undefined) q.type = f.type;
  if (f.category !== undefined) q.category = CATEGORY[f.category];
  if (f.min_ref_qty !== undefined) q.min_ref_qty = f.min_ref_qty;
  return q;
}

// /watch edit: a rule's filters and destination changed in place (same id, name, history), and whether an edit only narrows what it may buy.
import { disarmRules, type ArmMode } from "../db/repos/autoBuys.ts";
import * as rulesRepo from "../db/repos/rules.ts";
import { getUserByDiscordId } from "../db/repos/users.ts";
import { withTransaction, type Db } from "../db/types.ts";
import { invalidOption, UserFacingError } from "../errors.ts";
import { safeUserText } from "../input/parse.ts";
import { describeFilters } from "./describeFilters.ts";
import { EDIT_OPTION_KEYS, ruleNarrows } from "./filters/registry.ts";
import { RuleFilters } from "./ruleFilters.ts";
import { checkedRule, filtersFromOptions, type RuleContext, type RuleOptions } from "./ruleOptions.ts";
import { MAX_RULE_NAME, parseStoredFilters, type RuleDeps, type RuleDestination } from "./rules.ts";

/** Each option an edit may set or clear, and the stored filters it stands for (the filter registry's). */
export const EDIT_OPTION_FILTERS = EDIT_OPTION_KEYS;
export type EditOption = keyof typeof EDIT_OPTION_FILTERS;

/** What `clear` accepts besides the filter options: "channel" sends alerts back to DMs. */
export const CLEARABLE = [...Object.keys(EDIT_OPTION_FILTERS), "channel"] as const;

/** Parses `clear` ("max_price, fade"): the option names to remove, each known. */
export function parseClear(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return [];
  const names = raw
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  for (const n of names) {
    if (!(CLEARABLE as readonly string[]).includes(n)) {
      throw invalidOption(
        "clear",
        `"${safeUserText(n, 30)}" is not a filter; use names such as max_price, min_float, fade, stickers or channel`,
      );
    }
  }
  return [...new Set(names)];
}

const given = (v: unknown) => v !== undefined && v !== null && v !== "";

/**
 * The rule's filters after an edit: cleared options removed, given options replacing what they
 * stand for, the rest kept. Every problem names its option; the result is a whole rule.
 */
export function applyEdit(
  before: RuleFilters,
  options: RuleOptions,
  clear: readonly string[],
  context: RuleContext = {},
): RuleFilters {
  const set = (Object.keys(EDIT_OPTION_FILTERS) as EditOption[]).filter((o) => given(options[o]));
  const both = set.filter((o) => clear.includes(o));
  if (both[0] !== undefined) throw invalidOption(both[0], "given a value and cleared at once; pick one");
  const next: Record<string, unknown> = { ...before };
  for (const option of [...clear, ...set]) {
    for (const key of EDIT_OPTION_FILTERS[option as EditOption] ?? []) delete next[key];
  }
  const changed = filtersFromOptions(options, context);
  const merged = { ...next, ...changed } as RuleFilters;
  if (
    merged.min_float !== undefined &&
    merged.max_float !== undefined &&
    merged.min_float > merged.max_float
  ) {
    throw invalidOption(
      given(options.min_float) ? "min_float" : "max_float",
      `the float range would be ${merged.min_float} to ${merged.max_float}; min_float must not be above max_float`,
    );
  }
  return checkedRule(merged);
}

// ---------------------------------------------------------------------------------------------
// Narrowing: what an armed rule may buy must not grow without a new confirmation.

/**
 * True when every listing `after` matches, `before` matched too: the edit only narrows (or keeps)
 * what the rule may buy. Conservative: anything it cannot show to be narrower (another item, a
 * removed filter, a higher ceiling, a wider float range, a seed added...) is widening. Each
 * filter of the registry decides for itself (its `narrows`).
 */
export function editNarrows(before: RuleFilters, after: RuleFilters): boolean {
  return ruleNarrows(before, after);
}

/**
 * What every change of an armed rule's filters goes through, whatever made it (/watch edit, new
 * seeds of the tier it follows): a live-armed rule the change widens is disarmed in the caller's
 * transaction `tx` (arming live again asks for a new confirmation). True when it was disarmed.
 */
export async function disarmIfWidened(
  tx: Db,
  rule: { id: number; userId: number; armMode: ArmMode | null },
  before: RuleFilters,
  after: RuleFilters,
): Promise<boolean> {
  if (rule.armMode !== "live" || editNarrows(before, after)) return false;
  const names = await disarmRules(tx, { userId: rule.userId, ruleId: rule.id, mode: "live" });
  return names.length > 0;
}

// ---------------------------------------------------------------------------------------------
// The verb

export interface RuleEditResult {
  ruleId: number;
  name: string;
  before: { summary: string; destination: RuleDestination };
  after: { summary: string; destination: RuleDestination };
  /** The rule was armed live and the edit widened it: it no longer buys until armed again. */
  disarmed: boolean;
  /** Nothing differs from before. */
  unchanged: boolean;
}

/** Equal as data, whatever the order of their keys. */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>)
              .filter(([, x]) => x !== undefined)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function destinationOf(row: { destination: string; guildId: string | null; channelId: string | null }) {
  return row.destination === "channel" && row.channelId !== null
    ? ({ kind: "channel", guildId: row.guildId ?? "", channelId: row.channelId } as const)
    : ({ kind: "dm" } as const);
}

/**
 * Edits the user's rule `name` in place: its id, name, match record, tier link and arming stay,
 * except that a live-armed rule whose edit widens what it may buy is disarmed in the same
 * transaction (arming live again asks for a new confirmation).
 */
export async function editRule(
  deps: RuleDeps,
  input: {
    discordId: string;
    name: string;
    options: RuleOptions;
    clear: readonly string[];
    /** A new destination; absent: unchanged (clear "channel" goes back to DMs). */
    destination?: RuleDestination | undefined;
    context?: RuleContext;
  },
): Promise<RuleEditResult> {
  // What was typed is checked first: a bad value is named whether or not the rule exists.
  filtersFromOptions(input.options, input.context);
  const name = input.name.trim().replace(/\s+/g, " ");
  const user = /[\p{Cc}\p{Cf}]/u.test(name) ? null : await getUserByDiscordId(deps.prisma, input.discordId);
  const row = user === null ? null : await rulesRepo.getRuleByName(deps.prisma, user.id, name);
  if (row === null) {
    throw new UserFacingError(
      "not_found",
      `You have no watch rule named "${safeUserText(name, MAX_RULE_NAME)}". See /watch list.`,
      { name },
    );
  }
  const before = parseStoredFilters(row, deps.logger);
  if (before === undefined) {
    throw new UserFacingError(
      "conflict",
      "This rule was saved by another version of the bot; remove it and add it again.",
      { ruleId: row.id },
    );
  }
  const after = applyEdit(before, input.options, input.clear, input.context);
  const destination: RuleDestination =
    input.destination ?? (input.clear.includes("channel") ? { kind: "dm" } : destinationOf(row));
  const beforeDestination = destinationOf(row);
  const unchanged = sameJson(before, after) && sameJson(destination, beforeDestination);

  const { updated, widensLive } = await withTransaction(deps.prisma, async (tx) => ({
    widensLive: await disarmIfWidened(tx, row, before, after),
    updated: await rulesRepo.updateRule(tx, row.userId, row.id, {
      filters: after,
      itemKey: after.item?.toLowerCase() ?? null,
      defIndex: after.def_index ?? null,
      paintIndex: after.paint_index ?? null,
      destination: destination.kind,
      guildId: destination.kind === "channel" ? destination.guildId : null,
      channelId: destination.kind === "channel" ? destination.channelId : null,
    }),
  }));
  if (updated === null || updated === "name_taken") {
    throw new UserFacingError("not_found", "That rule was just removed.", { ruleId: row.id });
  }
  deps.logger.info(
    { userId: row.userId, ruleId: row.id, disarmed: widensLive, unchanged },
    "watch rule edited",
  );
  deps.onChange?.({
    type: "upsert",
    rule: {
      id: row.id,
      userId: row.userId,
      filters: after,
      enabled: updated.enabled,
      ...(widensLive ? { armMode: null } : {}),
    },
  });
  return {
    ruleId: row.id,
    name: row.name,
    before: { summary: describeFilters(before), destination: beforeDestination },
    after: { summary: describeFilters(after), destination },
    disarmed: widensLive,
    unchanged,
  };
}

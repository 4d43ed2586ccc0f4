// Arming and disarming watch rules (snipe mode), as plain-data verbs for /watch arm and disarm.
// Shadow arms at once; live needs a working key, a daily cap and a price ceiling, and is armed
// only from a confirmation that showed all of them (commands/watch/arm.ts).
import { createHash } from "node:crypto";
import { UserFacingError, invalidOption } from "../errors.ts";
import type { Logger } from "../log.ts";
import { formatCents, type Cents } from "../money.ts";
import { safeUserText } from "../input/parse.ts";
import * as rulesRepo from "../db/repos/rules.ts";
import { getUserByDiscordId, type UserRecord } from "../db/repos/users.ts";
import { armRule, disarmRules, shadowResults, type ArmMode } from "../db/repos/autoBuys.ts";
import { capsOf, type CapsView } from "../spending/guard.ts";
import { describeFilters } from "../watch/describeFilters.ts";
import { RuleFilters } from "../watch/ruleFilters.ts";
import type { Db } from "../db/types.ts";
import { requireLinkedUser } from "../accounts/requireLinkedUser.ts";
import type { RuleChange } from "../watch/rules.ts";
import { DEFAULT_FEES, type FeeModel } from "../market/fees.ts";

export const MAX_BUYS_LIMIT = 100;

export interface ArmingDeps {
  prisma: Db;
  logger: Logger;
  now: () => Date;
  fees?: FeeModel;
  /** Told of every arm and disarm, so the matcher of this process follows at once (the rule-change hub). */
  onChange?: ((change: RuleChange) => void) | undefined;
}

export interface ArmTarget {
  userId: number;
  ruleId: number;
  ruleName: string;
  summary: string;
  /** Fingerprint of the rule's filters: a confirmation arms the rule it showed, not an edited one. */
  filtersHash: string;
  armMode: ArmMode | null;
  /** The rule's filters as stored (parsed). */
  filters: RuleFilters;
}

export interface LiveArmQuote extends ArmTarget {
  maxBuys: number;
  /** The most one auto-buy can cost: the rule's max_price, else the per-purchase cap. */
  ceilingCents: Cents;
  ceilingFrom: "rule" | "per_purchase_cap";
  /** The most the rule can spend in all while armed: ceiling x max_buys. */
  budgetCents: Cents;
  /** The account this is confirmed on (the user's link generation). */
  linkGeneration: number;
  caps: CapsView;
}

/** What the Arm button arms: exactly what the confirmation showed, kept as the rule's bound. */
export interface LiveArmConfirmation {
  ruleId: number;
  maxBuys: number;
  filtersHash: string;
  ceilingCents: Cents;
  budgetCents: Cents;
  linkGeneration: number;
}

const hashOf = (filters: unknown) =>
  createHash("sha256").update(JSON.stringify(filters)).digest("base64url").slice(0, 16);

function requireMaxBuys(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_BUYS_LIMIT)
    throw invalidOption("max_buys", `a whole number from 1 to ${MAX_BUYS_LIMIT}`);
  return n;
}

/** The user's rule named (or numbered) `ref`: the name wins, then the id /watch list shows. */
export async function findRuleFor(db: Db, discordId: string, ref: string): Promise<ArmTarget> {
  const text = ref.trim().replace(/\s+/g, " ");
  const user = text === "" || /[\p{Cc}\p{Cf}]/u.test(text) ? null : await getUserByDiscordId(db, discordId);
  let row = user === null ? null : await rulesRepo.getRuleByName(db, user.id, text);
  const id = /^#?(\d{1,9})$/.exec(text)?.[1];
  if (row === null && user !== null && id !== undefined)
    row = await rulesRepo.getRule(db, user.id, Number(id));
  if (row === null) {
    throw new UserFacingError(
      "not_found",
      `You have no watch rule named or numbered "${safeUserText(text, 50)}". See /watch list.`,
      { ref: text },
    );
  }
  const filters = RuleFilters.safeParse(row.filters);
  if (!filters.success) {
    throw new UserFacingError(
      "conflict",
      "This rule was saved by another version of the bot; remove it and add it again.",
      { ruleId: row.id },
    );
  }
  return {
    userId: row.userId,
    ruleId: row.id,
    ruleName: row.name,
    summary: describeFilters(filters.data),
    filtersHash: hashOf(row.filters),
    armMode: row.armMode,
    filters: filters.data,
  };
}

function refuseAuctionsOnly(filters: RuleFilters): void {
  if (filters.type === "auction") {
    throw new UserFacingError(
      "invalid_input",
      "This rule only matches auctions, which cannot be bought outright; arm a buy-now rule instead.",
    );
  }
}

/** Shadow mode arms at once: it never spends, it only records and DMs what it would buy. */
export async function armShadow(
  deps: ArmingDeps,
  input: { discordId: string; rule: string; maxBuys: number },
): Promise<ArmTarget & { maxBuys: number }> {
  const maxBuys = requireMaxBuys(input.maxBuys);
  const target = await findRuleFor(deps.prisma, input.discordId, input.rule);
  refuseAuctionsOnly(target.filters);
  if (!(await armRule(deps.prisma, { ...target, mode: "shadow", maxBuys, at: deps.now() })))
    throw ruleGone(target.ruleId);
  deps.logger.info({ userId: target.userId, ruleId: target.ruleId, maxBuys }, "rule armed in shadow mode");
  deps.onChange?.(armedChange(target, "shadow"));
  return { ...target, armMode: "shadow", maxBuys };
}

async function requireLiveAccount(db: Db, discordId: string): Promise<UserRecord> {
  const user = await requireLinkedUser(
    db,
    { discordId },
    {
      notLinked:
        "Live auto-buy buys with your marketplace account: link it first with /account link. Shadow mode needs no key.",
    },
  );
  if (user.settings.dailyCapCents === null) {
    throw new UserFacingError(
      "spend_cap",
      "Live auto-buy needs a daily cap, so a run of matches can never drain your balance. Set one with /account settings daily_cap:…",
    );
  }
  return user;
}

/** What arming live would mean, for the confirmation; nothing changes yet. */
export async function quoteLiveArm(
  deps: ArmingDeps,
  input: { discordId: string; rule: string; maxBuys: number },
): Promise<LiveArmQuote> {
  const maxBuys = requireMaxBuys(input.maxBuys);
  const user = await requireLiveAccount(deps.prisma, input.discordId);
  const target = await findRuleFor(deps.prisma, input.discordId, input.rule);
  const filters = target.filters;
  refuseAuctionsOnly(filters);
  const caps = await capsOf(deps.prisma, user.id);
  const perCap = caps.perPurchaseCapCents;
  const ruleMax = filters.max_price;
  if (ruleMax === undefined && perCap === null) {
    throw new UserFacingError(
      "invalid_input",
      "A live rule needs a price ceiling: give the rule a max_price, or set a per-purchase cap with /account settings.",
    );
  }
  const fromRule = ruleMax !== undefined && (perCap === null || ruleMax <= perCap);
  const ceilingCents = fromRule ? ruleMax : (perCap as number);
  return {
    ...target,
    maxBuys,
    ceilingCents,
    ceilingFrom: fromRule ? "rule" : "per_purchase_cap",
    budgetCents: ceilingCents * maxBuys,
    linkGeneration: user.linkGeneration,
    caps,
  };
}

/**
 * The Arm button: arms the rule the confirmation showed, if it is unchanged and still allowed,
 * and stores what was shown (ceiling, budget, filters, account) as the bound of every buy.
 */
export async function armLive(
  deps: ArmingDeps,
  input: LiveArmConfirmation & { discordId: string },
): Promise<ArmTarget & { maxBuys: number }> {
  const user = await requireLiveAccount(deps.prisma, input.discordId);
  if (user.linkGeneration !== input.linkGeneration) {
    throw new UserFacingError(
      "conflict",
      "Your linked marketplace account changed after this confirmation was shown; nothing was armed. Run /watch arm again.",
      { ruleId: input.ruleId },
    );
  }
  if (
    !Number.isSafeInteger(input.ceilingCents) ||
    input.ceilingCents <= 0 ||
    input.budgetCents !== input.ceilingCents * input.maxBuys
  ) {
    throw new RangeError("a live arm's ceiling and budget must be the ones its confirmation showed");
  }
  const target = await findRuleFor(deps.prisma, input.discordId, String(input.ruleId)).catch(() => {
    throw ruleGone(input.ruleId);
  });
  if (target.ruleId !== input.ruleId) throw ruleGone(input.ruleId);
  if (target.filtersHash !== input.filtersHash) {
    throw new UserFacingError(
      "conflict",
      "The rule changed after this confirmation was shown; nothing was armed. Run /watch arm again.",
      { ruleId: input.ruleId },
    );
  }
  const armed = await armRule(deps.prisma, {
    userId: user.id,
    ruleId: input.ruleId,
    mode: "live",
    maxBuys: requireMaxBuys(input.maxBuys),
    at: deps.now(),
    bound: {
      ceilingCents: input.ceilingCents,
      budgetCents: input.budgetCents,
      filters: target.filters,
      linkGeneration: input.linkGeneration,
    },
  });
  if (!armed) throw ruleGone(input.ruleId);
  deps.logger.info(
    { userId: user.id, ruleId: input.ruleId, maxBuys: input.maxBuys, ceilingCents: input.ceilingCents },
    "rule armed live",
  );
  deps.onChange?.(armedChange(target, "live"));
  return { ...target, armMode: "live", maxBuys: input.maxBuys };
}

/** Disarms one rule (by name or id) or every armed rule ("all"): the names disarmed. */
export async function disarm(
  deps: ArmingDeps,
  input: { discordId: string; rule: string },
): Promise<string[]> {
  if (input.rule.trim().toLowerCase() === "all") {
    const user = await getUserByDiscordId(deps.prisma, input.discordId);
    const names = user === null ? [] : await disarmRules(deps.prisma, { userId: user.id });
    deps.logger.info({ userId: user?.id, disarmed: names.length }, "all rules disarmed");
    if (user !== null && names.length > 0) deps.onChange?.({ type: "disarm", userId: user.id });
    return names;
  }
  const target = await findRuleFor(deps.prisma, input.discordId, input.rule);
  return disarmById(deps, { userId: target.userId, ruleId: target.ruleId });
}

/** The DM's Disarm button: the rule must be the presser's (the button is theirs alone). */
export async function disarmById(
  deps: ArmingDeps,
  input: { userId: number; ruleId: number },
): Promise<string[]> {
  const names = await disarmRules(deps.prisma, input);
  deps.logger.info({ ...input, disarmed: names.length }, "rule disarmed");
  if (names.length > 0) deps.onChange?.({ type: "disarm", userId: input.userId, ruleId: input.ruleId });
  return names;
}

export interface ShadowReport {
  wouldHaveBought: number;
  spentCents: Cents;
  /** Paper result: what those buys would net resold at their reference, after the fee. */
  paperNetCents: Cents;
  /** Buys whose value is unknown (no reference when they matched). */
  unpriced: number;
}

/** What a shadow rule would have done since it was armed. */
export async function shadowReport(
  deps: ArmingDeps,
  input: { ruleId: number; since: Date },
): Promise<ShadowReport> {
  const fees = deps.fees ?? DEFAULT_FEES;
  const rows = await shadowResults(deps.prisma, input.ruleId, input.since);
  let spentCents = 0;
  let paperNetCents = 0;
  let unpriced = 0;
  for (const r of rows) {
    spentCents += r.priceCents;
    if (r.referenceCents === null) unpriced += 1;
    else paperNetCents += fees.profit(r.priceCents, r.referenceCents);
  }
  return { wouldHaveBought: rows.length, spentCents, paperNetCents, unpriced };
}

export function describeCeiling(q: LiveArmQuote): string {
  return q.ceilingFrom === "rule"
    ? `${formatCents(q.ceilingCents)} (the rule's max price)`
    : `${formatCents(q.ceilingCents)} (your per-purchase cap; the rule sets no max price)`;
}

/** Arming enables the rule too (armRule): the matcher indexes it, armed. */
function armedChange(target: ArmTarget, mode: ArmMode): RuleChange {
  return {
    type: "upsert",
    rule: { id: target.ruleId, userId: target.userId, filters: target.filters, enabled: true, armMode: mode },
  };
}

function ruleGone(ruleId: number): UserFacingError {
  return new UserFacingError("not_found", "That rule no longer exists; nothing was armed or changed.", {
    ruleId,
  });
}

// Everything automatic a user turned on, in one place: stopping it all at once (under the user's
// row lock, so a reservation in flight is decided before or after, never beside), and reading it
// back for /automation.
import type { Db } from "../types.ts";
import { centsFromDb, nullableCentsFromDb, withTransaction } from "../types.ts";

export interface StoppedAutomation {
  /** Names of the rules disarmed. */
  rules: string[];
  /** Guards turned off: what they watched. */
  guards: { kind: string; subjectId: string; itemName: string | null }[];
  /** Whether trade auto-accept was on and is now off. */
  autoAccept: boolean;
}

export const NOTHING_STOPPED: StoppedAutomation = { rules: [], guards: [], autoAccept: false };

export function stoppedAnything(s: StoppedAutomation): boolean {
  return s.rules.length > 0 || s.guards.length > 0 || s.autoAccept;
}

/**
 * Turns off every automatic action of the user: live-armed rules (and shadow ones too with
 * `shadow`), active guards, auto-accept. Locks the user's row first, as every reservation does,
 * so a reservation decided after this sees it all off. Returns what was on.
 */
export async function stopAutomationRows(
  db: Db,
  userId: number,
  opts: { shadow: boolean; reason: string },
): Promise<StoppedAutomation> {
  return withTransaction(db, async (tx) => {
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const rules = await tx.watchRule.findMany({
      where: { userId, armMode: opts.shadow ? { not: null } : "live" },
      select: { id: true, name: true },
      orderBy: { id: "asc" },
    });
    if (rules.length > 0) {
      await tx.watchRule.updateMany({
        where: { id: { in: rules.map((r) => r.id) } },
        data: { armMode: null },
      });
    }
    const guards = await tx.guard.findMany({
      where: { userId, status: "active" },
      select: { id: true, kind: true, subjectId: true, itemName: true },
      orderBy: { id: "asc" },
    });
    if (guards.length > 0) {
      await tx.guard.updateMany({
        where: { id: { in: guards.map((g) => g.id) }, status: "active" },
        data: { status: "off", stopReason: opts.reason },
      });
    }
    const { count } = await tx.autoAcceptSetting.updateMany({
      where: { userId, enabled: true },
      data: { enabled: false },
    });
    return {
      rules: rules.map((r) => r.name),
      guards: guards.map((g) => ({ kind: g.kind, subjectId: g.subjectId, itemName: g.itemName })),
      autoAccept: count > 0,
    };
  });
}

export interface ArmedRuleView {
  ruleId: number;
  name: string;
  mode: "shadow" | "live";
  maxBuys: number;
  buys: number;
  armedAt: Date | null;
  ceilingCents: number | null;
  budgetCents: number | null;
  /** Committed by this rule's buys since it was armed (pending, unknown or bought). */
  committedCents: number;
}

export interface GuardView {
  id: number;
  kind: string;
  subjectId: string;
  itemName: string | null;
  limitCents: number;
  stepCents: number;
  maxChangesPerDay: number;
}

export interface AutoAcceptView {
  minPriceCents: number | null;
  itemContains: string | null;
}

export interface RecentAction {
  at: Date;
  kind: "auto_buy" | "shadow_buy" | "order_raised" | "listing_lowered" | "auto_accept";
  /** The item's name, else the order, listing or trade id. */
  subject: string;
  /** The price bought at, or the new price; null when it has none (an accept). */
  amountCents: number | null;
  /** The price before a guard's change. */
  fromCents: number | null;
  outcome: string;
}

export interface AutomationState {
  rules: ArmedRuleView[];
  guards: GuardView[];
  autoAccept: AutoAcceptView | null;
  recent: RecentAction[];
}

/** What is on for the user now, and the last automatic actions (newest first). */
export async function automationState(db: Db, userId: number, recentLimit = 8): Promise<AutomationState> {
  const [rules, guards, accept, buys, guardEvents, accepts] = await Promise.all([
    db.watchRule.findMany({ where: { userId, armMode: { not: null } }, orderBy: { id: "asc" } }),
    db.guard.findMany({ where: { userId, status: "active" }, orderBy: { id: "asc" } }),
    db.autoAcceptSetting.findUnique({ where: { userId } }),
    db.autoBuy.findMany({ where: { userId }, orderBy: { id: "desc" }, take: recentLimit }),
    db.guardEvent.findMany({
      where: { userId, kind: "change" },
      orderBy: { id: "desc" },
      take: recentLimit,
      include: { guard: { select: { kind: true, subjectId: true, itemName: true } } },
    }),
    db.autoAccept.findMany({ where: { userId }, orderBy: { id: "desc" }, take: recentLimit }),
  ]);
  const committed = new Map<number, number>();
  const live = rules.filter((r) => r.armMode === "live");
  if (live.length > 0) {
    // The database's own definition (armed_rule_committed_cents), the one reserve_commitment
    // checks a buy against, for each live rule as armed when read above.
    const rows = await db.$queryRaw<{ id: number; cents: bigint }[]>`
      SELECT r.id, armed_rule_committed_cents(${userId}::integer, r.id, r.since) AS cents
        FROM unnest(
          ${live.map((r) => r.id)}::integer[],
          ${live.map((r) => r.armedAt?.toISOString() ?? null)}::timestamptz[]
        ) AS r(id, since)`;
    for (const r of rows) committed.set(r.id, centsFromDb(r.cents));
  }
  const recent: RecentAction[] = [
    ...buys.map((b): RecentAction => ({
      at: b.settledAt ?? b.createdAt,
      kind: b.mode === "shadow" ? "shadow_buy" : "auto_buy",
      subject: b.itemName,
      amountCents: centsFromDb(b.priceCents),
      fromCents: null,
      outcome: b.outcome,
    })),
    ...guardEvents.map((e): RecentAction => ({
      at: e.at,
      kind: e.guard.kind === "buy_order" ? "order_raised" : "listing_lowered",
      subject: e.guard.itemName ?? e.guard.subjectId,
      amountCents: nullableCentsFromDb(e.toCents),
      fromCents: nullableCentsFromDb(e.fromCents),
      outcome: "changed",
    })),
    ...accepts.map((a): RecentAction => ({
      at: a.settledAt ?? a.createdAt,
      kind: "auto_accept",
      subject: a.tradeId,
      amountCents: null,
      fromCents: null,
      outcome: a.outcome,
    })),
  ]
    .sort((a, b) => b.at.getTime() - a.at.getTime())
    .slice(0, recentLimit);
  return {
    rules: rules.map((r) => ({
      ruleId: r.id,
      name: r.name,
      mode: r.armMode === "live" ? "live" : "shadow",
      maxBuys: r.armMaxBuys ?? 1,
      buys: r.armBuys,
      armedAt: r.armedAt,
      ceilingCents: nullableCentsFromDb(r.armCeilingCents),
      budgetCents: nullableCentsFromDb(r.armBudgetCents),
      committedCents: committed.get(r.id) ?? 0,
    })),
    guards: guards.map((g) => ({
      id: g.id,
      kind: g.kind,
      subjectId: g.subjectId,
      itemName: g.itemName,
      limitCents: centsFromDb(g.limitCents),
      stepCents: centsFromDb(g.stepCents),
      maxChangesPerDay: g.maxChangesPerDay,
    })),
    autoAccept:
      accept?.enabled === true
        ? { minPriceCents: nullableCentsFromDb(accept.minPriceCents), itemContains: accept.itemContains }
        : null,
    recent,
  };
}

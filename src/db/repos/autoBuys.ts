// Armed rules and their matches: arming, disarming, and the claim that lets one armed match act
// once (unique per rule and listing) and only while the rule has buys left.
import { z } from "zod";
import { Prisma, type AutoBuy } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, commitFlushedLater, nullableCentsFromDb } from "../types.ts";

export type ArmMode = "shadow" | "live";
export type AutoBuyOutcome =
  | "pending"
  | "would_buy"
  | "would_refuse"
  | "bought"
  | "lost"
  | "cap_refused"
  | "key_refused"
  | "unknown"
  | "failed"
  | "skipped";

export interface AutoBuyRecord {
  id: number;
  userId: number;
  ruleId: number | null;
  listingId: string;
  mode: ArmMode;
  itemName: string;
  priceCents: number;
  referenceCents: number | null;
  exitCents: number | null;
  outcome: AutoBuyOutcome;
  detail: string | null;
  seenAt: Date;
  sentAt: Date | null;
  createdAt: Date;
}

function toRecord(r: AutoBuy): AutoBuyRecord {
  return {
    id: r.id,
    userId: r.userId,
    ruleId: r.ruleId,
    listingId: r.listingId,
    mode: r.mode,
    itemName: r.itemName,
    priceCents: centsFromDb(r.priceCents),
    referenceCents: nullableCentsFromDb(r.referenceCents),
    exitCents: nullableCentsFromDb(r.exitCents),
    outcome: r.outcome,
    detail: r.detail,
    seenAt: r.seenAt,
    sentAt: r.sentAt,
    createdAt: r.createdAt,
  };
}

/** What a live confirmation showed: every automatic buy of the rule stays within it. */
export interface ArmBound {
  ceilingCents: number;
  budgetCents: number;
  /** The rule's filters as confirmed: a buy must match them as well as the rule's current ones. */
  filters: unknown;
  linkGeneration: number;
}

/**
 * Arms the user's rule (buys counted from zero again), live with the bound its confirmation
 * showed, shadow with none; false when it is not theirs any more.
 */
export async function armRule(
  db: Db,
  input: { userId: number; ruleId: number; mode: ArmMode; maxBuys: number; at: Date; bound?: ArmBound },
): Promise<boolean> {
  if (input.mode === "live" && input.bound === undefined)
    throw new Error("a live arm needs its confirmed bound");
  const b = input.mode === "live" ? input.bound : undefined;
  const { count } = await db.watchRule.updateMany({
    where: { id: input.ruleId, userId: input.userId },
    data: {
      armMode: input.mode,
      armMaxBuys: input.maxBuys,
      armBuys: 0,
      armedAt: input.at,
      enabled: true,
      armCeilingCents: b === undefined ? null : centsToDb(b.ceilingCents),
      armBudgetCents: b === undefined ? null : centsToDb(b.budgetCents),
      armFilters: b === undefined ? Prisma.DbNull : (b.filters as Prisma.InputJsonValue),
      armLinkGeneration: b === undefined ? null : b.linkGeneration,
    },
  });
  return count === 1;
}

/** Disarms one armed rule of the user, or all of them: the names of the rules disarmed. */
export async function disarmRules(
  db: Db,
  input: { userId: number; ruleId?: number; mode?: ArmMode },
): Promise<string[]> {
  const where = {
    userId: input.userId,
    armMode: input.mode ?? { not: null },
    ...(input.ruleId === undefined ? {} : { id: input.ruleId }),
  };
  const rules = await db.watchRule.findMany({ where, select: { id: true, name: true } });
  if (rules.length === 0) return [];
  await db.watchRule.updateMany({
    where: { id: { in: rules.map((r) => r.id) }, armMode: { not: null } },
    data: { armMode: null },
  });
  return rules.map((r) => r.name);
}

export interface ClaimInput {
  userId: number;
  ruleId: number;
  listingId: string;
  mode: ArmMode;
  itemName: string;
  priceCents: number;
  referenceCents: number | undefined;
  exitCents: number | undefined;
  seenAt: Date;
}

export type ClaimResult =
  /** This match may act: it is buy number `buyNumber` of `maxBuys`. */
  | { ok: true; autoBuyId: number; buyNumber: number; maxBuys: number }
  /** Handled before (a re-read after a crash, a second replica): do nothing. */
  | { ok: false; reason: "seen" }
  /** The rule was disarmed, paused or has used its buys since the index last looked, or its owner was deleted. */
  | { ok: false; reason: "not_armed" };

const ClaimRow = z.object({
  id: z.number().int().nullable(),
  arm_buys: z.number().int().nullable(),
  arm_max_buys: z.number().int().nullable(),
  owned: z.boolean(),
});

/**
 * One statement: records the match (once per rule and listing) and, only if it was new, takes
 * one of the rule's buys while it is armed in this mode with buys left. Atomic, so neither a
 * second replica nor a re-read can act twice, and max_buys holds under any concurrency.
 */
export async function claimMatch(db: Db, c: ClaimInput): Promise<ClaimResult> {
  // The claim's commit does not wait for its flush (ADR 037): nothing leaves the process before
  // a flushed commit that follows it (the spend reservation before a buy, the outcome's record
  // before its DM), and a crash before that takes the claim back with everything after it.
  const rows = await db.$queryRaw<unknown[]>`
    WITH owner AS (
      -- An owner deleted meanwhile (/account delete) claims nothing; the lock waits for a delete
      -- in progress rather than failing on the foreign key.
      SELECT users.id FROM users CROSS JOIN ${commitFlushedLater(db)} AS flush_later
       WHERE users.id = ${c.userId}::int FOR KEY SHARE OF users
    ), ins AS (
      INSERT INTO auto_buys (user_id, rule_id, listing_id, mode, item_name, price_cents,
                             reference_cents, exit_cents, seen_at)
      SELECT owner.id, ${c.ruleId}::int, ${c.listingId}::text, ${c.mode}::arm_mode, ${c.itemName}::text,
             ${centsToDb(c.priceCents)}::bigint,
             ${c.referenceCents === undefined ? null : centsToDb(c.referenceCents)}::bigint,
             ${c.exitCents === undefined ? null : centsToDb(c.exitCents)}::bigint, ${c.seenAt}::timestamptz
        FROM owner
      ON CONFLICT (rule_id, listing_id) DO NOTHING
      RETURNING id
    ), claim AS (
      UPDATE watch_rules SET arm_buys = arm_buys + 1
       WHERE id = ${c.ruleId} AND user_id = ${c.userId} AND arm_mode = ${c.mode}::arm_mode
         AND enabled AND arm_buys < arm_max_buys AND EXISTS (SELECT 1 FROM ins)
      RETURNING arm_buys, arm_max_buys
    )
    SELECT (SELECT id FROM ins) AS id, claim.arm_buys, claim.arm_max_buys,
           EXISTS (SELECT 1 FROM owner) AS owned
      FROM (SELECT 1) AS one LEFT JOIN claim ON true`;
  const row = ClaimRow.parse(rows[0]);
  if (!row.owned) return { ok: false, reason: "not_armed" };
  if (row.id === null) return { ok: false, reason: "seen" };
  if (row.arm_buys === null || row.arm_max_buys === null) {
    // Not armed after all: forget the match, so it is alerted as any other rule's would be.
    await db.autoBuy.delete({ where: { id: row.id } });
    return { ok: false, reason: "not_armed" };
  }
  return { ok: true, autoBuyId: row.id, buyNumber: row.arm_buys, maxBuys: row.arm_max_buys };
}

// updateMany, not update: the row is gone when its owner deleted their account meanwhile, and
// recording an outcome for nobody is no error.
export async function markSent(db: Db, id: number, at: Date): Promise<void> {
  await db.autoBuy.updateMany({ where: { id }, data: { sentAt: at } });
}

export async function settleAutoBuy(
  db: Db,
  id: number,
  s: { outcome: AutoBuyOutcome; detail?: string | undefined; at?: Date },
): Promise<void> {
  await db.autoBuy.updateMany({
    where: { id },
    data: { outcome: s.outcome, detail: s.detail ?? null, settledAt: s.at ?? new Date() },
  });
}

/** A claimed buy that spent nothing gives its place back, so max_buys counts real buys. */
export async function releaseClaim(db: Db, ruleId: number): Promise<void> {
  await db.$executeRaw`
    UPDATE watch_rules SET arm_buys = greatest(arm_buys - 1, 0), updated_at = now()
     WHERE id = ${ruleId} AND arm_mode IS NOT NULL`;
}

/** Disarms the rule once its buys are used up; true when this call did. */
export async function disarmWhenSpent(db: Db, ruleId: number): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE watch_rules SET arm_mode = NULL, updated_at = now()
     WHERE id = ${ruleId} AND arm_mode IS NOT NULL AND arm_buys >= arm_max_buys`;
  return n > 0;
}

/** Shadow results of one rule since it was armed: what it would have bought. */
export async function shadowResults(db: Db, ruleId: number, since: Date): Promise<AutoBuyRecord[]> {
  const rows = await db.autoBuy.findMany({
    where: { ruleId, mode: "shadow", outcome: "would_buy", createdAt: { gte: since } },
    orderBy: { id: "asc" },
  });
  return rows.map(toRecord);
}

/**
 * The reconciler found out what became of an armed rule's purchase whose answer was lost (its
 * commitment key is `auto:<ruleId>:<listingId>`): the match records it, and a purchase that did
 * not go through gives its claim on the rule's buys back. False when the key is not an armed one.
 */
export async function settleArmedPurchase(
  db: Db,
  input: { idempotencyKey: string; spent: boolean; detail: string },
): Promise<boolean> {
  const m = /^auto:(\d+):(\d+)$/.exec(input.idempotencyKey);
  if (!m) return false;
  const ruleId = Number(m[1]);
  const { count } = await db.autoBuy.updateMany({
    where: { ruleId, listingId: m[2] as string, outcome: "unknown" },
    data: { outcome: input.spent ? "bought" : "lost", detail: input.detail, settledAt: new Date() },
  });
  if (count > 0 && !input.spent) await releaseClaim(db, ruleId);
  return count > 0;
}

// Armed rules and their matches: arming, disarming, and the claim that lets one armed match act
// once (unique per rule and listing) and only while the rule has buys left.
import { z } from "zod";
import { Prisma, type AutoBuy } from "../../generated/prisma/client.ts";
import type { Db } from "../types.ts";
import { centsFromDb, centsToDb, nullableCentsFromDb, outsideTransaction } from "../types.ts";
import { reserveResultOf, type ReserveInput, type ReserveResult } from "./purchases.ts";
import type { LinkStatus } from "./users.ts";

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
 * Arms the user's rule (buys counted from zero again, under a new arming number: a claim of an
 * earlier arming gives its buy back to none), live with the bound its confirmation showed, shadow
 * with none; false when it is not theirs any more.
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
      armGeneration: { increment: 1 },
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
  /**
   * A live rule's purchase reserved in the same statement: `request` is what reserve_commitment
   * is asked for (the guard's reservationOf; the statement reserves an auto-buy of this listing at
   * its price under this rule, and refuses any other request), only when `filters`, which the
   * caller checked the listing against, are the filters the owner confirmed at arming, and the
   * owner's account may buy from this seller.
   */
  reserve?: { request: ReserveInput; filters: unknown; sellerPlatformId: string | null } | undefined;
}

/** The owner of a claimed match, read under their row lock in the claim's statement. */
export interface ArmedOwner {
  id: number;
  discordId: string;
  status: LinkStatus;
  encryptedKey: string | null;
  platformId: string | null;
  linkedAt: Date | null;
  dailyCapCents: number | null;
}

export type ClaimResult =
  /** This match may act: it is buy number `buyNumber` of `maxBuys`. */
  | {
      ok: true;
      autoBuyId: number;
      buyNumber: number;
      maxBuys: number;
      rule: {
        name: string;
        /** Stored JSON: the filters the live confirmation showed. */ armFilters: unknown;
      };
      owner: ArmedOwner;
      /** The reservation's answer when the statement made one (see ClaimInput.reserve). */
      reserved: ReserveResult | undefined;
    }
  /** Handled before (a re-read after a crash, a second replica): do nothing. */
  | { ok: false; reason: "seen" }
  /** The rule was disarmed, paused, removed or has used its buys since the index last looked, or its owner was deleted. */
  | { ok: false; reason: "not_armed" };

const ClaimRow = z.object({
  claim: z.enum(["ok", "seen", "not_armed"]),
  auto_buy_id: z.number().int().nullable(),
  buy_number: z.number().int().nullable(),
  max_buys: z.number().int().nullable(),
  rule_name: z.string().nullable(),
  arm_filters: z.unknown(),
  discord_id: z.string().nullable(),
  status: z.enum(["active", "revoked", "unlinked"]).nullable(),
  encrypted_key: z.string().nullable(),
  platform_id: z.string().nullable(),
  linked_at: z.date().nullable(),
  daily_cap_cents: z.bigint().nullable(),
  reserve: z.string().nullable(),
  purchase_id: z.number().int().nullable(),
  created: z.date().nullable(),
  cap_cents: z.bigint().nullable(),
  spent_cents: z.bigint().nullable(),
});

/**
 * One statement (the database function claim_armed_match, ADR 040): records the match (once
 * per rule and listing) and, only if it was new, takes one of the rule's buys while it is armed
 * in this mode with buys left; with `reserve`, reserves the purchase too when everything a
 * reservation needs holds. Atomic, so neither a second replica nor a re-read can act twice, and
 * max_buys and the caps hold under any concurrency. What it decides without a reservation is
 * committed without waiting for its flush (ADR 037): nothing leaves the process before a flushed
 * commit that follows it (a reservation before a buy, the outcome's record before its DM), and a
 * crash before that takes the claim back with everything after it.
 */
export async function claimArmedMatch(db: Db, c: ClaimInput): Promise<ClaimResult> {
  outsideTransaction(db, "an armed claim");
  const r = c.reserve?.request;
  if (
    r !== undefined &&
    (r.kind !== "auto_buy" ||
      r.userId !== c.userId ||
      r.subjectId !== c.listingId ||
      r.totalCents !== c.priceCents ||
      (r.unitPriceCents ?? r.totalCents) !== c.priceCents ||
      r.authority?.kind !== "rule" ||
      r.authority.ruleId !== c.ruleId)
  ) {
    throw new Error("an armed claim reserves only the rule's auto-buy of its listing at its price");
  }
  const rows = await db.$queryRaw<unknown[]>`
    SELECT * FROM claim_armed_match(${c.userId}::integer, ${c.ruleId}::integer, ${c.listingId}::text,
      ${c.mode}::arm_mode, ${c.itemName}::text, ${centsToDb(c.priceCents)}::bigint,
      ${c.referenceCents === undefined ? null : centsToDb(c.referenceCents)}::bigint,
      ${c.exitCents === undefined ? null : centsToDb(c.exitCents)}::bigint, ${c.seenAt}::timestamptz,
      ${r?.idempotencyKey ?? null}::text,
      ${c.reserve === undefined ? null : JSON.stringify(c.reserve.filters)}::jsonb,
      ${c.reserve?.sellerPlatformId ?? null}::text)`;
  const row = ClaimRow.parse(rows[0]);
  if (row.claim !== "ok") return { ok: false, reason: row.claim };
  if (row.auto_buy_id === null || row.buy_number === null || row.max_buys === null || row.status === null) {
    throw new Error("an armed claim answered ok without its match, buys or owner");
  }
  const reserved =
    c.reserve === undefined || row.reserve === null || row.reserve === "not_tried"
      ? undefined
      : await reserveResultOf(db, c.reserve.request, { ...row, outcome: row.reserve });
  return {
    ok: true,
    autoBuyId: row.auto_buy_id,
    buyNumber: row.buy_number,
    maxBuys: row.max_buys,
    rule: { name: row.rule_name ?? "", armFilters: row.arm_filters ?? null },
    owner: {
      id: c.userId,
      discordId: row.discord_id ?? "",
      status: row.status,
      encryptedKey: row.encrypted_key,
      platformId: row.platform_id,
      linkedAt: row.linked_at,
      dailyCapCents: nullableCentsFromDb(row.daily_cap_cents),
    },
    reserved,
  };
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

/**
 * A claimed buy that spent nothing gives its place back, so max_buys counts real buys: once, and
 * only to the arming it was taken from. A rule re-armed since (a fresh count, as confirmed) or
 * disarmed gets nothing, however late the answer (a purchase in flight, the reconciler).
 */
export async function releaseClaim(db: Db, autoBuyId: number): Promise<void> {
  await db.$executeRaw`
    WITH held AS (
      SELECT id, rule_id, arm_generation FROM auto_buys
       WHERE id = ${autoBuyId} AND arm_generation IS NOT NULL FOR UPDATE
    ), given AS (
      UPDATE auto_buys a SET arm_generation = NULL FROM held WHERE a.id = held.id
      RETURNING held.rule_id, held.arm_generation
    )
    UPDATE watch_rules w SET arm_buys = greatest(w.arm_buys - 1, 0), updated_at = now()
      FROM given
     WHERE w.id = given.rule_id AND w.arm_mode IS NOT NULL AND w.arm_generation = given.arm_generation`;
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
 * not go through gives its buy back to the arming it was claimed under (releaseClaim). False when
 * the key is not an armed one.
 */
export async function settleArmedPurchase(
  db: Db,
  input: { idempotencyKey: string; spent: boolean; detail: string },
): Promise<boolean> {
  const m = /^auto:(\d+):(\d+)$/.exec(input.idempotencyKey);
  if (!m) return false;
  const match = await db.autoBuy.findUnique({
    where: { ruleId_listingId: { ruleId: Number(m[1]), listingId: m[2] as string } },
    select: { id: true },
  });
  if (match === null) return false;
  const { count } = await db.autoBuy.updateMany({
    where: { id: match.id, outcome: "unknown" },
    data: { outcome: input.spent ? "bought" : "lost", detail: input.detail, settledAt: new Date() },
  });
  if (count > 0 && !input.spent) await releaseClaim(db, match.id);
  return count > 0;
}

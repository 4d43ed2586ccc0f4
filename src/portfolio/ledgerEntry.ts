// One balance-ledger entry as the portfolio and reversal alerts read it (integer cents, dates), and
// the one definition of a *reversal*: which `rollback` entries undo a trade and which only release
// a hold.
import type { Transaction } from "../market/schemas.ts";
import type { Cents } from "../money.ts";

export interface LedgerEntry {
  readonly id: string;
  readonly type: string;
  readonly at: Date | undefined;
  /** Signed change of the available balance. */
  readonly balanceCents: Cents;
  /** Signed change of the pending balance (sale proceeds waiting for verification, bid holds). */
  readonly pendingCents: Cents;
  readonly contractId: string | undefined;
  readonly tradeId: string | undefined;
  readonly originalTx: string | undefined;
  readonly reason: string | undefined;
  /** details.fee_amount: the fee kept from a sale, in cents like every money field of the spec. */
  readonly feeCents: Cents;
}

const cents = (v: number | undefined): Cents => Math.round(v ?? 0);

export function toLedgerEntry(t: Transaction): LedgerEntry {
  const at = t.created_at === undefined ? undefined : new Date(t.created_at);
  return {
    id: t.id,
    type: t.type,
    at: at !== undefined && !Number.isNaN(at.getTime()) ? at : undefined,
    balanceCents: cents(t.balance_offset),
    pendingCents: cents(t.pending_offset),
    contractId: t.details?.contract_id ?? t.details?.listing_id,
    tradeId: t.details?.trade_id,
    originalTx: t.details?.original_tx,
    reason: t.details?.reason,
    feeCents: Math.max(0, cents(t.details?.fee_amount)),
  };
}

/**
 * A `rollback` that undoes a trade or a charge, as opposed to one that only moves a bid hold back
 * from the pending balance to the available one (the two offsets cancel and no trade is named).
 * A hold release changes nothing the user owns, so it is neither a loss nor news.
 */
export function isReversal(e: LedgerEntry): boolean {
  if (e.type !== "rollback") return false;
  if (e.tradeId !== undefined) return true;
  return e.balanceCents + e.pendingCents !== 0;
}

/** Ledger order: oldest first, then by id (ids grow); entries without a date sort first. */
export function byLedgerOrder(a: LedgerEntry, b: LedgerEntry): number {
  const ta = a.at?.getTime() ?? 0;
  const tb = b.at?.getTime() ?? 0;
  if (ta !== tb) return ta - tb;
  if (a.id.length !== b.id.length) return a.id.length - b.id.length;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

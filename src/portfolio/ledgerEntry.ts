// One balance-ledger entry as the portfolio and reversal alerts read it (integer cents, dates), and
// the one definition of a *reversal*: which `rollback` entries undo a trade and which only release
// a hold.
import { isUnreadableAmount, type Transaction, type UnreadableAmount } from "../market/schemas.ts";
import type { Cents } from "../money.ts";

export interface LedgerEntry {
  readonly id: string;
  readonly type: string;
  readonly at: Date | undefined;
  /** Signed change of the available balance (0 while `amountUnreadable`). */
  readonly balanceCents: Cents;
  /** Signed change of the pending balance (sale proceeds waiting for verification, bid holds). */
  readonly pendingCents: Cents;
  /**
   * An offset came in another form than integer cents (a string, a fraction: its unit may have
   * changed): neither shown nor summed, and what reads the entry says it could not read the amount.
   */
  readonly amountUnreadable: boolean;
  readonly contractId: string | undefined;
  readonly tradeId: string | undefined;
  readonly originalTx: string | undefined;
  readonly reason: string | undefined;
  /** details.fee_amount: the fee kept from a sale, in cents like every money field of the spec. */
  readonly feeCents: Cents;
}

const cents = (v: number | undefined): Cents => Math.round(v ?? 0);
/** An offset: integer cents as sent, 0 when absent or unreadable (then flagged, never summed). */
const offset = (v: number | UnreadableAmount | undefined): Cents => (isUnreadableAmount(v) ? 0 : (v ?? 0));

export function toLedgerEntry(t: Transaction): LedgerEntry {
  const at = t.created_at === undefined ? undefined : new Date(t.created_at);
  return {
    id: t.id,
    type: t.type,
    at: at !== undefined && !Number.isNaN(at.getTime()) ? at : undefined,
    balanceCents: offset(t.balance_offset),
    pendingCents: offset(t.pending_offset),
    amountUnreadable: isUnreadableAmount(t.balance_offset) || isUnreadableAmount(t.pending_offset),
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
 * A hold release changes nothing the user owns, so it is neither a loss nor news. One whose amount
 * could not be read is a reversal only when it names a trade (its amount is then told as unknown).
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

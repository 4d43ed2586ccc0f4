// Ledger entries (GET /me/transactions): every balance and pending movement with its details.
import type { TxRec } from "../state/index.ts";
import { iso } from "./common.ts";

export interface TransactionJson {
  id: string;
  user_id: string;
  created_at: string;
  type: string;
  balance_offset: number;
  pending_offset: number;
  details: Record<string, string | number>;
}

export function transactionJson(t: TxRec): TransactionJson {
  return {
    id: t.id,
    user_id: t.userId,
    created_at: iso(t.createdAt),
    type: t.type,
    balance_offset: t.balanceOffset,
    pending_offset: t.pendingOffset,
    details: { ...t.details },
  };
}

// The ledger's unit measured against the balance: offsets that add up to a hundredth of what GET /me
// reports are dollars, even when each of them happens to be a whole number (a $5,000 deposit as 5000).
import { objectsAt } from "../market/contract/inspect.ts";
import type { DriftFinding } from "../market/contract/inspect.ts";

/** The spec's default page of GET /me/transactions: a shorter answer without a count is the whole ledger. */
const DEFAULT_PAGE = 50;
const FIELD = "transactions[].balance_offset";

/**
 * Drift on the ledger's unit, or undefined. Only a complete ledger (every entry in this answer) is
 * compared, and only the exact ratio of a hundred is called drift: any other difference may be
 * history the ledger no longer lists.
 */
export function ledgerUnitFinding(me: unknown, ledger: unknown): DriftFinding | undefined {
  const balance = [objectsAt(me, "")[0]?.["balance"], objectsAt(me, "user")[0]?.["balance"]].find(
    (b): b is number => typeof b === "number" && Number.isSafeInteger(b) && b !== 0,
  );
  if (balance === undefined) return undefined;
  const entries = objectsAt(ledger, "transactions[]");
  const count = objectsAt(ledger, "")[0]?.["count"];
  const complete =
    count === undefined || count === null ? entries.length < DEFAULT_PAGE : Number(count) <= entries.length;
  if (!complete || entries.length === 0) return undefined;
  let sum = 0;
  for (const e of entries) {
    const offset = e["balance_offset"];
    if (offset === undefined || offset === null) continue;
    // Another form is drift of its own, named by the contract check.
    if (typeof offset !== "number" || !Number.isFinite(offset)) return undefined;
    sum += offset;
  }
  if (sum === 0 || Math.abs(sum * 100 - balance) >= 0.5) return undefined;
  return {
    kind: "type",
    field: FIELD,
    expected: "signed integer cents (the ledger adds up to the balance GET /me reports)",
    seen: "offsets adding up to a hundredth of the balance: dollars?",
  };
}

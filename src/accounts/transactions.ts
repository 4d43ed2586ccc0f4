// The account's balance ledger a page at a time, as plain views (signed cents, ids, dates).
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import type { TransactionType } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import { requirePage } from "../trading/validate.ts";
import { toDate } from "../trading/views.ts";

const PAGE_SIZE = 10;

export interface TransactionView {
  readonly transactionId: string;
  readonly type: string;
  readonly createdAt: Date | undefined;
  /** Signed change of the balance, in cents. */
  readonly balanceCents: Cents;
  /** Signed change of the pending balance, in cents. */
  readonly pendingCents: Cents;
  readonly listingId: string | undefined;
  readonly tradeId: string | undefined;
}

export interface TransactionsPage {
  readonly transactions: TransactionView[];
  /** Zero-based. */
  readonly page: number;
  readonly total: number | undefined;
  readonly hasMore: boolean;
}

export async function listTransactions(
  deps: { readonly market: MarketApi; readonly logger: Logger },
  input: { readonly page?: number | undefined; readonly type?: TransactionType | undefined } = {},
): Promise<TransactionsPage> {
  const page = requirePage(input.page);
  const result = await deps.market.getTransactions({
    page,
    limit: PAGE_SIZE,
    order: "desc",
    ...(input.type ? { type: input.type } : {}),
  });
  const total = result.count;
  const hasMore =
    total === undefined ? result.transactions.length >= PAGE_SIZE : (page + 1) * PAGE_SIZE < total;
  return {
    page,
    total,
    hasMore,
    transactions: result.transactions.map((t) => ({
      transactionId: t.id,
      type: t.type,
      createdAt: toDate(t.created_at),
      // The ledger states offsets as numbers of cents; fractions would be a service quirk.
      balanceCents: Math.round(t.balance_offset ?? 0),
      pendingCents: Math.round(t.pending_offset ?? 0),
      listingId: t.details?.listing_id ?? t.details?.contract_id,
      tradeId: t.details?.trade_id,
    })),
  };
}

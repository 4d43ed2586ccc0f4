// The account's balance ledger a page at a time, as plain views (signed cents, ids, dates).
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import { isUnreadableAmount, type TransactionType } from "../market/schemas.ts";
import type { Cents } from "../money.ts";
import { requirePage } from "../input/validate.ts";
import { toDate } from "../util/dates.ts";

const PAGE_SIZE = 10;

export interface TransactionView {
  readonly transactionId: string;
  readonly type: string;
  readonly createdAt: Date | undefined;
  /** Signed change of the balance, in cents; undefined when it came in another form (never guessed). */
  readonly balanceCents: Cents | undefined;
  /** Signed change of the pending balance, in cents; undefined when it came in another form. */
  readonly pendingCents: Cents | undefined;
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
      // Integer cents as sent; a string or a fraction may be another unit: not shown (the client
      // has logged and counted it), and the page says the amount could not be read.
      balanceCents: isUnreadableAmount(t.balance_offset) ? undefined : (t.balance_offset ?? 0),
      pendingCents: isUnreadableAmount(t.pending_offset) ? undefined : (t.pending_offset ?? 0),
      listingId: t.details?.listing_id ?? t.details?.contract_id,
      tradeId: t.details?.trade_id,
    })),
  };
}

// The portfolio as one service for /portfolio: the user's ledger read with their key, kept briefly
// per user so page buttons reuse it (commands always read afresh), and the period's figures from it.
// Built once by src/services.ts.
import type { AccountService } from "../accounts/service.ts";
import type { FeeModel } from "../market/fees.ts";
import { portfolioFrom, readSnapshot, type Portfolio } from "./readPortfolio.ts";
import { createSnapshotCache } from "./snapshotCache.ts";
import type { Period } from "./summary.ts";

/** Page buttons reuse the snapshot their command read for this long. */
export const SNAPSHOT_TTL_MS = 10 * 60_000;

export interface PortfolioService {
  /** `reuse`: a page button's read, which may take the snapshot the command read a moment ago. */
  read(
    discordUserId: string,
    input: { period: Period; item: string | undefined; reuse: boolean },
  ): Promise<Portfolio>;
}

export function createPortfolioService(opts: {
  accounts: Pick<AccountService, "require">;
  now: () => Date;
  fees: FeeModel;
}): PortfolioService {
  const snapshots = createSnapshotCache({
    ttlMs: SNAPSHOT_TTL_MS,
    maxUsers: 1_000,
    now: () => opts.now().getTime(),
  });
  return {
    async read(discordUserId, { period, item, reuse }) {
      const { user, market } = await opts.accounts.require(discordUserId);
      let snapshot = reuse ? snapshots.get(user.id) : undefined;
      if (snapshot === undefined) {
        snapshot = await readSnapshot({ market });
        snapshots.set(user.id, snapshot);
      }
      return portfolioFrom(snapshot, { now: opts.now, fees: opts.fees }, { period, item });
    },
  };
}

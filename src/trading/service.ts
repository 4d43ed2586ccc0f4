// Trading as one service for the handlers: the acting user's linked account as a Trader, whose
// methods are the verbs that keep state of their own (buys, bids, offers, buy orders: spend caps,
// commitments, tracking) bound to the database, the clock and the user's key. Verbs that only talk
// to the marketplace take `trader.deps`, which holds no database client. Built once by src/services.ts.
import type { AccountService } from "../accounts/service.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { MarketApi } from "../market/client.ts";
import { placeBid } from "./bid.ts";
import { confirmBuy, prepareBuy } from "./buy.ts";
import { editBuyOrder, previewBuyOrderEdit } from "./buyOrderEdit.ts";
import { cancelBuyOrder, createBuyOrder, quoteBuyOrder } from "./buyOrders.ts";
import type { MarketDeps, TradingDeps } from "./deps.ts";
import { counterOffer, makeOffer } from "./offers.ts";
import { repriceListing } from "./selling.ts";
import { auctionChoices, type AuctionChoice } from "./suggestions.ts";

/** A verb acting for the trader: its input without the userId, which the Trader fills in. */
type Acting<F> = F extends (deps: TradingDeps, input: infer I) => Promise<infer O>
  ? (input: Omit<I, "userId">) => Promise<O>
  : never;

export interface Trader {
  /** users.id of the acting Discord user. */
  readonly userId: number;
  /** Their marketplace id, when linking could read it (tells buyer from seller in trades). */
  readonly platformId: string | null;
  /** For the verbs that only talk to the marketplace: bound to the user's key, no database. */
  readonly deps: MarketDeps;
  readonly prepareBuy: Acting<typeof prepareBuy>;
  readonly confirmBuy: Acting<typeof confirmBuy>;
  readonly placeBid: Acting<typeof placeBid>;
  readonly makeOffer: Acting<typeof makeOffer>;
  readonly counterOffer: Acting<typeof counterOffer>;
  readonly quoteBuyOrder: Acting<typeof quoteBuyOrder>;
  readonly createBuyOrder: Acting<typeof createBuyOrder>;
  readonly cancelBuyOrder: Acting<typeof cancelBuyOrder>;
  readonly previewBuyOrderEdit: Acting<typeof previewBuyOrderEdit>;
  readonly editBuyOrder: Acting<typeof editBuyOrder>;
  readonly repriceListing: Acting<typeof repriceListing>;
}

export interface TradingService {
  /** The acting user as a Trader; throws the "link your account first" notice when they have no usable key. */
  trader(discordUserId: string, log: Logger): Promise<Trader>;
  /** The auctions the user bid on, for the listing option of /bid. */
  auctionChoices(account: { market: MarketApi; userId: number }): Promise<AuctionChoice[]>;
}

export interface TradingServiceOptions {
  readonly db: Db;
  readonly accounts: Pick<AccountService, "require">;
  readonly now: () => Date;
}

export function createTradingService(opts: TradingServiceOptions): TradingService {
  return {
    async trader(discordUserId, log) {
      const { user, market } = await opts.accounts.require(discordUserId);
      const deps: TradingDeps = { market, prisma: opts.db, logger: log, now: opts.now };
      const userId = user.id;
      const acting =
        <I extends { userId: number }, O>(verb: (deps: TradingDeps, input: I) => Promise<O>) =>
        (input: Omit<I, "userId">): Promise<O> =>
          verb(deps, { ...input, userId } as I);
      return {
        userId,
        platformId: user.platformId,
        deps: { market, logger: log, now: opts.now },
        prepareBuy: acting(prepareBuy),
        confirmBuy: acting(confirmBuy),
        placeBid: acting(placeBid),
        makeOffer: acting(makeOffer),
        counterOffer: acting(counterOffer),
        quoteBuyOrder: acting(quoteBuyOrder),
        createBuyOrder: acting(createBuyOrder),
        cancelBuyOrder: acting(cancelBuyOrder),
        previewBuyOrderEdit: acting(previewBuyOrderEdit),
        editBuyOrder: acting(editBuyOrder),
        repriceListing: acting(repriceListing),
      };
    },
    auctionChoices: ({ market, userId }) => auctionChoices(opts.db, market, userId),
  };
}

// Settles spend commitments whose outcome was lost (a timeout, a crash between request and
// record) to the truth, from the marketplace's own records, and tells the user what happened.
import { settleArmedPurchase } from "../db/repos/autoBuys.ts";
import type { Commitment } from "../spending/guard.ts";
import {
  commitmentRefused,
  commitmentReleased,
  commitmentSpent,
  commitmentStands,
} from "../spending/guard.ts";
import { listOpen, listUnsettled, releaseStandingOn } from "../db/repos/purchases.ts";
import { withWriteLock } from "../db/writeLocks.ts";
import { keyedUsersByIds } from "../db/repos/pollers.ts";
import { isMarketError } from "../market/errors.ts";
import type { MarketApi } from "../market/client.ts";
import { snowflakeTime } from "../market/ids.ts";
import type { Listing } from "../market/schemas.ts";
import { apiFor, revokeAccount, type AccountPollerDeps, type PollUser } from "./accounts.ts";
import { findBuyerTrade, findBuyOrder, findLedgerEntry, findOffer, findPurchase } from "./lookups.ts";
import type { SettlementAlert } from "../outbox/payload.ts";
import { writeAlerts } from "../outbox/store.ts";

export interface ReconcilerOptions extends AccountPollerDeps {
  now?: () => Date;
  /**
   * A request still `pending` this long after it was reserved was cut off by a crash (a live
   * request is answered or times out well within it).
   */
  pendingGraceMs?: number;
  /**
   * How long after the request a listing still for sale at our price proves the purchase did not
   * land (the service answers a purchase in seconds; its own queue may take a little longer).
   */
  settleAfterMs?: number;
  /** Pages of trades and ledger read per lookup: all of a user's recent history, bounded. */
  maxPages?: number;
}

export interface ReconcileResult {
  checked: number;
  settled: number;
  /** Still unknown after this pass (the marketplace cannot tell yet, or did not answer). */
  open: number;
  /** Of those, how many only because the page guard stopped a read before it could tell. */
  pageLimited: number;
  failed: number;
}

export interface Reconciler {
  runOnce(): Promise<ReconcileResult>;
}

type Verdict =
  | { kind: "spent"; spentCents?: number; detail: string }
  | {
      kind: "stands";
      subjectId?: string;
      detail: string;
      /** A buy order as found: what it holds now, and the one commitment of the order from here on. */
      order?: { totalCents: number };
    }
  | { kind: "refused"; detail: string }
  | { kind: "released"; detail: string }
  | { kind: "undecided"; detail: string; pageLimited?: true };

/** Not found within the page guard is no proof: the commitment stays held and is tried again. */
const PAGE_LIMITED: Verdict = {
  kind: "undecided",
  detail: "not found within the pages read; the account has more history than one pass reads",
  pageLimited: true,
};

const ACTION: Record<Commitment["kind"], SettlementAlert["action"]> = {
  buy: "buy",
  auto_buy: "buy",
  bid: "bid",
  buy_order: "buy_order",
  offer: "offer",
};

/** Pages of the offers timeline read per lookup (40 offers each). */
const OFFER_PAGES = 5;

export function createReconciler(opts: ReconcilerOptions): Reconciler {
  const log = opts.logger.child({ module: "alerts.reconciler" });
  const deps = { ...opts, logger: log };
  const now = opts.now ?? (() => new Date());
  const pendingGraceMs = opts.pendingGraceMs ?? 2 * 60_000;
  const settleAfterMs = opts.settleAfterMs ?? 60_000;
  const maxPages = opts.maxPages ?? 20;

  async function judgeBuy(api: MarketApi, c: Commitment, age: number): Promise<Verdict> {
    const listingId = c.listingIds[0] ?? c.subjectId;
    if (listingId === undefined || listingId === null)
      return { kind: "refused", detail: "no listing recorded" };
    let listing: Listing | undefined;
    try {
      listing = await api.getListing(listingId);
    } catch (error) {
      if (!isMarketError(error, "not_found")) throw error;
    }
    // Sold, or gone: our trade or our ledger says whether we were the buyer (every page of both).
    if (listing === undefined || listing.state !== "listed") {
      const bought = await findPurchase(api, listingId, c.createdAt, maxPages);
      if (bought.kind === "found") {
        const trade = bought.item.trade;
        return { kind: "spent", detail: trade ? `trade ${trade.id}` : "the ledger shows the purchase" };
      }
      if (bought.kind === "unknown") return PAGE_LIMITED;
      // A fresh trade may not be listed yet: only after a while does its absence prove anything.
      if (age < settleAfterMs)
        return { kind: "undecided", detail: "the listing sold; your trade may not show yet" };
      if (listing?.state === "sold") return { kind: "refused", detail: "sold to another buyer" };
      return { kind: "refused", detail: listing ? `listing ${listing.state}` : "listing removed" };
    }
    if (age < settleAfterMs) return { kind: "undecided", detail: "too early to tell" };
    return { kind: "refused", detail: "the listing is still for sale" };
  }

  async function judgeBid(api: MarketApi, c: Commitment, age: number): Promise<Verdict> {
    const listingId = c.subjectId;
    if (listingId === null) return { kind: "refused", detail: "no auction recorded" };
    let listing: Listing | undefined;
    try {
      listing = await api.getListing(listingId);
    } catch (error) {
      if (!isMarketError(error, "not_found")) throw error;
    }
    const top = listing?.auction_details?.top_bid;
    // Sold above our ceiling: not ours, whatever became of the bid.
    if (listing?.state === "sold" && top !== undefined && top.price > c.totalCents)
      return { kind: "released", detail: "sold above your ceiling" };
    // Ended, or gone: who won is told by the buyer trade or the ledger, never by the prices.
    if (listing === undefined || listing.state !== "listed") {
      const bought = await findPurchase(api, listingId, c.createdAt, maxPages);
      if (bought.kind === "found") {
        const spentCents = bought.item.priceCents ?? top?.price ?? listing?.price;
        return { kind: "spent", ...(spentCents === undefined ? {} : { spentCents }), detail: "auction won" };
      }
      if (bought.kind === "unknown") return PAGE_LIMITED;
      // A fresh trade may not be listed yet: only after a while does its absence prove anything.
      if (age < settleAfterMs)
        return { kind: "undecided", detail: "the auction ended; your trade may not show yet" };
      return { kind: "released", detail: listing ? "the auction ended without you" : "the auction is gone" };
    }
    // A standing price above our ceiling: whether or not it landed, it does not lead any more.
    if (top !== undefined && top.price > c.totalCents) return { kind: "released", detail: "outbid" };
    const posted = await findLedgerEntry(api, "bid_posted", listingId, c.createdAt, maxPages);
    if (posted.kind === "found") {
      return { kind: "stands", subjectId: listingId, detail: "the ledger shows the bid" };
    }
    return { kind: "undecided", detail: "the auction is running; the bid may stand" };
  }

  async function judgeBuyOrder(api: MarketApi, c: Commitment, age: number): Promise<Verdict> {
    // An order is findable by its id once we know it; before that, by price and time (the id's
    // own time: the service may send a zero created_at, docs/live-service.md).
    const found = await findBuyOrder(
      api,
      (order) => {
        if (c.subjectId !== null) return order.id === c.subjectId;
        const created = snowflakeTime(order.id)?.getTime();
        return (
          order.price === c.unitPriceCents &&
          created !== undefined &&
          created >= c.createdAt.getTime() - 60_000
        );
      },
      maxPages,
    );
    if (found.kind === "found") {
      const order = found.item;
      // Whether the lost change took effect or not, the order now holds what it shows.
      const remaining = Math.max(0, order.qty - (order.bought_item_count ?? 0));
      return {
        kind: "stands",
        subjectId: order.id,
        detail: `order ${order.id}`,
        order: { totalCents: order.price * remaining },
      };
    }
    // Past the pages read on a busy account: not found is no proof.
    if (found.kind === "unknown") return PAGE_LIMITED;
    if (age < settleAfterMs) return { kind: "undecided", detail: "too early to tell" };
    return c.subjectId === null
      ? { kind: "refused", detail: "no such order was placed" }
      : { kind: "released", detail: "the order is no longer open" };
  }

  async function judgeOffer(api: MarketApi, c: Commitment, age: number): Promise<Verdict> {
    const listingId = c.subjectId;
    if (listingId === null)
      return age < settleAfterMs
        ? { kind: "undecided", detail: "too early" }
        : { kind: "refused", detail: "no offer found" };
    const found = await findOffer(
      api,
      (o) => o.contract_id === listingId && o.price === c.totalCents,
      OFFER_PAGES,
    );
    if (found.kind === "found") {
      const offer = found.item;
      const state = offer.state ?? "active";
      if (state === "active") return { kind: "stands", subjectId: listingId, detail: `offer ${offer.id}` };
      if (state === "accepted") return { kind: "spent", detail: `offer ${offer.id} accepted` };
      return { kind: "released", detail: `offer ${state}` };
    }
    // Accepted offers become a trade on the listing.
    const trade = await findBuyerTrade(api, listingId, maxPages);
    if (trade.kind === "found") return { kind: "spent", detail: `trade ${trade.item.id}` };
    if (found.kind === "unknown" || trade.kind === "unknown") return PAGE_LIMITED;
    if (age < settleAfterMs) return { kind: "undecided", detail: "too early to tell" };
    return c.status === "open"
      ? { kind: "released", detail: "the offer is no longer open" }
      : { kind: "refused", detail: "no offer was made" };
  }

  async function judge(api: MarketApi, c: Commitment): Promise<Verdict> {
    const age = now().getTime() - c.createdAt.getTime();
    switch (c.kind) {
      case "buy":
      case "auto_buy":
        return judgeBuy(api, c, age);
      case "bid":
        return judgeBid(api, c, age);
      case "buy_order":
        return judgeBuyOrder(api, c, age);
      case "offer":
        return judgeOffer(api, c, age);
    }
  }

  /**
   * A buy order found standing: this commitment becomes all the order holds (what it shows now),
   * and any other still counted for it (the one a lost edit was to replace) is released. Made under
   * the order's write lock, so an edit in flight is never released; false when one is.
   */
  async function orderStands(c: Commitment, orderId: string, totalCents: number): Promise<boolean> {
    const done = await withWriteLock(deps.prisma, { kind: "buy_order", id: orderId }, "try", async () => {
      await commitmentStands(deps.prisma, c, { subjectId: orderId, totalCents });
      await releaseStandingOn(deps.prisma, {
        userId: c.userId,
        kind: "buy_order",
        subjectId: orderId,
        exceptId: c.id,
        reason: "replaced: the order as the reconciler found it",
      });
    });
    return done.ok;
  }

  async function apply(user: PollUser, c: Commitment, v: Verdict): Promise<void> {
    switch (v.kind) {
      case "undecided":
        return;
      case "spent":
        await commitmentSpent(deps.prisma, c, v.spentCents);
        break;
      case "stands":
        if (v.order !== undefined && v.subjectId !== undefined) {
          if (!(await orderStands(c, v.subjectId, v.order.totalCents))) return; // being changed: next run
        } else {
          await commitmentStands(deps.prisma, c, v.subjectId === undefined ? {} : { subjectId: v.subjectId });
        }
        break;
      case "refused":
        await commitmentRefused(deps.prisma, c, v.detail);
        break;
      case "released":
        await commitmentReleased(deps.prisma, c, v.detail);
        break;
    }
    // An armed rule's purchase: its match learns the outcome, and one that never landed no
    // longer counts against the rule's max_buys.
    if (c.kind === "auto_buy") {
      await settleArmedPurchase(deps.prisma, {
        idempotencyKey: c.idempotencyKey,
        spent: v.kind === "spent",
        detail: v.detail,
      });
    }
    // Standing offers that end are the marketplace's news, not a lost answer: no DM for those.
    if (c.status === "open") return;
    const alert: SettlementAlert = {
      kind: "settlement",
      action: ACTION[c.kind],
      outcome:
        v.kind === "spent"
          ? "went_through"
          : v.kind === "stands"
            ? "stands"
            : v.kind === "released"
              ? "ended"
              : "did_not_go_through",
      amountCents: v.kind === "spent" && v.spentCents !== undefined ? v.spentCents : c.totalCents,
      ...((c.subjectId ?? c.listingIds[0]) === undefined
        ? {}
        : { subjectId: c.subjectId ?? c.listingIds[0] }),
      detail: v.detail,
      since: c.createdAt.toISOString(),
    };
    await writeAlerts(deps.prisma, [
      {
        userId: user.id,
        kind: "settlement",
        subjectId: c.subjectId ?? c.listingIds[0] ?? "",
        version: v.kind,
        dedupeKey: `settlement:${c.id}`,
        destination: "dm",
        alert,
      },
    ]);
  }

  return {
    async runOnce() {
      const result: ReconcileResult = { checked: 0, settled: 0, open: 0, pageLimited: 0, failed: 0 };
      const cutoff = new Date(now().getTime() - pendingGraceMs);
      const unsettled = await listUnsettled(deps.prisma, { olderThan: now() });
      // A pending row younger than the grace may belong to a request still in flight.
      const due = [
        ...unsettled.filter((c) => c.status === "unknown" || c.createdAt <= cutoff),
        ...(await listOpen(deps.prisma, "offer")),
      ];
      if (due.length === 0) return result;
      const users = await keyedUsersByIds(deps.prisma, [...new Set(due.map((c) => c.userId))]);
      const byId = new Map(users.map((u) => [u.id, u]));
      for (const c of due) {
        const user = byId.get(c.userId);
        const api = user === undefined ? undefined : apiFor(deps, user, "money");
        if (user === undefined || api === undefined) continue;
        result.checked += 1;
        try {
          const judged = await judge(api, c);
          // An open offer still standing is simply still open.
          const verdict: Verdict =
            c.status === "open" && judged.kind === "stands"
              ? { kind: "undecided", detail: judged.detail }
              : judged;
          await apply(user, c, verdict);
          if (verdict.kind === "undecided") {
            result.open += 1;
            if (verdict.pageLimited) {
              result.pageLimited += 1;
              log.warn(
                { commitmentId: c.id, kind: c.kind, subjectId: c.subjectId, maxPages },
                "outcome not found within the page limit; kept held and retried next pass",
              );
            }
          } else {
            result.settled += 1;
            log.info(
              { commitmentId: c.id, kind: c.kind, verdict: verdict.kind, detail: verdict.detail },
              "commitment settled",
            );
          }
        } catch (error) {
          result.failed += 1;
          if (isMarketError(error, "unauthorized")) await revokeAccount(deps, user);
          else log.warn({ err: error, commitmentId: c.id }, "commitment check failed; retried next pass");
        }
      }
      return result;
    },
  };
}

// Trade and buy-order alerts per linked user: trades waiting on them, state changes, deadline reminders, order fills,
// and reversals from the ledger (reversals.ts).
import { isMarketError } from "../market/errors.ts";
import type { MarketApi } from "../market/client.ts";
import type { Listing, Trade } from "../market/schemas.ts";
import { apiFor, forEachLimited, revokeAccount, type AccountPollerDeps, type PollUser } from "./accounts.ts";
import { dedupeKey, tradeAlertOf, tradeDeadline } from "../outbox/content.ts";
import { advanceBoughtCount, listTrackedBuyOrders, trackBuyOrder } from "../db/repos/buyOrders.ts";
import { recordFill, releaseClosedOrders } from "../spending/guard.ts";
import { readMyBuyOrders } from "../market/pagination.ts";
import { listOpenTrades, usersWhoseTradesMayBeReversed } from "../db/repos/trades.ts";
import { dedupeKeysStartingWith } from "../db/repos/alerts.ts";
import { createPollPlanner, pollNeeds, REVERSIBLE_FOR_MS, type PlannedPoll } from "./pollPlan.ts";
import { chainSteps, type TradeStepFactory } from "./tradeSteps.ts";
import { pollReversals } from "./reversals.ts";
import {
  closeTrackedTrade,
  linkedUsersForPolling,
  recordReminder,
  saveTradeObservation,
  tradesNearingDeadline,
} from "../db/repos/pollers.ts";
import { writeAlerts, type NewAlert } from "../outbox/store.ts";

export interface TradePollerOptions extends AccountPollerDeps {
  /** Users polled at once. */
  concurrency?: number;
  /** Minutes before a deadline at which reminders go out, largest first (1 h, 15 min). */
  reminderMinutes?: readonly number[];
  /** Closed trades re-read per user and cycle, at most (the rest wait for the next cycle). */
  maxTradeReads?: number;
  now?: () => Date;
  /** The cycle (TRADE_POLL_INTERVAL_MS): how often a user with an open trade is read. */
  intervalMs?: number;
  /**
   * Requests per second the address budget leaves background polls (src/market/scheduler.ts).
   * Infinity (no budget known): every user every cycle. Otherwise by need, stretched to fit.
   */
  backgroundRate?: () => number;
  /** Steps registered by features (auto-accept), run on every trade read, in this order. */
  steps?: readonly TradeStepFactory[];
}

export interface TradeCycleResult {
  users: number;
  alerts: number;
  revoked: number;
  failed: number;
}

export interface TradePoller {
  /** Polls linked active users' trades and buy orders: everyone, or by need within a budget. */
  runOnce(): Promise<TradeCycleResult>;
  /** The feed read these listings: their sellers may soon have a sale waiting. */
  noteListings(listings: readonly Listing[]): void;
  /** These listings left the market: their sellers are read next cycle, first. */
  noteGone(listingIds: readonly string[]): void;
  /** Sends due deadline reminders from stored deadlines; no marketplace call. */
  runRemindersOnce(): Promise<number>;
}

const OPEN_STATES = ["queued", "pending"] as const;
const TERMINAL = new Set(["verified", "failed", "cancelled"]);

type User = PollUser & { alertTrade: boolean; alertBuyOrder: boolean };

export function createTradePoller(opts: TradePollerOptions): TradePoller {
  const log = opts.logger.child({ module: "alerts.trades" });
  const deps = { ...opts, logger: log };
  const now = opts.now ?? (() => new Date());
  const steps = [...(opts.reminderMinutes ?? [60, 15])].sort((a, b) => b - a);
  const maxTradeReads = opts.maxTradeReads ?? 20;

  /** How many reminder steps a deadline has entered at `at` (0: none yet). */
  function stepsReached(deadline: Date, at: Date): number {
    const minutesLeft = (deadline.getTime() - at.getTime()) / 60_000;
    return steps.filter((m) => minutesLeft <= m).length;
  }

  /** The user's role in a trade; undefined when neither side is known to be theirs. */
  function roleOf(trade: Trade, user: User, hint?: "buyer" | "seller"): "buyer" | "seller" | undefined {
    if (hint) return hint;
    const seller = trade.seller_id ?? trade.seller?.platform_id;
    const buyer = trade.buyer_id ?? trade.buyer?.platform_id;
    if (user.platformId !== null && seller === user.platformId) return "seller";
    if (user.platformId !== null && buyer === user.platformId) return "buyer";
    return undefined;
  }

  /** Open trades with the user's role: one call when we know who they are, else one per role. */
  async function openTrades(
    api: MarketApi,
    user: User,
  ): Promise<Array<{ trade: Trade; role: "buyer" | "seller" }>> {
    const out: Array<{ trade: Trade; role: "buyer" | "seller" }> = [];
    const roles = user.platformId === null ? (["seller", "buyer"] as const) : ([undefined] as const);
    for (const role of roles) {
      for await (const trade of api.iterateMyTrades(
        { state: [...OPEN_STATES], limit: 50, ...(role === undefined ? {} : { role }) },
        { maxPages: 4 },
      )) {
        const r = roleOf(trade, user, role);
        if (r !== undefined) out.push({ trade, role: r });
      }
    }
    return out;
  }

  /** First sight alerts only what needs the user now; later, every change of state. */
  function shouldAlert(role: "buyer" | "seller", state: string, previous: string | undefined): boolean {
    if (previous === undefined)
      return role === "seller" ? state === "queued" || state === "pending" : state === "pending";
    return previous !== state;
  }

  /** Which arrival at `state` this is for the trade: 1 + the arrivals already alerted. */
  async function arrivalAt(userId: number, tradeId: string, state: string): Promise<number> {
    const base = dedupeKey.trade(userId, tradeId, state);
    const keys = await dedupeKeysStartingWith(opts.prisma, {
      userId,
      kind: "trade",
      subjectId: tradeId,
      prefix: base,
    });
    let last = 0;
    for (const key of keys) {
      if (key === base) last = Math.max(last, 1);
      const n = /^:(\d+)$/.exec(key.slice(base.length))?.[1];
      if (n !== undefined) last = Math.max(last, Number(n));
    }
    return last + 1;
  }

  async function pollTrades(api: MarketApi, user: User): Promise<number> {
    const open = await openTrades(api, user);
    const tracked = await listOpenTrades(opts.prisma, { userId: user.id });
    const trackedById = new Map(tracked.map((t) => [t.tradeId, t]));
    const seen = new Set(open.map((o) => o.trade.id));

    // Trades that left the open list have reached a final state (or moved past our page window).
    const gone = tracked.filter((t) => !seen.has(t.tradeId)).slice(0, maxTradeReads);
    const observed: Array<{ trade: Trade; role: "buyer" | "seller" }> = [...open];
    for (const t of gone) {
      try {
        observed.push({ trade: await api.getTrade(t.tradeId), role: t.role });
      } catch (error) {
        if (isMarketError(error, "not_found")) {
          await closeTrackedTrade(opts.prisma, t.id, now());
        } else {
          throw error;
        }
      }
    }

    let queued = 0;
    const stepDeps = { prisma: opts.prisma, logger: log, now };
    const runSteps = chainSteps((opts.steps ?? []).map((make) => make(stepDeps, api, user.id)));
    for (const seen of observed) {
      const { role } = seen;
      // The registered steps first: a queued sale that meets the seller's auto-accept conditions
      // is accepted now, and the outcome DM stands for the "waiting on you" alert.
      const step = await runSteps(seen.trade, role);
      const trade = step.trade;
      const known = trackedById.get(trade.id);
      const previous = known?.lastKnownState;
      if (previous === trade.state && known !== undefined && step.alerts.length === 0) continue;
      const alerts: NewAlert[] = [...step.alerts];
      if (!step.replacesTradeAlert && user.alertTrade && shouldAlert(role, trade.state, previous)) {
        // A trade can come back to a state it was in (pending, then queued again): each arrival
        // is news with its own number. The state is stored with the alert, so a restart re-reads
        // nothing new and writes nothing twice.
        const nth = await arrivalAt(user.id, trade.id, trade.state);
        alerts.push({
          userId: user.id,
          kind: "trade",
          subjectId: trade.id,
          version: nth > 1 ? `${trade.state}:${nth}` : trade.state,
          dedupeKey: dedupeKey.trade(user.id, trade.id, trade.state, nth),
          destination: "dm",
          alert: tradeAlertOf(trade, role, { previousState: previous }),
        });
      }
      const deadline = tradeDeadline(trade) ?? null;
      const closedAt = TERMINAL.has(trade.state) ? now() : null;
      // Steps already inside their window now count as told: this alert shows the deadline.
      const remindersSent = deadline === null ? 0 : stepsReached(deadline, now());
      const written = await writeAlerts(opts.prisma, alerts, (tx) =>
        saveTradeObservation(tx, {
          userId: user.id,
          tradeId: trade.id,
          role,
          state: trade.state,
          notified: alerts.length > 0,
          deadline,
          remindersSent,
          closedAt,
        }),
      );
      queued += written.length;
    }
    return queued;
  }

  async function pollBuyOrders(api: MarketApi, user: User): Promise<number> {
    // Taken before the list is asked for: an order that opened after it may be missing from it.
    const readStartedAt = new Date();
    const { items: orders, complete } = await readMyBuyOrders(api, { limit: 50, maxPages: 4 });
    // Orders the bot placed that are no longer open (cancelled on the website, closed) stop
    // counting against the caps; only when the whole list was read can absence be trusted, and
    // only for commitments that stood before the read began.
    if (complete)
      await releaseClosedOrders(opts.prisma, user.id, new Set(orders.map((o) => o.id)), readStartedAt);
    if (orders.length === 0) return 0;
    const tracked = await listTrackedBuyOrders(opts.prisma, { userId: user.id, limit: 10_000 });
    const byId = new Map(tracked.map((t) => [t.orderId, t]));
    let queued = 0;
    for (const order of orders) {
      const bought = order.bought_item_count ?? 0;
      const known = byId.get(order.id);
      if (known !== undefined && known.lastBoughtCount >= bought) continue;
      // What was bought turns from committed into spent under the caps (first sight included:
      // an order the bot placed may have filled before it was first polled).
      await recordFill(opts.prisma, {
        userId: user.id,
        orderId: order.id,
        priceCents: order.price,
        newlyBought: bought - (known?.lastBoughtCount ?? 0),
        stillWanted: order.qty - bought,
        boughtCount: bought,
      });
      // An order seen for the first time sets the baseline: its past fills are old news.
      const alerts: NewAlert[] =
        known !== undefined && user.alertBuyOrder
          ? [
              {
                userId: user.id,
                kind: "buyorder_fill",
                subjectId: order.id,
                version: String(bought),
                dedupeKey: dedupeKey.buyOrderFill(user.id, order.id, bought),
                destination: "dm",
                alert: {
                  kind: "buy_order_fill",
                  orderId: order.id,
                  // Advanced orders (made on the website) name no item; their expression says what they buy.
                  ...(order.market_hash_name === undefined ? {} : { itemName: order.market_hash_name }),
                  ...(order.expression === undefined ? {} : { expression: order.expression }),
                  priceCents: order.price,
                  boughtCount: bought,
                  newlyBought: bought - known.lastBoughtCount,
                  quantity: order.qty,
                },
              },
            ]
          : [];
      const written = await writeAlerts(opts.prisma, alerts, async (tx) => {
        // Compare-and-set: a replica that already moved the count makes this a no-op (and its
        // alert, with the same dedupe key, was the one written).
        if (known === undefined)
          await trackBuyOrder(tx, { userId: user.id, orderId: order.id, boughtCount: bought });
        else await advanceBoughtCount(tx, known.id, known.lastBoughtCount, bought);
      });
      queued += written.length;
    }
    return queued;
  }

  const backgroundRate = opts.backgroundRate ?? (() => Infinity);
  const planner = createPollPlanner({
    intervalMs: opts.intervalMs ?? 30_000,
    backgroundRate,
    now: () => now().getTime(),
  });

  /** Everyone, while no address budget is known; by need within it once one is. */
  async function whoToPoll(): Promise<PlannedPoll<User>[]> {
    const users = await linkedUsersForPolling(opts.prisma);
    const need = await pollNeeds(opts.prisma, now());
    if (!Number.isFinite(backgroundRate())) {
      return users.map((user) => ({ user, priority: need.urgent.has(user.id) ? "deadline" : "background" }));
    }
    return planner.plan(users, need);
  }

  return {
    noteListings(listings) {
      planner.noteListings(listings.map((l) => ({ id: l.id, sellerPlatformId: l.seller?.platform_id })));
    },
    noteGone(listingIds) {
      planner.noteGone(listingIds);
    },
    async runOnce() {
      const result: TradeCycleResult = { users: 0, alerts: 0, revoked: 0, failed: 0 };
      const planned = await whoToPoll();
      // Rollbacks are read only for users a reversal could concern (a trade of theirs open, or
      // ended or paid within the protection window): at 10,000 users most have none, and each
      // read costs budget.
      const reversible = await usersWhoseTradesMayBeReversed(
        opts.prisma,
        planned.map((p) => p.user.id),
        new Date(now().getTime() - REVERSIBLE_FOR_MS),
      );
      await forEachLimited(planned, opts.concurrency ?? 4, async ({ user, priority }) => {
        const api = apiFor(deps, user, priority);
        if (api === undefined) return;
        planner.polled(user.id);
        result.users += 1;
        try {
          // Awaited first, added after: `x += await y` reads x before the await, and users are
          // polled side by side, so one user's count would overwrite another's.
          const trades = await pollTrades(api, user);
          result.alerts += trades;
          const fills = await pollBuyOrders(api, user);
          result.alerts += fills;
          // Reversals are money taken back: always told, whatever the trade alert setting.
          if (reversible.has(user.id)) {
            const reversals = await pollReversals(deps, api, user);
            result.alerts += reversals;
          }
        } catch (error) {
          if (isMarketError(error, "unauthorized")) {
            await revokeAccount(deps, user);
            result.revoked += 1;
            return;
          }
          result.failed += 1;
          log.warn({ err: error, userId: user.id }, "trade poll failed for a user; retried next cycle");
        }
      });
      if (result.alerts + result.revoked + result.failed > 0) log.info(result, "trade cycle");
      return result;
    },

    async runRemindersOnce() {
      const at = now();
      const horizon = new Date(at.getTime() + (steps[0] ?? 0) * 60_000);
      const due = await tradesNearingDeadline(opts.prisma, at, horizon);
      let sent = 0;
      for (const t of due) {
        const expiresAt = t.expiresAt as Date;
        const minutesLeft = (expiresAt.getTime() - at.getTime()) / 60_000;
        // The smallest step reached: with 10 minutes left, the 15-minute one (the hour is moot).
        const step = stepsReached(expiresAt, at);
        if (step === 0 || t.remindersSent >= step) continue;
        const alerts: NewAlert[] = [
          {
            userId: t.userId,
            kind: "trade_reminder",
            subjectId: t.tradeId,
            version: `${t.lastKnownState}:${step}`,
            dedupeKey: dedupeKey.tradeReminder(t.userId, t.tradeId, t.lastKnownState, step, expiresAt),
            destination: "dm",
            alert: {
              kind: "trade",
              tradeId: t.tradeId,
              role: "seller",
              state: t.lastKnownState,
              deadline: expiresAt.toISOString(),
              reminderMinutes: Math.max(1, Math.round(minutesLeft)),
            },
          },
        ];
        const written = await writeAlerts(opts.prisma, alerts, (tx) => recordReminder(tx, t.id, step, at));
        sent += written.length;
      }
      if (sent > 0) log.info({ sent }, "trade reminders queued");
      return sent;
    },
  };
}

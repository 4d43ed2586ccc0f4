// Trades after a sale: list, view, accept (seller), cancel; every result is a TradeView, so the
// trade token and URL are stripped in one place (views.ts) before anything leaves this room.
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import { TRADE_STATES, type Trade } from "../market/schemas.ts";
import type { MarketDeps } from "./deps.ts";
import { requireId, requireIds, requirePage } from "../input/validate.ts";
import { toTradeView, type TradeView } from "./views.ts";

export type TradeRole = "buyer" | "seller";
export type TradeStateName = (typeof TRADE_STATES)[number];

const PAGE_SIZE = 10;
const MAX_BATCH = 50;

export interface TradesPage {
  trades: TradeView[];
  page: number;
  total: number | undefined;
  hasMore: boolean;
}

export async function listTrades(
  deps: MarketDeps,
  input: {
    role?: TradeRole | undefined;
    states?: readonly TradeStateName[] | undefined;
    page?: number | undefined;
  } = {},
): Promise<TradesPage> {
  const page = requirePage(input.page);
  const states = input.states ?? [];
  for (const s of states)
    if (!TRADE_STATES.includes(s)) throw invalidOption("state", `unknown trade state ${s}`);
  const result = await deps.market.getMyTrades({
    page,
    limit: PAGE_SIZE,
    ...(input.role ? { role: input.role } : {}),
    ...(states.length > 0 ? { state: [...states] } : {}),
  });
  const total = result.count;
  const hasMore = total === undefined ? result.trades.length >= PAGE_SIZE : (page + 1) * PAGE_SIZE < total;
  return { trades: result.trades.map(toTradeView), page, total, hasMore };
}

export async function viewTrade(deps: MarketDeps, input: { tradeId: string }): Promise<TradeView> {
  const tradeId = requireId("trade", input.tradeId);
  return toTradeView(await deps.market.getTrade(tradeId));
}

/**
 * Seller accepts one trade, committing to send the item transfer offer. Only a queued trade
 * waits on the seller; any other state gets a message saying what it is instead.
 */
export async function acceptTrade(deps: MarketDeps, input: { tradeId: string }): Promise<TradeView> {
  const tradeId = requireId("trade", input.tradeId);
  const before = await deps.market.getTrade(tradeId);
  if (before.state !== "queued") {
    throw new UserFacingError("conflict", notWaitingMessage(before.state), { tradeId, state: before.state });
  }
  // The accept answer is empty (spec 4.5): read the trade again for its new state and deadline.
  await deps.market.acceptTrade(tradeId);
  deps.logger.info({ tradeId }, "trade accepted");
  return toTradeView(await deps.market.getTrade(tradeId));
}

function notWaitingMessage(state: string): string {
  switch (state) {
    case "pending":
      return "This trade is already accepted; send the transfer offer before its deadline.";
    case "verified":
      return "This trade is already complete.";
    case "cancelled":
    case "failed":
      return `This trade is ${state}; there is nothing to accept.`;
    default:
      return `This trade is ${state}; only a trade waiting on you (queued) can be accepted.`;
  }
}

/**
 * What became of one trade of a batch: `done` by this request, `already` there before it (accepted
 * or cancelled earlier), `not_found` among the user's trades, `not_eligible` in a state the action
 * does not apply to, or `failed`: the marketplace refused it (`error` holds its message).
 */
export type TradeOutcomeResult = "done" | "already" | "not_found" | "not_eligible" | "failed";

export interface TradeOutcome {
  tradeId: string;
  result: TradeOutcomeResult;
  /** The trade reached the state asked for through this request (result "done"). */
  ok: boolean;
  /** Its state as last read; undefined when unknown. */
  state: string | undefined;
  trade: TradeView | undefined;
  /** Why it was not changed, in words for the user. */
  error?: string | undefined;
}

/** States a trade can be cancelled from (queued: waiting on the seller; pending: on the transfer). */
const CANCELLABLE = ["queued", "pending"] as const satisfies readonly TradeStateName[];
/** Pages of the user's trades read to find a batch's trades in them. */
const LOOKUP_PAGES = 10;
const LOOKUP_LIMIT = 50;
const NOT_FOUND = "no such trade of yours";

interface BatchAction {
  /** Whose trades may be sent: accepting is the seller's; undefined: either side. */
  role: TradeRole | undefined;
  /** States a trade must be in to be sent. */
  states: readonly TradeStateName[];
  /** Why a trade in this state is not sent, for the user. */
  notEligible: (state: string) => string;
  /** The trade is in the state asked for (reached by this request, or already before it). */
  reached: (state: string) => boolean;
  bulk: (ids: readonly string[]) => Promise<Trade[]>;
  one: (id: string) => Promise<Trade>;
}

const outcome = (
  tradeId: string,
  result: TradeOutcomeResult,
  trade: Trade | undefined,
  error?: string,
): TradeOutcome => ({
  tradeId,
  result,
  ok: result === "done",
  state: trade?.state,
  trade: trade && toTradeView(trade),
  ...(error === undefined ? {} : { error }),
});

/**
 * Live, one unknown or wrong-state id fails a whole bulk batch with 400 "invalid trade ids
 * specified" (docs/live-service.md). So the user's trades are read first and only those in the right state
 * are sent; if the batch is refused anyway (a state changed meanwhile), each trade goes on its own
 * and reports its own result.
 */
async function batchSafely(
  deps: MarketDeps,
  ids: readonly string[],
  action: BatchAction,
): Promise<TradeOutcome[]> {
  const current = await currentTrades(deps, ids, action);
  const outcomes = new Map<string, TradeOutcome>();
  const send: string[] = [];
  for (const id of ids) {
    const t = current.get(id);
    if (t === undefined) outcomes.set(id, outcome(id, "not_found", undefined, NOT_FOUND));
    else if (action.states.includes(t.state as TradeStateName)) send.push(id);
    else if (action.reached(t.state)) outcomes.set(id, outcome(id, "already", t));
    else outcomes.set(id, outcome(id, "not_eligible", t, action.notEligible(t.state)));
  }
  if (send.length > 0) {
    try {
      const answered = new Map((await action.bulk(send)).map((t) => [t.id, t]));
      for (const id of send) {
        const t = answered.get(id);
        // Sent and accepted as a batch: a trade the answer leaves out still went through.
        outcomes.set(id, t && !action.reached(t.state) ? outcome(id, "failed", t) : outcome(id, "done", t));
      }
    } catch (error) {
      if (!isMarketError(error, "bad_request")) throw error;
      deps.logger.info(
        { tradeIds: send, code: error.code, message: error.serviceMessage },
        "bulk batch refused; going one by one",
      );
      for (const id of send) outcomes.set(id, await oneByOne(deps, id, action));
    }
  }
  return ids.map((id) => outcomes.get(id) ?? outcome(id, "failed", undefined));
}

/**
 * The batch's trades as they stand: for several, from the user's own trades in the states that
 * can be sent (a page or two instead of a read per trade); any not found there is read on its own,
 * to say what it is. Missing from the map: not the user's trade.
 */
async function currentTrades(
  deps: MarketDeps,
  ids: readonly string[],
  action: BatchAction,
): Promise<Map<string, Trade>> {
  const found = new Map<string, Trade>();
  if (ids.length > 1) {
    const wanted = new Set(ids);
    const trades = deps.market.iterateMyTrades(
      { ...(action.role ? { role: action.role } : {}), state: [...action.states], limit: LOOKUP_LIMIT },
      { maxPages: LOOKUP_PAGES },
    );
    for await (const t of trades) {
      if (wanted.has(t.id)) found.set(t.id, t);
      if (found.size === wanted.size) break;
    }
  }
  for (const id of ids) {
    if (found.has(id)) continue;
    try {
      found.set(id, await deps.market.getTrade(id));
    } catch (error) {
      if (!isMarketError(error, "not_found") && !isMarketError(error, "forbidden")) throw error;
    }
  }
  return found;
}

async function oneByOne(deps: MarketDeps, tradeId: string, action: BatchAction): Promise<TradeOutcome> {
  try {
    const trade = await action.one(tradeId);
    return outcome(tradeId, action.reached(trade.state) ? "done" : "failed", trade);
  } catch (error) {
    if (!isMarketError(error) || error.kind === "unauthorized") throw error;
    // Refused: read it back, it may have got there another way (the website) or be gone.
    const now = await deps.market.getTrade(tradeId).catch(() => undefined);
    if (now === undefined && error.kind === "not_found")
      return outcome(tradeId, "not_found", undefined, NOT_FOUND);
    if (now && action.reached(now.state)) return outcome(tradeId, "already", now);
    return outcome(tradeId, "failed", now, error.serviceMessage ?? error.kind.replace("_", " "));
  }
}

/** Accepts several trades in one request when it can; each trade's outcome is reported. */
export async function acceptAll(
  deps: MarketDeps,
  input: { tradeIds: readonly string[] },
): Promise<TradeOutcome[]> {
  const ids = requireIds("trades", input.tradeIds, MAX_BATCH);
  const outcomes = await batchSafely(deps, ids, {
    role: "seller",
    states: ["queued"],
    notEligible: notWaitingMessage,
    // Accepting moves queued to pending; anything past queued also means the seller has accepted.
    reached: (state) => state === "pending" || state === "verified",
    bulk: (send) => deps.market.bulkAcceptTrades(send),
    one: async (id) => {
      await deps.market.acceptTrade(id);
      return deps.market.getTrade(id);
    },
  });
  deps.logger.info(
    { tradeIds: ids, accepted: outcomes.filter((o) => o.ok).length },
    "trades accepted in bulk",
  );
  return outcomes;
}

/** Cancels several trades, each judged on its own (spec 3), never failed by another's state. */
export async function cancelTrades(
  deps: MarketDeps,
  input: { tradeIds: readonly string[] },
): Promise<TradeOutcome[]> {
  const ids = requireIds("trades", input.tradeIds, MAX_BATCH);
  const outcomes = await batchSafely(deps, ids, {
    role: undefined,
    states: CANCELLABLE,
    notEligible: (state) => `it is ${state}; only a queued or pending trade can be cancelled`,
    reached: (state) => state === "cancelled",
    bulk: (send) => deps.market.bulkCancelTrades(send),
    one: async (id) => {
      const [trade] = await deps.market.bulkCancelTrades([id]);
      return trade ?? deps.market.getTrade(id);
    },
  });
  deps.logger.info(
    { tradeIds: ids, cancelled: outcomes.filter((o) => o.ok).length },
    "trades cancelled in bulk",
  );
  return outcomes;
}

/** Cancels one trade; a refusal is an error with the trade's state rather than a quiet false. */
export async function cancelTrade(deps: MarketDeps, input: { tradeId: string }): Promise<TradeView> {
  const [o] = await cancelTrades(deps, { tradeIds: [input.tradeId] });
  if (o?.ok && o.trade) return o.trade;
  const state = o?.state;
  const message =
    o?.result === "already"
      ? "This trade is already cancelled."
      : o?.result === "not_found"
        ? "No such trade of yours."
        : state && o?.result === "not_eligible"
          ? `This trade could not be cancelled: it is ${state}.`
          : `The marketplace did not cancel this trade${o?.error ? `: ${o.error}` : ""}.`;
  throw new UserFacingError("conflict", message, { tradeId: input.tradeId, state, result: o?.result });
}

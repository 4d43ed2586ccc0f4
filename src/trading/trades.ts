// Trades after a sale: list, view, accept (seller), cancel; every result is a TradeView, so the
// trade token and URL are stripped in one place (views.ts) before anything leaves this room.
import { invalidOption, UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import { TRADE_STATES, type Trade } from "../market/schemas.ts";
import type { MarketDeps } from "./deps.ts";
import { requireId, requireIds, requirePage } from "./validate.ts";
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

export interface TradeOutcome {
  tradeId: string;
  /** The trade reached the state asked for. */
  ok: boolean;
  /** Its state after the request; undefined when the service did not return it. */
  state: string | undefined;
  trade: TradeView | undefined;
  /** Why it was not changed, when the marketplace said (one-by-one fallback) or it was unknown. */
  error?: string | undefined;
}

/** States a trade can be cancelled from (queued: waiting on the seller; pending: on the transfer). */
const CANCELLABLE: ReadonlySet<string> = new Set(["queued", "pending"]);

/**
 * Live, one unknown or wrong-state id fails a whole bulk batch with 400 (api-notes). So: read
 * each trade first and send only those in the right state; if the batch is refused anyway (a
 * state changed meanwhile), go one by one and report each trade's own result.
 */
async function bulkSafely(
  deps: MarketDeps,
  ids: readonly string[],
  op: {
    eligible: (state: string) => boolean;
    notEligible: (state: string) => string;
    bulk: (ids: readonly string[]) => Promise<Trade[]>;
    one: (id: string) => Promise<Trade>;
    ok: (state: string) => boolean;
  },
): Promise<TradeOutcome[]> {
  const current = new Map<string, Trade | Error>();
  for (const id of ids) {
    try {
      current.set(id, await deps.market.getTrade(id));
    } catch (error) {
      if (!isMarketError(error, "not_found") && !isMarketError(error, "forbidden")) throw error;
      current.set(id, error);
    }
  }
  const send = ids.filter((id) => {
    const t = current.get(id);
    return t !== undefined && !(t instanceof Error) && op.eligible(t.state);
  });
  const settled = new Map<string, TradeOutcome>();
  if (send.length > 0) {
    try {
      for (const o of outcomesOf(send, await op.bulk(send), op.ok)) settled.set(o.tradeId, o);
    } catch (error) {
      if (!isMarketError(error, "bad_request")) throw error;
      deps.logger.info({ tradeIds: send, code: error.code }, "bulk batch refused; going one by one");
      for (const id of send) settled.set(id, await oneByOne(id, op));
    }
  }
  return ids.map((tradeId) => {
    const done = settled.get(tradeId);
    if (done) return done;
    const t = current.get(tradeId);
    if (t === undefined || t instanceof Error) {
      return { tradeId, ok: false, state: undefined, trade: undefined, error: "no such trade of yours" };
    }
    return { tradeId, ok: false, state: t.state, trade: toTradeView(t), error: op.notEligible(t.state) };
  });
}

async function oneByOne(
  tradeId: string,
  op: { one: (id: string) => Promise<Trade>; ok: (state: string) => boolean },
): Promise<TradeOutcome> {
  try {
    const trade = await op.one(tradeId);
    return { tradeId, ok: op.ok(trade.state), state: trade.state, trade: toTradeView(trade) };
  } catch (error) {
    if (!isMarketError(error) || error.kind === "unauthorized") throw error;
    return {
      tradeId,
      ok: false,
      state: undefined,
      trade: undefined,
      error: error.serviceMessage ?? error.kind.replace("_", " "),
    };
  }
}

/** Accepts several trades in one request when it can; each trade's outcome is reported. */
export async function acceptAll(
  deps: MarketDeps,
  input: { tradeIds: readonly string[] },
): Promise<TradeOutcome[]> {
  const ids = requireIds("trades", input.tradeIds, MAX_BATCH);
  const outcomes = await bulkSafely(deps, ids, {
    eligible: (state) => state === "queued",
    notEligible: notWaitingMessage,
    bulk: (send) => deps.market.bulkAcceptTrades(send),
    one: async (id) => {
      await deps.market.acceptTrade(id);
      return deps.market.getTrade(id);
    },
    // Accepting moves queued to pending; anything past queued also means the seller has accepted.
    ok: (state) => state !== "queued" && state !== "cancelled" && state !== "failed",
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
  const outcomes = await bulkSafely(deps, ids, {
    eligible: (state) => CANCELLABLE.has(state),
    notEligible: (state) => `it is ${state}; only a queued or pending trade can be cancelled`,
    bulk: (send) => deps.market.bulkCancelTrades(send),
    one: async (id) => {
      const [trade] = await deps.market.bulkCancelTrades([id]);
      return trade ?? deps.market.getTrade(id);
    },
    ok: (state) => state === "cancelled",
  });
  deps.logger.info(
    { tradeIds: ids, cancelled: outcomes.filter((o) => o.ok).length },
    "trades cancelled in bulk",
  );
  return outcomes;
}

/** Cancels one trade; a refusal is an error with the trade's state rather than a quiet false. */
export async function cancelTrade(deps: MarketDeps, input: { tradeId: string }): Promise<TradeView> {
  const [outcome] = await cancelTrades(deps, { tradeIds: [input.tradeId] });
  if (outcome?.ok && outcome.trade) return outcome.trade;
  const state = outcome?.state;
  throw new UserFacingError(
    "conflict",
    state
      ? `This trade could not be cancelled: it is ${state}.`
      : `The marketplace did not cancel this trade${outcome?.error ? `: ${outcome.error}` : ""}.`,
    { tradeId: input.tradeId, state },
  );
}

function outcomesOf(
  ids: readonly string[],
  trades: readonly Trade[],
  ok: (state: string) => boolean,
): TradeOutcome[] {
  const byId = new Map(trades.map((t) => [t.id, t]));
  return ids.map((tradeId) => {
    const trade = byId.get(tradeId);
    return trade
      ? { tradeId, ok: ok(trade.state), state: trade.state, trade: toTradeView(trade) }
      : { tradeId, ok: false, state: undefined, trade: undefined };
  });
}

// Trades against the real sandbox: accept, bulk accept, cancel with per-trade outcomes, and the
// trade token and URL never leaving the trading room.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserFacingError } from "../../src/errors.ts";
import type { MarketApi } from "../../src/market/client.ts";
import {
  acceptTrade,
  acceptAll,
  cancelTrade,
  cancelTrades,
  listTrades,
  viewTrade,
} from "../../src/trading/trades.ts";
import { rejection, startTradingWorld, type TradingWorld } from "./world.ts";

let world: TradingWorld;

beforeAll(async () => {
  world = await startTradingWorld();
});

afterAll(async () => {
  await world?.close();
});

const sale = (platformId: string) => world.sandbox.control.createSaleForSeller(platformId);

describe("trade views", () => {
  it("GIVEN a trade with a token and URL WHEN viewed or listed THEN neither appears anywhere in the result", async () => {
    const seller = await world.trader();
    const t = sale(seller.platformId);
    const raw = await seller.market.getTrade(t.id);
    expect(raw.trade_token).toMatch(/\w+/);
    expect(raw.trade_url).toContain(raw.trade_token);

    const view = await viewTrade(seller.deps, { tradeId: t.id });
    const page = await listTrades(seller.deps, { role: "seller" });

    for (const result of [view, page]) {
      const text = JSON.stringify(result);
      expect(text).not.toContain(raw.trade_token);
      expect(text).not.toContain("trade_token");
      expect(text).not.toContain("trade_url");
      expect(text).not.toContain("tradeToken");
    }
    expect(view).toMatchObject({ tradeId: t.id, state: "queued", sellerId: seller.platformId });
    expect(view.expiresAt).toBeInstanceOf(Date);
    expect(page.trades.map((x) => x.tradeId)).toEqual([t.id]);
  });
});

describe("accepting trades", () => {
  it("GIVEN a queued trade WHEN the seller accepts THEN it is pending with a send deadline, and a second accept is refused clearly", async () => {
    const seller = await world.trader();
    const t = sale(seller.platformId);

    const accepted = await acceptTrade(seller.deps, { tradeId: t.id });
    const again = await rejection(() => acceptTrade(seller.deps, { tradeId: t.id }));

    expect(accepted.state).toBe("pending");
    expect(accepted.acceptedAt).toBeInstanceOf(Date);
    expect(accepted.expiresAt).toBeInstanceOf(Date);
    expect(again).toMatchObject({ code: "conflict", context: { state: "pending" } });
    expect((again as UserFacingError).userMessage).toContain("already accepted");
  });

  it("GIVEN two queued trades WHEN accepted together THEN one bulk request accepts both", async () => {
    const seller = await world.trader();
    const ids = [sale(seller.platformId).id, sale(seller.platformId).id];
    const before = world.hits("POST /trades/bulk/accept");

    const outcomes = await acceptAll(seller.deps, { tradeIds: ids });

    expect(outcomes.map((o) => [o.tradeId, o.ok, o.state])).toEqual(ids.map((id) => [id, true, "pending"]));
    expect(world.hits("POST /trades/bulk/accept") - before).toBe(1);
    for (const o of outcomes) expect(JSON.stringify(o)).not.toContain("trade_token");
  });
});

describe("accepting a batch the live service would fail whole", () => {
  const refusedBatches = () =>
    world.sandbox.control.stats().routes["POST /trades/bulk/accept"]?.byStatus["400"] ?? 0;

  it("GIVEN two queued trades, one already accepted and an unknown id WHEN accepted together THEN the user's trades are read once, only the queued two are sent, and each is reported", async () => {
    const seller = await world.trader();
    const queued = [sale(seller.platformId).id, sale(seller.platformId).id];
    const accepted = sale(seller.platformId).id;
    await acceptTrade(seller.deps, { tradeId: accepted });
    const unknown = "999999999001";
    const [batches, refused, lists, reads] = [
      world.hits("POST /trades/bulk/accept"),
      refusedBatches(),
      world.hits("GET /me/trades"),
      world.hits("GET /trades/{trade_id}"),
    ];

    const outcomes = await acceptAll(seller.deps, { tradeIds: [...queued, accepted, unknown] });

    expect(outcomes.map((o) => [o.tradeId, o.result, o.state])).toEqual([
      [queued[0], "done", "pending"],
      [queued[1], "done", "pending"],
      [accepted, "already", "pending"],
      [unknown, "not_found", undefined],
    ]);
    expect(world.hits("POST /trades/bulk/accept") - batches).toBe(1);
    expect(refusedBatches()).toBe(refused);
    expect(world.hits("GET /me/trades") - lists).toBe(1);
    // Only the two the list did not show are read on their own, to say what they are.
    expect(world.hits("GET /trades/{trade_id}") - reads).toBe(2);
  });

  it("GIVEN a trade accepted elsewhere after the read WHEN the service refuses the batch THEN each goes alone: accepted, already accepted, or failed with the service's message", async () => {
    const seller = await world.trader();
    const [fine, elsewhere, stuck] = [
      sale(seller.platformId).id,
      sale(seller.platformId).id,
      sale(seller.platformId).id,
    ];
    // Accepted on the website between the bot's read and its batch: live, the batch then fails whole.
    const racing: MarketApi = {
      ...seller.market,
      bulkAcceptTrades: async (ids) => {
        await seller.market.acceptTrade(elsewhere);
        return seller.market.bulkAcceptTrades(ids);
      },
    };
    world.sandbox.control.injectFault({
      method: "POST",
      path: `/trades/${stuck}/accept`,
      kind: "status",
      status: 400,
      times: 1,
    });
    const refused = refusedBatches();

    const outcomes = await acceptAll(
      { ...seller.deps, market: racing },
      { tradeIds: [fine, elsewhere, stuck] },
    );

    expect(refusedBatches()).toBe(refused + 1);
    expect(outcomes.map((o) => [o.tradeId, o.result, o.state])).toEqual([
      [fine, "done", "pending"],
      [elsewhere, "already", "pending"],
      [stuck, "failed", "queued"],
    ]);
    expect(outcomes[2]?.error).toBe("injected fault: status 400");
    expect((await seller.market.getTrade(stuck)).state).toBe("queued");
  });
});

describe("cancelling trades", () => {
  it("GIVEN a queued, a verified and an unknown trade WHEN cancelled together THEN only the queued one is sent and each gets its own outcome", async () => {
    const seller = await world.trader();
    const verified = sale(seller.platformId);
    await acceptTrade(seller.deps, { tradeId: verified.id });
    world.sandbox.control.advanceClock(2 * 60 * 60 * 1000);
    expect((await viewTrade(seller.deps, { tradeId: verified.id })).state).toBe("verified");
    const queued = sale(seller.platformId);

    const unknown = "999999999002";
    const before = world.hits("POST /trades/bulk/cancel");

    const outcomes = await cancelTrades(seller.deps, { tradeIds: [queued.id, verified.id, unknown] });

    expect(outcomes.map((o) => [o.tradeId, o.ok, o.result, o.state])).toEqual([
      [queued.id, true, "done", "cancelled"],
      [verified.id, false, "not_eligible", "verified"],
      [unknown, false, "not_found", undefined],
    ]);
    expect(outcomes[1]?.error).toContain("only a queued or pending trade can be cancelled");
    expect(world.hits("POST /trades/bulk/cancel") - before).toBe(1);
  });

  it("GIVEN a verified trade WHEN cancelled alone THEN the refusal names its state", async () => {
    const seller = await world.trader();
    const t = sale(seller.platformId);
    await acceptTrade(seller.deps, { tradeId: t.id });
    world.sandbox.control.advanceClock(2 * 60 * 60 * 1000);

    const error = await rejection(() => cancelTrade(seller.deps, { tradeId: t.id }));

    expect(error).toMatchObject({ code: "conflict" });
    expect((error as UserFacingError).userMessage).toBe("This trade could not be cancelled: it is verified.");
  });

  it("GIVEN a queued trade WHEN cancelled alone THEN it is cancelled", async () => {
    const seller = await world.trader();
    const t = sale(seller.platformId);

    const view = await cancelTrade(seller.deps, { tradeId: t.id });

    expect(view).toMatchObject({ tradeId: t.id, state: "cancelled" });
  });
});

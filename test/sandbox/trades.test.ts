// Trade lifecycle: queued -> accept -> pending -> verified, expiry -> cancelled with refunds, bulk operations.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Listing, Trade, Transaction } from "../../src/market/schemas.ts";
import { buyAs, ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

const HOUR = 3_600_000;
const Trades = z.object({ trades: z.array(Trade), count: z.number().int() });
const Data = z.object({ data: z.array(Trade) });

describe("trades", () => {
  const t = useSandbox();
  /** A sale of one of bob's items to a synthetic buyer: a trade waiting on bob. */
  const saleForBob = () => t.sb.control.createSaleForSeller(t.bobId);
  const getTrade = async (id: string, key = t.bob) =>
    parse(Trade, await t.api("GET", `/trades/${id}`, { key }));

  it("moves queued -> pending on accept (empty 200 body) -> verified an hour later, releasing the money to the seller", async () => {
    const sale = saleForBob();
    expect(sale.state).toBe("queued");
    const before = t.sb.control.balance(t.bobId);
    const acc = await t.api("POST", `/trades/${sale.id}/accept`, { key: t.bob });
    expect(acc.status).toBe(200);
    expect(acc.text).toBe("");
    const pending = await getTrade(sale.id);
    expect(pending.state).toBe("pending");
    expect(pending.accepted_at).toEqual(expect.any(String));
    expect((await t.api("POST", `/trades/${sale.id}/accept`, { key: t.bob })).status).toBe(400);

    t.sb.control.advanceClock(HOUR + 1);
    const verified = await getTrade(sale.id);
    expect(verified.state).toBe("verified");
    expect(verified.verified_at).toEqual(expect.any(String));
    expect(t.sb.control.balance(t.bobId)).toEqual({
      balance: before.balance + sale.contract.price,
      pending: before.pending - sale.contract.price,
    });
    const txs = parse(
      z.object({ transactions: z.array(Transaction) }),
      await t.api("GET", "/me/transactions?type=trade_verified", { key: t.bob }),
    ).transactions;
    expect(txs[0]?.details?.trade_id).toBe(sale.id);
    // A verified trade cannot be cancelled: live, the whole batch is refused.
    expect(
      (await t.api("POST", "/trades/bulk/cancel", { key: t.bob, body: { trade_ids: [sale.id] } })).status,
    ).toBe(400);
    expect((await getTrade(sale.id)).state).toBe("verified");
  });

  it("cancels a queued trade nobody accepted once expires_at passes, refunding the buyer", async () => {
    const alice = t.sb.users[0];
    const l = t.sb.control.createListing({ sellerPlatformId: t.bobId, price: 4321 });
    const before = t.sb.control.balance(alice?.platformId ?? "");
    const bought = (await buyAs(t, t.alice, [l.id], 4321))[0];
    if (!bought) throw new Error("no trade");
    expect(t.sb.control.balance(alice?.platformId ?? "").balance).toBe(before.balance - 4321);
    // A minute of margin on each side so a slow machine's real time cannot blur the boundary.
    t.sb.control.advanceClock(12 * HOUR - 60_000);
    expect((await getTrade(bought.id, t.alice)).state).toBe("queued");
    t.sb.control.advanceClock(120_000);
    const expired = await getTrade(bought.id, t.alice);
    expect(expired.state).toBe("cancelled");
    expect(t.sb.control.balance(alice?.platformId ?? "").balance).toBe(before.balance);
    const refund = parse(
      z.object({ transactions: z.array(Transaction) }),
      await t.api("GET", "/me/transactions?type=contract_purchase_refund", { key: t.alice }),
    ).transactions[0];
    expect(refund?.balance_offset).toBe(4321);
    expect(parse(Listing, await t.api("GET", `/listings/${l.id}`)).state).toBe("refunded");
  });

  it("lets only the seller accept, and only parties read a trade (others get 404)", async () => {
    const sale = saleForBob();
    const l = t.sb.control.createListing({ sellerPlatformId: t.bobId, price: 300 });
    const mine = (await buyAs(t, t.alice, [l.id], 300))[0];
    const byBuyer = await t.api("POST", `/trades/${mine?.id}/accept`, { key: t.alice });
    expect(byBuyer.status).toBe(400);
    parse(ErrorBodyStrict, byBuyer);
    expect((await t.api("GET", `/trades/${sale.id}`, { key: t.carol })).status).toBe(404);
    expect((await t.api("POST", `/trades/${sale.id}/accept`, { key: t.carol })).status).toBe(404);
    expect((await t.api("GET", "/trades/999", { key: t.bob })).status).toBe(404);
    expect((await t.api("GET", "/trades/x1", { key: t.bob })).status).toBe(400);
    expect(parse(Trade, await t.api("GET", `/trades/${mine?.id}`, { key: t.alice })).buyer_id).toBe(
      t.aliceId,
    );
  });

  it("fails a whole bulk batch when one id is unknown, foreign or in the wrong state, as live; a clean batch goes through", async () => {
    const done = saleForBob();
    await t.api("POST", `/trades/${done.id}/accept`, { key: t.bob });
    t.sb.control.advanceClock(HOUR + 1);
    expect((await getTrade(done.id)).state).toBe("verified");
    const queued = saleForBob();
    const pending = saleForBob();
    await t.api("POST", `/trades/${pending.id}/accept`, { key: t.bob });
    const foreign = t.sb.control.createSaleForSeller(t.sb.users[2]?.platformId ?? "");

    for (const bad of [done.id, foreign.id, "1"]) {
      const res = await t.api("POST", "/trades/bulk/cancel", {
        key: t.bob,
        body: { trade_ids: [queued.id, pending.id, bad] },
      });
      expect(res.status).toBe(400);
      expect(parse(ErrorBodyStrict, res).message).toBe("invalid trade ids specified");
    }
    // Nothing in a refused batch changed.
    expect((await getTrade(queued.id)).state).toBe("queued");
    expect((await getTrade(pending.id)).state).toBe("pending");
    expect(parse(Trade, await t.api("GET", `/trades/${foreign.id}`, { key: t.carol })).state).toBe("queued");

    const accept = await t.api("POST", "/trades/bulk/accept", {
      key: t.bob,
      body: { trade_ids: [queued.id, pending.id] },
    });
    expect(accept.status).toBe(400);
    expect((await getTrade(queued.id)).state).toBe("queued");

    const res = parse(
      Data,
      await t.api("POST", "/trades/bulk/cancel", {
        key: t.bob,
        body: { trade_ids: [queued.id, pending.id] },
      }),
    );
    const states = Object.fromEntries(res.data.map((x) => [x.id, x.state]));
    expect(states).toEqual({ [queued.id]: "cancelled", [pending.id]: "cancelled" });
    expect((await t.api("POST", "/trades/bulk/cancel", { key: t.bob, body: { trade_ids: [] } })).status).toBe(
      400,
    );
  });

  it("bulk-cancels a pending trade and refunds the buyer", async () => {
    const sale = saleForBob();
    await t.api("POST", `/trades/${sale.id}/accept`, { key: t.bob });
    const before = t.sb.control.balance(t.bobId).pending;
    const res = parse(
      Data,
      await t.api("POST", "/trades/bulk/cancel", { key: t.bob, body: { trade_ids: [sale.id] } }),
    );
    expect(res.data[0]?.state).toBe("cancelled");
    expect(t.sb.control.balance(t.bobId).pending).toBe(before - sale.contract.price);
  });

  it("bulk-accepts queued trades and returns them updated", async () => {
    const a = saleForBob();
    const b = saleForBob();
    const res = parse(
      Data,
      await t.api("POST", "/trades/bulk/accept", { key: t.bob, body: { trade_ids: [a.id, b.id] } }),
    );
    expect(res.data.map((x) => x.state)).toEqual(["pending", "pending"]);
  });

  it("lists my trades filtered by comma-separated states and role, most recent first, zero-based pages", async () => {
    const all = parse(Trades, await t.api("GET", "/me/trades?role=seller", { key: t.bob }));
    expect(all.count).toBeGreaterThan(3);
    expect(all.trades.every((x) => x.seller_id === t.bobId)).toBe(true);
    const ids = all.trades.map((x) => BigInt(x.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
    const some = parse(Trades, await t.api("GET", "/me/trades?state=queued,cancelled", { key: t.bob }));
    expect(some.trades.every((x) => x.state === "queued" || x.state === "cancelled")).toBe(true);
    const p0 = parse(Trades, await t.api("GET", "/me/trades?limit=2&page=0", { key: t.bob }));
    const p1 = parse(Trades, await t.api("GET", "/me/trades?limit=2&page=1", { key: t.bob }));
    expect(p0.trades).toHaveLength(2);
    expect(p1.trades[0]?.id).not.toBe(p0.trades[0]?.id);
    expect(p0.count).toBe(p1.count);
    expect((await t.api("GET", "/me/trades?role=owner", { key: t.bob })).status).toBe(400);
    expect((await t.api("GET", "/me/trades?page=-1", { key: t.bob })).status).toBe(400);
  });

  it("has seeded sellers accept trades on their own a few minutes after a sale", async () => {
    const l = t.sb.control.createListing({ price: 200, sellerPlatformId: "42420000000000201" });
    const trade = (await buyAs(t, t.carol, [l.id], 200))[0];
    t.sb.control.advanceClock(10 * 60_000);
    expect((await getTrade(trade?.id ?? "", t.carol)).state).toBe("pending");
  });
});

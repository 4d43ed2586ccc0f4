// Buying rules (all or nothing at an exact total) and proxy bidding on auctions with held funds.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Bid, Listing, Trade, Transaction } from "../../src/market/schemas.ts";
import { ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

const Trades = z.object({ trades: z.array(Trade) });
const Txs = z.object({ transactions: z.array(Transaction), count: z.number().int() });

describe("POST /listings/buy", () => {
  const t = useSandbox();
  const listed = (price: number) => t.sb.control.createListing({ price, type: "buy_now" });

  it("buys several listings at their exact total: listings sold, answered with the live message, trades queued, ledger entries for both sides", async () => {
    const a = listed(1000);
    const b = listed(2500);
    const before = t.sb.control.balance(t.bobId).balance;
    const res = await t.api("POST", "/listings/buy", {
      key: t.bob,
      body: { contract_ids: [a.id, b.id], total_price: 3500 },
    });
    expect(res.status).toBe(200);
    // As live: a message, no trades; the buyer's trades are in GET /me/trades.
    expect(res.json).toEqual({ message: "all listings purchased" });
    const mine = parse(Trades, await t.api("GET", "/me/trades?role=buyer", { key: t.bob })).trades;
    const trades = mine.filter((x) => x.contract_id === a.id || x.contract_id === b.id);
    expect(trades.map((x) => x.contract_id).sort()).toEqual([a.id, b.id].sort());
    for (const tr of trades) {
      expect(tr.state).toBe("queued");
      expect(tr.buyer_id).toBe(t.bobId);
      expect(tr.trade_token).toMatch(/^[0-9a-f]{12}$/);
      expect(tr.trade_url).toContain(tr.trade_token ?? "missing");
      expect(Date.parse(tr.expires_at ?? "") - Date.parse(tr.created_at ?? "")).toBe(12 * 3_600_000);
    }
    expect(t.sb.control.balance(t.bobId).balance).toBe(before - 3500);
    const sold = parse(Listing, await t.api("GET", `/listings/${a.id}`));
    expect(sold.state).toBe("sold");
    expect(sold.sold_at).toEqual(expect.any(String));
    const txs = parse(Txs, await t.api("GET", "/me/transactions?type=contract_purchased", { key: t.bob }));
    expect(
      txs.transactions
        .slice(0, 2)
        .map((x) => x.balance_offset)
        .sort(),
    ).toEqual([-1000, -2500].sort());
    const sellerId = a.seller?.platform_id ?? "";
    const sellerKey = t.sb.control.users().find((u) => u.platformId === sellerId)?.apiKey;
    const sellerTxs = parse(
      Txs,
      await t.api("GET", "/me/transactions?type=contract_sold", { key: sellerKey }),
    );
    expect(
      sellerTxs.transactions.some((x) => x.pending_offset === 1000 && x.details?.contract_id === a.id),
    ).toBe(true);
  });

  it("buys nothing when the total is stale after a reprice", async () => {
    const a = listed(1000);
    const b = listed(2000);
    const sellerKey = t.sb.control.users().find((u) => u.platformId === b.seller?.platform_id)?.apiKey;
    expect(
      (await t.api("PATCH", `/listings/${b.id}`, { key: sellerKey, body: { price: 2100 } })).status,
    ).toBe(200);
    const res = await t.api("POST", "/listings/buy", {
      key: t.bob,
      body: { contract_ids: [a.id, b.id], total_price: 3000 },
    });
    // Live: 422 with code 15, the price changed.
    expect(res.status).toBe(422);
    expect(parse(ErrorBodyStrict, res)).toMatchObject({ code: 15 });
    expect(parse(ErrorBodyStrict, res).message).toMatch(/total/);
    expect(parse(Listing, await t.api("GET", `/listings/${a.id}`)).state).toBe("listed");
  });

  it("buys nothing when one listing is already sold", async () => {
    const a = listed(1000);
    const b = listed(1000);
    t.sb.control.sellToBuyer(b.id);
    const before = t.sb.control.balance(t.bobId).balance;
    const res = await t.api("POST", "/listings/buy", {
      key: t.bob,
      body: { contract_ids: [a.id, b.id], total_price: 2000 },
    });
    // Live: 422 with code 6, stale or sold.
    expect(res.status).toBe(422);
    expect(parse(ErrorBodyStrict, res)).toMatchObject({ code: 6 });
    expect(parse(ErrorBodyStrict, res).message).toMatch(/no longer available/);
    expect(parse(Listing, await t.api("GET", `/listings/${a.id}`)).state).toBe("listed");
    expect(t.sb.control.balance(t.bobId).balance).toBe(before);
  });

  it("refuses buying one's own listing, an unknown listing, a bad body and an unaffordable total", async () => {
    const own = t.sb.control.createListing({ sellerPlatformId: t.bobId, price: 500 });
    expect(
      (
        await t.api("POST", "/listings/buy", {
          key: t.bob,
          body: { contract_ids: [own.id], total_price: 500 },
        })
      ).status,
    ).toBe(400);
    expect(
      (await t.api("POST", "/listings/buy", { key: t.bob, body: { contract_ids: ["42"], total_price: 1 } }))
        .status,
    ).toBe(400);
    for (const body of [
      { contract_ids: [own.id] },
      { contract_ids: [], total_price: 0 },
      { contract_ids: [own.id], total_price: -1 },
    ]) {
      expect((await t.api("POST", "/listings/buy", { key: t.alice, body })).status).toBe(400);
    }
    const pricey = listed(400_000);
    const pricey2 = listed(200_000);
    const res = await t.api("POST", "/listings/buy", {
      key: t.carol,
      body: { contract_ids: [pricey.id, pricey2.id], total_price: 600_000 },
    });
    expect(res.status).toBe(400);
    expect(parse(ErrorBodyStrict, res).message).toBe("insufficient balance");
    expect(t.sb.control.balance(t.sb.users[2]?.platformId ?? "").balance).toBe(500_000);
  });
});

describe("auctions and proxy bidding", () => {
  const t = useSandbox();
  const auction = (reserve: number) =>
    t.sb.control.createListing({ type: "auction", price: reserve, auction_duration_ms: 3_600_000 });
  const read = async (id: string) => parse(Listing, await t.api("GET", `/listings/${id}`));
  const bid = (key: string, id: string, max: number) =>
    t.api("POST", `/listings/${id}/bid`, { key, body: { max_price: max } });

  it("opens at the reserve and raises the standing price only as far as the runner-up requires; each bid is answered with a receipt as live", async () => {
    const l = auction(1000);
    expect(l.auction_details?.min_next_bid).toBe(1000);
    const first = await bid(t.alice, l.id, 5000);
    // Live reply: { id, created_at, max_price, contract_id }: no price, no state.
    expect(first.json).toEqual({
      id: expect.stringMatching(/^\d+$/),
      created_at: expect.any(String),
      max_price: 5000,
      contract_id: l.id,
    });
    let now = await read(l.id);
    expect(now.price).toBe(1000);
    expect(now.auction_details?.min_next_bid).toBe(1050);
    expect(now.auction_details?.top_bid?.price).toBe(1000);
    const aliceBidder = now.auction_details?.top_bid?.obfuscated_buyer_id;

    // bob's 2000 is below alice's ceiling: alice stays on top at 2000 + one increment.
    await bid(t.bob, l.id, 2000);
    now = await read(l.id);
    expect(now.price).toBe(2050);
    expect(now.auction_details?.top_bid?.obfuscated_buyer_id).toBe(aliceBidder);

    // bob goes over alice's ceiling: he leads at her ceiling plus one increment, not at his own.
    await bid(t.bob, l.id, 8000);
    now = await read(l.id);
    expect(now.price).toBe(5100);
    expect(now.auction_details?.top_bid?.obfuscated_buyer_id).not.toBe(aliceBidder);
    expect(now.auction_details?.min_next_bid).toBe(5200);
  });

  it("gives a leader's re-bid a new bid id, as live, without moving the standing price", async () => {
    const l = auction(1000);
    const first = (await bid(t.alice, l.id, 3000)).json as { id: string };
    const again = (await bid(t.alice, l.id, 4000)).json as { id: string; max_price: number };

    expect(again.id).not.toBe(first.id);
    expect(again.max_price).toBe(4000);
    const now = await read(l.id);
    expect(now.price).toBe(1000);
    expect(now.auction_details?.top_bid?.id).toBe(again.id);
  });

  it("caps the standing price at the leader's ceiling when the runner-up is within an increment", async () => {
    const l = auction(1000);
    await bid(t.alice, l.id, 3000);
    await bid(t.bob, l.id, 2990);
    expect((await read(l.id)).price).toBe(3000);
  });

  it("refuses a bid below min_next_bid, on one's own auction and on a buy-now listing", async () => {
    const l = auction(1000);
    const low = await bid(t.alice, l.id, 999);
    expect(low.status).toBe(400);
    expect(parse(ErrorBodyStrict, low).message).toMatch(/minimum next bid/);
    const own = t.sb.control.createListing({ type: "auction", price: 500, sellerPlatformId: t.aliceId });
    expect((await bid(t.alice, own.id, 600)).status).toBe(400);
    const bn = t.sb.control.createListing({ type: "buy_now", price: 500 });
    expect((await bid(t.alice, bn.id, 600)).status).toBe(400);
    expect((await bid(t.alice, "123", 600)).status).toBe(404);
  });

  it("holds the leader's ceiling, releases it when outbid, and lets the leader raise the ceiling", async () => {
    const l = auction(2000);
    const carolId = t.sb.users[2]?.platformId ?? "";
    const start = t.sb.control.balance(carolId);
    await bid(t.carol, l.id, 4000);
    expect(t.sb.control.balance(carolId)).toEqual({
      balance: start.balance - 4000,
      pending: start.pending + 4000,
    });
    const raise = await bid(t.carol, l.id, 6000);
    expect(raise.status).toBe(200);
    expect(t.sb.control.balance(carolId).pending).toBe(start.pending + 6000);
    expect((await read(l.id)).price).toBe(2000);
    t.sb.control.placeCompetingBid(l.id, 9000);
    expect(t.sb.control.balance(carolId)).toEqual(start);
    const txs = parse(
      z.object({ transactions: z.array(Transaction) }),
      await t.api("GET", "/me/transactions?order=asc", { key: t.carol }),
    ).transactions;
    expect(txs.map((x) => x.type)).toEqual(["deposit", "bid_posted", "bid_posted", "rollback"]);
    expect((await read(l.id)).price).toBe(6100);
  });

  it("refuses a ceiling the bidder cannot cover", async () => {
    const l = auction(1000);
    const res = await bid(t.alice, l.id, 10_000_000);
    expect(res.status).toBe(400);
    expect(parse(ErrorBodyStrict, res).message).toBe("insufficient balance");
  });

  it("settles when the clock passes expires_at: the winner pays the standing price and a trade is queued", async () => {
    const dave = t.sb.control.createUser({ name: "dave", balance: 10_000 });
    const l = auction(1500);
    await bid(dave.apiKey, l.id, 4000);
    t.sb.control.placeCompetingBid(l.id, 2500);
    expect(t.sb.control.balance(dave.platformId)).toEqual({ balance: 6000, pending: 4000 });
    t.sb.control.advanceClock(3_600_001);
    const after = await read(l.id);
    expect(after.state).toBe("sold");
    expect(after.price).toBe(2600);
    expect(t.sb.control.balance(dave.platformId)).toEqual({ balance: 10_000 - 2600, pending: 0 });
    const trades = parse(
      z.object({ trades: z.array(Trade) }),
      await t.api("GET", "/me/trades?role=buyer", { key: dave.apiKey }),
    );
    const tr = trades.trades.find((x) => x.contract_id === l.id);
    expect(tr?.state).toBe("queued");
    const bids = parse(z.array(Bid), await t.api("GET", `/listings/${l.id}/bids`));
    expect(bids[0]?.state).toBe("won");
    expect((await bid(t.alice, l.id, 9000)).status).toBe(400);
  });

  it("ends an auction without bids unsold, returning the asset to the seller", async () => {
    const assetId = t.sb.control.inventory(t.aliceId)[0] ?? "";
    const l = parse(
      Listing,
      await t.api("POST", "/listings", {
        key: t.alice,
        body: { asset_id: assetId, type: "auction", reserve_price: 500, duration_days: 1 },
      }),
    );
    t.sb.control.advanceClock(24 * 3_600_000 + 1);
    expect((await read(l.id)).state).toBe("delisted");
    expect(t.sb.control.inventory(t.aliceId)).toContain(assetId);
  });
});

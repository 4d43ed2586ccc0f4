// Account: the transactions ledger (filters, order, pages, never negative) and the watchlist.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Listing, Transaction } from "../../src/market/schemas.ts";
import { Page, parse, useSandbox } from "./helpers.ts";

// The sandbox writes ledger offsets as whole cents, as live: a looser form would fail here.
const SandboxTransaction = Transaction.extend({
  balance_offset: z.number().int(),
  pending_offset: z.number().int(),
});
const Txs = z.object({ transactions: z.array(SandboxTransaction), count: z.number().int() });

describe("transactions", () => {
  const t = useSandbox();

  it("pages the ledger from zero in both orders and filters by type", async () => {
    const l1 = t.sb.control.createListing({ price: 100 });
    const l2 = t.sb.control.createListing({ price: 200 });
    await t.api("POST", "/listings/buy", { key: t.alice, body: { contract_ids: [l1.id], total_price: 100 } });
    await t.api("POST", "/listings/buy", { key: t.alice, body: { contract_ids: [l2.id], total_price: 200 } });
    const desc = parse(Txs, await t.api("GET", "/me/transactions", { key: t.alice }));
    expect(desc.count).toBe(3);
    expect(desc.transactions.map((x) => x.type)).toEqual([
      "contract_purchased",
      "contract_purchased",
      "deposit",
    ]);
    expect(desc.transactions[0]?.details?.contract_id).toBe(l2.id);
    const asc = parse(Txs, await t.api("GET", "/me/transactions?order=asc&limit=1&page=1", { key: t.alice }));
    expect(asc.transactions.map((x) => x.details?.contract_id)).toEqual([l1.id]);
    expect(asc.count).toBe(3);
    const deposits = parse(Txs, await t.api("GET", "/me/transactions?type=deposit", { key: t.alice }));
    expect(deposits).toMatchObject({
      count: 1,
      transactions: [{ type: "deposit", balance_offset: 500_000 }],
    });
    expect((await t.api("GET", "/me/transactions?type=gift", { key: t.alice })).status).toBe(400);
    expect((await t.api("GET", "/me/transactions?order=up", { key: t.alice })).status).toBe(400);
  });

  it("never lets a balance go negative through buys, bids and offers", async () => {
    const user = t.sb.control.createUser({ name: "frugal", balance: 1000 });
    const l = t.sb.control.createListing({ price: 800 });
    const l2 = t.sb.control.createListing({ price: 300, max_offer_discount: 5000 });
    const a = t.sb.control.createListing({ type: "auction", price: 500 });
    expect(
      (
        await t.api("POST", "/listings/buy", {
          key: user.apiKey,
          body: { contract_ids: [l.id], total_price: 800 },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.api("POST", "/listings/buy", {
          key: user.apiKey,
          body: { contract_ids: [l2.id], total_price: 300 },
        })
      ).status,
    ).toBe(400);
    expect(
      (await t.api("POST", `/listings/${a.id}/bid`, { key: user.apiKey, body: { max_price: 500 } })).status,
    ).toBe(400);
    expect(
      (await t.api("POST", "/offers", { key: user.apiKey, body: { contract_id: l2.id, price: 250 } })).status,
    ).toBe(400);
    const txs = parse(
      Txs,
      await t.api("GET", "/me/transactions?order=asc", { key: user.apiKey }),
    ).transactions;
    let balance = 0;
    let pending = 0;
    for (const tx of txs) {
      balance += tx.balance_offset;
      pending += tx.pending_offset;
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(pending).toBeGreaterThanOrEqual(0);
    }
    expect(t.sb.control.balance(user.platformId)).toEqual({ balance, pending });
    expect(balance).toBe(200);
    for (const u of t.sb.control.users()) {
      expect(u.balance).toBeGreaterThanOrEqual(0);
      expect(u.pending).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("watchlist", () => {
  const t = useSandbox();

  it("adds, lists with a cursor (newest first, no duplicates), reflects is_watchlisted and watchers, and removes", async () => {
    const listings = t.sb.control.createListings(7);
    for (const l of listings) {
      expect((await t.api("POST", `/listings/${l.id}/watchlist`, { key: t.alice })).status).toBe(200);
    }
    await t.api("POST", `/listings/${listings[0]?.id}/watchlist`, { key: t.bob });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = parse(
        Page(Listing),
        await t.api("GET", `/me/watchlist?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { key: t.alice }),
      );
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((l) => l.id));
      expect(page.data.every((l) => l.is_watchlisted)).toBe(true);
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(listings.map((l) => l.id).reverse());

    const first = listings[0]?.id ?? "";
    const asAlice = parse(Listing, await t.api("GET", `/listings/${first}`, { key: t.alice }));
    expect(asAlice).toMatchObject({ is_watchlisted: true, watchers: 2, is_seller: false });
    const anonymous = parse(Listing, await t.api("GET", `/listings/${first}`));
    expect(anonymous.is_watchlisted).toBe(false);

    expect((await t.api("DELETE", `/listings/${first}/watchlist`, { key: t.alice })).status).toBe(200);
    const after = parse(Listing, await t.api("GET", `/listings/${first}`, { key: t.alice }));
    expect(after).toMatchObject({ is_watchlisted: false, watchers: 1 });
    expect((await t.api("POST", "/listings/1/watchlist", { key: t.alice })).status).toBe(404);
    expect((await t.api("POST", `/listings/${first}/watchlist`, { anonymous: true })).status).toBe(401);
  });

  it("marks the caller's own listings with is_seller", async () => {
    const own = t.sb.control.createListing({ sellerPlatformId: t.aliceId });
    expect(parse(Listing, await t.api("GET", `/listings/${own.id}`, { key: t.alice })).is_seller).toBe(true);
    expect(parse(Listing, await t.api("GET", `/listings/${own.id}`, { key: t.bob })).is_seller).toBe(false);
  });
});

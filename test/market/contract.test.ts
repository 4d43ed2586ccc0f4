// Contract tests: every client method against the sandbox marketplace, plus pagination to the end,
// error kinds and faults. If one fails, either the client or the sandbox left the spec.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarketApi, MarketClient } from "../../src/market/client.ts";
import { MarketError } from "../../src/market/errors.ts";
import { ROUTES } from "../../src/market/routes.ts";
import type { RouteName } from "../../src/market/routes.ts";
import { startSandbox } from "../../src/sandbox/index.ts";
import type { DemoUser, Sandbox } from "../../src/sandbox/index.ts";
import { rejectionOf, testClient } from "./support/client.ts";
import type { TestClient } from "./support/client.ts";

let sandbox: Sandbox;
let t: TestClient;
let client: MarketClient;
let alice: DemoUser;
let bob: DemoUser;
/** Alice sells, Bob buys; each test makes the data it reads. */
let asAlice: MarketApi;
let asBob: MarketApi;
/** Reads as the bot's operator does: the sandbox, like the live service, refuses keyless reads. */
let operator: MarketApi;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  t = testClient(sandbox.baseUrl, { timeoutMs: 2_000 });
  client = t.client;
  const [a, b] = sandbox.users;
  if (a === undefined || b === undefined) throw new Error("the sandbox needs two demo users");
  alice = a;
  bob = b;
  asAlice = client.forKey(alice.apiKey);
  asBob = client.forKey(bob.apiKey);
  operator = client.forKey(sandbox.operatorKey);
});

afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

async function marketError(promise: Promise<unknown>): Promise<MarketError> {
  const error = await rejectionOf(promise);
  if (!(error instanceof MarketError)) throw new Error(`expected a MarketError, got ${String(error)}`);
  return error;
}

/** One of Alice's inventory assets, listed through the API. */
async function aliceListing(price = 2_000, extra: { max_offer_discount?: number } = {}) {
  const assetId = sandbox.control.inventory(alice.platformId)[0];
  if (assetId === undefined) throw new Error("alice has no inventory left");
  return asAlice.createListing({ asset_id: assetId, price, ...extra });
}

/** Contract tests are registered per route so that a route without one is noticed (see the last test). */
const covered = new Set<RouteName>();
function contract(route: RouteName, behaviour: string, fn: () => Promise<void>): void {
  covered.add(route);
  it(`${route}: ${behaviour}`, fn);
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe("market data", () => {
  contract("searchListings", "a new listing is found by its seller and price range", async () => {
    const made = sandbox.control.createListing({ price: 4_321 });

    const page = await asBob.searchListings({
      user_id: made.seller.platform_id,
      min_price: 4_321,
      max_price: 4_321,
      sort_by: "most_recent",
    });

    expect(page.data.map((l) => l.id)).toContain(made.id);
    expect(page.data.every((l) => l.price === 4_321)).toBe(true);
  });

  it("searchListings: the stickers filter in the spec's id|slot form selects by sticker and slot", async () => {
    const made = sandbox.control.createListing({ stickers: [{ stickerId: 4242, slot: 2 }], price: 3_333 });

    const hit = await asBob.searchListings({
      stickers: [{ id: 4242, slot: 2 }],
      max_price: 3_333,
      min_price: 3_333,
    });
    const miss = await asBob.searchListings({
      stickers: [{ id: 4242, slot: 1 }],
      max_price: 3_333,
      min_price: 3_333,
    });

    expect(hit.data.map((l) => l.id)).toContain(made.id);
    expect(miss.data.map((l) => l.id)).not.toContain(made.id);
  });

  contract("getListing", "a listing reads back with its item", async () => {
    const made = sandbox.control.createListing({ price: 1_500, float_value: 0.25 });

    const listing = await operator.getListing(made.id);

    expect(listing).toMatchObject({ id: made.id, price: 1_500, state: "listed", type: "buy_now" });
    expect(listing.item.float_value).toBe(0.25);
  });

  contract("getListingBids", "a competing bid shows up, most recent first", async () => {
    const auction = sandbox.control.createListing({ type: "auction", price: 1_000, reserve_price: 1_000 });
    sandbox.control.placeCompetingBid(auction.id, 1_200);

    const bids = await operator.getListingBids(auction.id);

    expect(bids.length).toBeGreaterThanOrEqual(1);
    expect(bids[0]?.contract_id ?? auction.id).toBe(auction.id);
  });

  contract("getSimilarListings", "answers comparable listings", async () => {
    const made = sandbox.control.createListing();

    const similar = await operator.getSimilarListings(made.id);

    expect(Array.isArray(similar)).toBe(true);
    expect(similar.every((l) => l.id !== made.id)).toBe(true);
  });

  contract("getHistoryGraph", "daily points for a sold item name", async () => {
    const made = sandbox.control.createListing();
    sandbox.control.sellToBuyer(made.id);

    const points = await operator.getHistoryGraph(made.item.market_hash_name);

    expect(points.length).toBeGreaterThan(0);
    expect(points.every((p) => p.count > 0 && p.avg_price > 0)).toBe(true);
  });

  contract("getHistorySales", "the sale just made is among the recent sales", async () => {
    const made = sandbox.control.createListing();
    sandbox.control.sellToBuyer(made.id);

    const sales = await operator.getHistorySales(made.item.market_hash_name);

    // Entries are { price, sold_at, item, reference } live: recognised by the item's asset.
    expect(sales.map((s) => s.item?.asset_id)).toContain(made.item.asset_id);
  });

  contract("getStall", "a public stall lists the seller's listings with totals", async () => {
    const made = sandbox.control.createListing({ sellerPlatformId: alice.platformId, price: 777 });

    const stall = await asBob.getStall(alice.platformId, { limit: 40 });

    expect(stall.data.map((l) => l.id)).toContain(made.id);
    expect(stall.total_count).toBeGreaterThanOrEqual(1);
    expect(stall.total_price).toBeGreaterThanOrEqual(777);
  });
});

describe("selling", () => {
  contract("createListing", "an inventory asset becomes a listing of ours", async () => {
    const listing = await aliceListing(2_500);

    expect(listing).toMatchObject({ price: 2_500, type: "buy_now", state: "listed", is_seller: true });
  });

  contract("updateListing", "the price changes", async () => {
    const listing = await aliceListing();

    const updated = await asAlice.updateListing(listing.id, { price: 1_999, description: "repriced" });

    expect(updated.price).toBe(1_999);
    expect((await operator.getListing(listing.id)).price).toBe(1_999);
  });

  contract("deleteListing", "the listing is no longer listed", async () => {
    const listing = await aliceListing();

    await asAlice.deleteListing(listing.id);

    expect((await operator.getListing(listing.id)).state).toBe("delisted");
  });

  /** Two of Alice's assets, listed in one bulk call. */
  async function bulkListed() {
    const assets = sandbox.control.inventory(alice.platformId).slice(0, 2);
    expect(assets).toHaveLength(2);
    return asAlice.bulkList(assets.map((asset_id) => ({ asset_id, price: 3_000 })));
  }

  contract("bulkList", "several assets are listed at once", async () => {
    const listed = await bulkListed();

    expect(listed.map((l) => [l.price, l.state])).toEqual([
      [3_000, "listed"],
      [3_000, "listed"],
    ]);
  });

  contract("bulkModify", "several listings are repriced at once", async () => {
    const listed = await bulkListed();

    const modified = await asAlice.bulkModify(listed.map((l) => ({ contract_id: l.id, price: 2_900 })));

    expect(modified.map((l) => [l.id, l.price])).toEqual(listed.map((l) => [l.id, 2_900]));
  });

  contract("bulkDelist", "several listings are removed at once", async () => {
    const listed = await bulkListed();

    await asAlice.bulkDelist(listed.map((l) => l.id));

    const states = await Promise.all(listed.map(async (l) => (await operator.getListing(l.id)).state));
    expect(states).toEqual(["delisted", "delisted"]);
  });
});

describe("buying", () => {
  contract("buyListings", "the listing is sold and a trade waits on the seller", async () => {
    const made = sandbox.control.createListing({ price: 1_100 });

    const trades = await asBob.buyListings({ contract_ids: [made.id], total_price: 1_100 });

    expect((await operator.getListing(made.id)).state).toBe("sold");
    // The live answer is a message: no trades in it; the trade is the buyer's in GET /me/trades.
    expect(trades).toEqual([]);
    const mine = await asBob.getMyTrades({ role: "buyer", limit: 50 });
    expect(mine.trades.find((tr) => tr.contract_id === made.id)?.state).toBe("queued");
  });

  contract("placeBid", "a bid with a ceiling is placed on an auction", async () => {
    const auction = sandbox.control.createListing({ type: "auction", price: 1_000, reserve_price: 1_000 });

    const receipt = await asBob.placeBid(auction.id, 1_500);

    // The live reply is a receipt: the ceiling, no price; the standing price is on the listing.
    expect(receipt.max_price).toBe(1_500);
    expect(receipt.price).toBeUndefined();
    const bids = await operator.getListingBids(auction.id);
    expect(bids.map((b) => b.id)).toContain(receipt.id);
    expect(bids[0]?.price).toBe(1_000);
  });

  contract(
    "getListingBuyOrders",
    "a matching order is aggregated, and a repeat is served by ETag",
    async () => {
      const made = sandbox.control.createListing({ price: 5_000 });
      await asBob.createBuyOrder({
        market_hash_name: made.item.market_hash_name,
        max_price: 4_000,
        quantity: 1,
      });

      const first = await operator.getListingBuyOrders(made.id, { limit: 10 });
      const eventsBefore = t.events.length;
      const second = await operator.getListingBuyOrders(made.id, { limit: 10 });

      expect(first.some((a) => a.price === 4_000 && a.market_hash_name === made.item.market_hash_name)).toBe(
        true,
      );
      expect(second).toEqual(first);
      expect(t.events.slice(eventsBefore).map((e) => e.status)).toEqual([304]);
    },
  );

  contract("getBuyOrdersForItem", "orders for an inspect link and its signature", async () => {
    const made = sandbox.control.createListing({ price: 5_000 });
    await asBob.createBuyOrder({
      market_hash_name: made.item.market_hash_name,
      max_price: 3_500,
      quantity: 2,
    });
    const { inspect_link, gs_sig } = made.item;

    const orders = await operator.getBuyOrdersForItem({
      url: inspect_link,
      market_hash_name: made.item.market_hash_name,
      sig: gs_sig,
      limit: 3,
    });

    expect(orders.some((o) => o.price === 3_500)).toBe(true);
  });

  const orderFor = (name: string) =>
    asBob.createBuyOrder({
      market_hash_name: name,
      max_price: 1_000,
      quantity: 2,
      hybrid_properties: { max_float: 0.2, paint_seeds: [5] },
    });

  contract("createBuyOrder", "an order with constraints is opened", async () => {
    const created = await orderFor("Created Order Item (Field-Tested)");

    expect(created).toMatchObject({ price: 1_000, qty: 2 });
    expect(created.hybrid_properties).toMatchObject({ max_float: 0.2, paint_seeds: [5] });
  });

  contract("updateBuyOrder", "the update is absolute: constraints not sent again are cleared", async () => {
    const created = await orderFor("Updated Order Item (Field-Tested)");

    const updated = await asBob.updateBuyOrder(created.id, {
      max_price: 1_200,
      quantity: 3,
      constraints: { max_float: 0.15 },
    });

    expect(updated).toMatchObject({ id: created.id, price: 1_200, qty: 3 });
    expect(updated.hybrid_properties?.max_float).toBe(0.15);
    expect(updated.hybrid_properties?.paint_seeds ?? undefined).toBeUndefined();
  });

  contract("deleteBuyOrder", "the order is gone from our list", async () => {
    const created = await orderFor("Deleted Order Item (Field-Tested)");

    await asBob.deleteBuyOrder(created.id);

    const mine = await collect(asBob.iterateMyBuyOrders());
    expect(mine.map((o) => o.id)).not.toContain(created.id);
  });

  contract("getSimilarBuyOrders", "orders for the same name come back aggregated", async () => {
    const name = "Similar Order Item (Minimal Wear)";
    await asBob.createBuyOrder({ market_hash_name: name, max_price: 800, quantity: 1 });

    const similar = await asAlice.getSimilarBuyOrders({ market_hash_name: name }, { limit: 10 });

    expect(similar.some((a) => a.price === 800 && a.market_hash_name === name)).toBe(true);
  });

  contract("getMyBuyOrders", "our orders with a count", async () => {
    const created = await asBob.createBuyOrder({
      market_hash_name: "Mine Order Item (Well-Worn)",
      max_price: 600,
      quantity: 1,
    });

    const page = await asBob.getMyBuyOrders({ page: 0, limit: 50, order: "desc" });

    expect(page.orders.map((o) => o.id)).toContain(created.id);
    expect(page.count).toBeGreaterThanOrEqual(1);
  });
});

describe("offers", () => {
  contract("createOffer", "an offer within the allowed discount is made", async () => {
    const made = sandbox.control.createListing({ price: 10_000, max_offer_discount: 2_000 });

    const offer = await asBob.createOffer({ contract_id: made.id, price: 9_000 });

    expect(offer).toMatchObject({ contract_id: made.id, price: 9_000 });
  });

  /** A buyer's offer on one of Alice's listings. */
  async function incomingOffer() {
    const listing = await aliceListing(10_000, { max_offer_discount: 2_000 });
    return { listing, offer: sandbox.control.makeOffer(listing.id, 8_500) };
  }

  contract("counterOffer", "the seller answers a buyer's offer with a new price", async () => {
    const { listing, offer } = await incomingOffer();

    const counter = await asAlice.counterOffer(offer.id, 9_500);

    expect(counter).toMatchObject({ contract_id: listing.id, price: 9_500 });
  });

  contract("getOffersTimeline", "offers on our listings are in our timeline", async () => {
    const { offer } = await incomingOffer();

    const timeline = await asAlice.getOffersTimeline({ page: 0, limit: 40 });

    expect(timeline.offers.map((o) => o.id)).toContain(offer.id);
  });
});

describe("trades", () => {
  /** Bob buys a fresh listing; the purchase opens one trade. */
  async function bobsPurchase(price: number) {
    const made = sandbox.control.createListing({ price });
    await asBob.buyListings({ contract_ids: [made.id], total_price: price });
    const mine = await asBob.getMyTrades({ role: "buyer", limit: 50 });
    const trade = mine.trades.find((tr) => tr.contract_id === made.id);
    if (trade === undefined) throw new Error("the purchase opened no trade of bob's");
    return { made, trade };
  }

  contract("getMyTrades", "a purchase appears among the buyer's trades", async () => {
    const { trade } = await bobsPurchase(1_300);

    const page = await asBob.getMyTrades({ role: "buyer", limit: 50 });

    expect(page.trades.map((tr) => tr.id)).toContain(trade.id);
    expect(page.count).toBeGreaterThanOrEqual(1);
  });

  contract("getTrade", "one trade reads back with its listing", async () => {
    const { made, trade } = await bobsPurchase(1_350);

    const one = await asBob.getTrade(trade.id);

    expect(one).toMatchObject({ id: trade.id, contract_id: made.id });
  });

  contract("acceptTrade", "a queued sale moves on once the seller accepts", async () => {
    const sale = sandbox.control.createSaleForSeller(alice.platformId);

    await asAlice.acceptTrade(sale.id);

    expect((await asAlice.getTrade(sale.id)).state).toBe("pending");
  });

  contract("bulkAcceptTrades", "several queued sales are accepted and returned", async () => {
    const sales = [
      sandbox.control.createSaleForSeller(alice.platformId),
      sandbox.control.createSaleForSeller(alice.platformId),
    ];

    const accepted = await asAlice.bulkAcceptTrades(sales.map((s) => s.id));

    expect(accepted.map((tr) => tr.id).sort()).toEqual(sales.map((s) => s.id).sort());
    expect(accepted.every((tr) => tr.state === "pending")).toBe(true);
  });

  contract("bulkCancelTrades", "a queued sale is cancelled", async () => {
    const sale = sandbox.control.createSaleForSeller(alice.platformId);

    const cancelled = await asAlice.bulkCancelTrades([sale.id]);

    expect(cancelled.map((tr) => [tr.id, tr.state])).toEqual([[sale.id, "cancelled"]]);
  });
});

describe("account", () => {
  contract("getTransactions", "a purchase is in the buyer's ledger", async () => {
    const made = sandbox.control.createListing({ price: 1_700 });
    await asBob.buyListings({ contract_ids: [made.id], total_price: 1_700 });

    const page = await asBob.getTransactions({ type: "contract_purchased", order: "desc", limit: 50 });

    expect(page.transactions.length).toBeGreaterThan(0);
    expect(page.transactions.every((tx) => tx.type === "contract_purchased")).toBe(true);
    expect(page.count).toBeGreaterThanOrEqual(page.transactions.length);
  });

  contract("addToWatchlist", "the listing says it is watched", async () => {
    const made = sandbox.control.createListing();

    await asBob.addToWatchlist(made.id);

    expect((await asBob.getListing(made.id)).is_watchlisted).toBe(true);
  });

  contract("getWatchlist", "a watched listing is on the first page", async () => {
    const made = sandbox.control.createListing();
    await asBob.addToWatchlist(made.id);

    const watched = await asBob.getWatchlist({ limit: 40 });

    expect(watched.data.map((l) => l.id)).toContain(made.id);
  });

  contract("removeFromWatchlist", "the listing is no longer watched", async () => {
    const made = sandbox.control.createListing();
    await asBob.addToWatchlist(made.id);

    await asBob.removeFromWatchlist(made.id);

    const after = await collect(asBob.iterateWatchlist());
    expect(after.map((l) => l.id)).not.toContain(made.id);
    expect((await asBob.getListing(made.id)).is_watchlisted).toBe(false);
  });

  contract("getMe", "the key's owner and balance", async () => {
    const me = await asBob.getMe();

    expect(me.user.platform_id).toBe(bob.platformId);
    expect(typeof me.balance).toBe("number");
  });
});

describe("pagination to the end", () => {
  it("GIVEN a seller with 7 listings WHEN iterating search and stall in pages of 3 THEN all 7 come once", async () => {
    const seller = sandbox.control.createUser({ name: "pager" });
    const name = `Pager Blade | Seven Pages ${seller.platformId} (Pristine)`;
    const made = sandbox.control
      .createListings(7, { sellerPlatformId: seller.platformId, market_hash_name: name })
      .map((l) => l.id);

    // By item name: the live service ignores user_id.
    const searched = await collect(asBob.iterateListings({ market_hash_name: name, limit: 3 }));
    const stalled = await collect(asBob.iterateStall(seller.platformId, { limit: 3 }));

    expect(searched.map((l) => l.id).sort()).toEqual([...made].sort());
    expect(stalled.map((l) => l.id).sort()).toEqual([...made].sort());
  });

  it("GIVEN a buyer with 5 purchases WHEN iterating trades and transactions in pages of 2 THEN all come", async () => {
    const buyer = sandbox.control.createUser({ name: "pagebuyer", balance: 100_000 });
    const api = client.forKey(buyer.apiKey);
    for (let i = 0; i < 5; i += 1) {
      const made = sandbox.control.createListing({ price: 500 });
      await api.buyListings({ contract_ids: [made.id], total_price: 500 });
    }

    const trades = await collect(api.iterateMyTrades({ role: "buyer", limit: 2 }));
    const purchases = await collect(api.iterateTransactions({ type: "contract_purchased", limit: 2 }));

    expect(new Set(trades.map((tr) => tr.id)).size).toBe(5);
    expect(purchases).toHaveLength(5);
  });

  it("GIVEN 5 watched listings WHEN iterating the watchlist in pages of 2 THEN all 5 come once", async () => {
    const watcher = sandbox.control.createUser({ name: "watcher" });
    const api = client.forKey(watcher.apiKey);
    const made = sandbox.control.createListings(5, {}).map((l) => l.id);
    for (const id of made) await api.addToWatchlist(id);

    const watched = await collect(api.iterateWatchlist({ limit: 2 }));

    expect(watched.map((l) => l.id).sort()).toEqual([...made].sort());
  });

  it("GIVEN 3 buy orders WHEN iterating them and the offers timeline in pages of 2 THEN all come", async () => {
    const trader = sandbox.control.createUser({ name: "orders", balance: 100_000 });
    const api = client.forKey(trader.apiKey);
    for (let i = 0; i < 3; i += 1) {
      await api.createBuyOrder({
        market_hash_name: `Paged Order ${i} (Factory New)`,
        max_price: 100,
        quantity: 1,
      });
      const made = sandbox.control.createListing({ price: 10_000, max_offer_discount: 2_000 });
      await api.createOffer({ contract_id: made.id, price: 9_000 });
    }

    const orders = await collect(api.iterateMyBuyOrders({ limit: 2 }));
    const offers = await collect(api.iterateOffersTimeline({ limit: 2 }));

    expect(orders).toHaveLength(3);
    expect(offers).toHaveLength(3);
  });
});

describe("error kinds", () => {
  it("GIVEN an unknown key WHEN reading trades THEN unauthorized", async () => {
    const error = await marketError(client.forKey("not-a-real-key").getMyTrades());

    expect(error.kind).toBe("unauthorized");
    expect(error.status).toBe(401);
  });

  it("GIVEN a revoked key WHEN reading the account THEN unauthorized", async () => {
    const user = sandbox.control.createUser({ name: "revoked" });
    sandbox.control.revokeKey(user.apiKey);

    const error = await marketError(client.forKey(user.apiKey).getMe());

    expect(error.kind).toBe("unauthorized");
  });

  it("GIVEN a private stall WHEN another user reads it THEN forbidden", async () => {
    const privateSeller = sandbox.control.users().find((u) => !u.stallPublic && u.kind === "seller");
    expect(privateSeller).toBeDefined();

    const error = await marketError(asBob.getStall(privateSeller?.platformId ?? ""));

    expect(error.kind).toBe("forbidden");
  });

  it("GIVEN an id nobody has WHEN reading the listing THEN not_found", async () => {
    const error = await marketError(operator.getListing("123"));

    expect(error.kind).toBe("not_found");
  });

  it("GIVEN a seller with offers disabled WHEN making an offer THEN offers_disabled", async () => {
    const made = sandbox.control.createListing({ price: 10_000, max_offer_discount: 0 });

    const error = await marketError(asBob.createOffer({ contract_id: made.id, price: 9_000 }));

    expect(error.kind).toBe("offers_disabled");
    expect(error.code).toBe(4);
  });

  it("GIVEN a price that changed WHEN buying at the old total THEN stale_purchase and nothing is bought", async () => {
    const listing = await aliceListing(2_000);
    await asAlice.updateListing(listing.id, { price: 2_100 });

    const error = await marketError(asBob.buyListings({ contract_ids: [listing.id], total_price: 2_000 }));

    expect(error.kind).toBe("stale_purchase");
    expect(error.mayHaveSucceeded).toBe(false);
    expect((await operator.getListing(listing.id)).state).toBe("listed");
  });

  it("GIVEN a body the service refuses WHEN listing an asset we do not own THEN bad_request with its message", async () => {
    const error = await marketError(asAlice.createListing({ asset_id: "999999999", price: 500 }));

    expect(error.kind).toBe("bad_request");
    expect(error.serviceMessage).toBeTruthy();
  });
});

describe("faults", () => {
  it("GIVEN one 503 WHEN reading a listing THEN the read is retried and succeeds", async () => {
    const made = sandbox.control.createListing();
    sandbox.control.injectFault({
      method: "GET",
      path: `/listings/${made.id}`,
      kind: "status",
      status: 503,
      times: 1,
    });

    const listing = await operator.getListing(made.id);

    expect(listing.id).toBe(made.id);
  });

  it("GIVEN a hanging purchase WHEN buying THEN timeout that may have succeeded, sent once", async () => {
    const made = sandbox.control.createListing({ price: 900 });
    sandbox.control.resetStats();
    sandbox.control.injectFault({ method: "POST", path: "/listings/buy", kind: "hang", times: 1 });
    const fast = testClient(sandbox.baseUrl, { timeoutMs: 300 }).client;
    try {
      const error = await marketError(
        fast.forKey(bob.apiKey).buyListings({ contract_ids: [made.id], total_price: 900 }),
      );

      expect(error.kind).toBe("timeout");
      expect(error.mayHaveSucceeded).toBe(true);
      expect(JSON.stringify(sandbox.control.stats())).toContain("POST /listings/buy");
    } finally {
      await fast.close();
      sandbox.control.clearFaults();
    }
  });

  it("GIVEN a malformed answer WHEN searching THEN invalid_response", async () => {
    sandbox.control.injectFault({ method: "GET", path: "/listings", kind: "malformed", times: 1 });

    const error = await marketError(operator.searchListings({ limit: 1 }));

    expect(error.kind).toBe("invalid_response");
  });

  it("GIVEN an injected 429 WHEN reading THEN the client waits out Retry-After and succeeds", async () => {
    const made = sandbox.control.createListing();
    sandbox.control.injectFault({
      method: "GET",
      path: `/listings/${made.id}/similar`,
      kind: "rate_limit",
      retryAfterSeconds: 1,
      times: 1,
    });
    const before = t.events.length;

    await operator.getSimilarListings(made.id);

    const statuses = t.events.slice(before).map((e) => e.status);
    expect(statuses).toEqual([429, 200]);
    expect(t.events.at(-1)?.rateLimitWaitMs).toBeGreaterThanOrEqual(900);
  });
});

describe("rate limits", () => {
  it("GIVEN a budget of 2 per second WHEN reading 5 times THEN the client paces itself and never sees a 429", async () => {
    const tight = await startSandbox({ port: 0, rateLimit: { limit: 2, windowMs: 1_000 } });
    const paced = testClient(tight.baseUrl);
    try {
      const api = paced.client.forKey(tight.users[0]?.apiKey);
      for (let i = 0; i < 5; i += 1) await api.searchListings({ limit: 1 });

      expect(paced.events.map((e) => e.status)).toEqual([200, 200, 200, 200, 200]);
      expect(paced.events.some((e) => e.rateLimitWaitMs > 0)).toBe(true);
      expect(paced.client.rateLimitState(tight.users[0]?.apiKey, "GET /listings")?.limit).toBe(2);
    } finally {
      await paced.client.close();
      await tight.close();
    }
  });
});

describe("coverage", () => {
  it("GIVEN the route table WHEN contract tests are registered THEN every route has one", () => {
    expect([...covered].sort()).toEqual(Object.keys(ROUTES).sort());
    expect(covered.size).toBe(35);
  });
});

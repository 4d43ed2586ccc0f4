// Seeds a reproducible world: demo users with keys and inventory, sellers, listings, auctions with
// bids, reference prices, sales history and buy orders.
import { canBeSouvenir, canBeStatcounter, catalogItems, EXAMPLE_ITEM, FINISHES } from "./catalog.ts";
import { makeAsset, makeUser, modelPrice } from "./factory.ts";
import { createListing, placeBid } from "./listings.ts";
import { createBuyOrder } from "./buyOrders.ts";
import { HOUR, minNextBid, type Store, type UserRec } from "./state/index.ts";

export interface DemoUser {
  name: string;
  platformId: string;
  apiKey: string;
}

/** Fixed, well-known demo identities: the same on every start so docs and playgrounds can cite them. */
export const DEMO_USERS: readonly DemoUser[] = [
  { name: "alice", platformId: "42420000000000101", apiKey: "sandbox-alice-key-00000000000001" },
  { name: "bob", platformId: "42420000000000102", apiKey: "sandbox-bob-key-000000000000002" },
  { name: "carol", platformId: "42420000000000103", apiKey: "sandbox-carol-key-00000000000003" },
];

export const DEMO_BALANCE = 500_000;

/**
 * Two copies of the README's example item each demo user always owns, under fixed ids, so the
 * README's `/sell list asset:31337` and its auction example (`asset:31347`) work as typed for
 * alice; bob and carol have the next ids. Other asset ids depend on the seed.
 */
export const DEMO_ASSET_IDS: Readonly<Record<string, readonly string[]>> = {
  alice: ["31337", "31347"],
  bob: ["31338", "31348"],
  carol: ["31339", "31349"],
};

/**
 * The bot operator's key (MARKET_API_KEY) in the sandbox: like the live service, the sandbox
 * refuses keyless reads, so the shared feed reads with this key. It owns nothing.
 */
export const SANDBOX_OPERATOR_KEY = "sandbox-operator-key-0000000000001";

const SELLERS = [
  { name: "mossy_trader", stallPublic: true, autoAccept: true },
  { name: "quartzfox", stallPublic: false, autoAccept: true },
  { name: "lanternkeeper", stallPublic: true, autoAccept: true },
  { name: "driftwood_co", stallPublic: false, autoAccept: true },
  { name: "copperjay", stallPublic: true, autoAccept: true },
  // Never answers: trades waiting on this seller expire, as they do live.
  { name: "sleepy_owl", stallPublic: true, autoAccept: false },
];

/** Seeded sellers accept trades this long after a sale (sandbox time). */
export const SELLER_ACCEPT_DELAY_MS = 5 * 60_000;
const RICH = 1_000_000_000;

export interface World {
  demo: UserRec[];
  sellers: UserRec[];
  /** Background buyer: buys demo users' listings (control sellToBuyer) and history sales. */
  marketBuyer: UserRec;
}

export function seedWorld(store: Store): World {
  const rng = store.rng;
  const now = store.now();
  const demo = DEMO_USERS.map((d) =>
    makeUser(store, { ...d, kind: "demo", balance: DEMO_BALANCE, autoAcceptMs: undefined }),
  );
  const sellers = SELLERS.map((s, i) =>
    makeUser(store, {
      name: s.name,
      platformId: String(42420000000000201n + BigInt(i)),
      apiKey: `sandbox-seller-${s.name}-key`.padEnd(32, "0"),
      kind: "seller",
      balance: 100_000,
      stallPublic: s.stallPublic,
      autoAcceptMs: s.autoAccept ? SELLER_ACCEPT_DELAY_MS : undefined,
    }),
  );
  const marketBuyer = makeUser(store, {
    name: "market_buyer",
    platformId: "42420000000000301",
    apiKey: "sandbox-synthetic-market-buyer-key",
    kind: "synthetic",
    balance: RICH,
  });
  const bidders = [1, 2, 3].map((i) =>
    makeUser(store, {
      name: `rival_bidder_${i}`,
      platformId: String(42420000000000310n + BigInt(i)),
      apiKey: `sandbox-synthetic-bidder-${i}-key`.padEnd(32, "0"),
      kind: "synthetic",
      balance: RICH,
    }),
  );

  // Reference prices for most item names; about one in eight has none, as live. Souvenir names
  // are left out here: their listings price from the catalog model.
  const names = catalogItems()
    .filter((c) => c.variant !== "souvenir")
    .map((c) => ({ name: c.name, finish: c.finish, price: c.basePrice }));
  for (const n of names) {
    if (rng.chance(0.12)) continue;
    const predicted = Math.max(3, Math.round(n.price * rng.float(0.9, 1.1)));
    store.references.set(n.name, {
      basePrice: Math.max(3, Math.round(predicted * rng.float(0.95, 1.05))),
      predictedPrice: predicted,
      quantity: rng.int(2, 400),
      lastUpdated: now - rng.int(1, 12) * HOUR,
    });
  }

  // Sales history over the last 30 days, created oldest first so ids follow time.
  const sales: { at: number; finish: (typeof FINISHES)[number]; statcounter: boolean }[] = [];
  for (const finish of FINISHES) {
    const count = rng.int(10, 30);
    for (let i = 0; i < count; i++) {
      sales.push({
        at: now - rng.int(1, 30 * 24) * HOUR,
        finish,
        statcounter: canBeStatcounter(finish) && rng.chance(0.15),
      });
    }
  }
  sales.sort((a, b) => a.at - b.at);
  for (const s of sales) {
    const seller = rng.pick(sellers);
    const asset = makeAsset(store, seller, { finish: s.finish, statcounter: s.statcounter, decorate: true });
    const listedAt = s.at - rng.int(1, 48) * HOUR;
    const l = createListing(
      store,
      seller,
      {
        assetId: asset.assetId,
        type: "buy_now",
        price: Math.max(3, Math.round(modelPrice(store, asset.item) * rng.float(0.85, 1.1))),
        reservePrice: undefined,
        durationMs: undefined,
        durationDays: undefined,
        maxOfferDiscount: undefined,
        description: undefined,
        private: undefined,
      },
      listedAt,
    );
    // History sales need no trade: settle them directly.
    l.state = "sold";
    l.soldAt = s.at;
    l.buyerId = marketBuyer.platformId;
    store.deactivate(l);
    store.recordSale(l);
  }
  for (const list of store.salesByName.values()) list.sort((a, b) => (a.soldAt ?? 0) - (b.soldAt ?? 0));

  // Active listings, oldest first so ids and most_recent agree.
  const times = Array.from({ length: 320 }, () => now - rng.int(1, 3 * 24 * 60) * 60_000).sort(
    (a, b) => a - b,
  );
  for (const at of times) {
    const seller = rng.pick(sellers);
    const finish = rng.pick(FINISHES);
    const statcounter = canBeStatcounter(finish) && rng.chance(0.12);
    const souvenir = !statcounter && canBeSouvenir(finish) && rng.chance(0.3);
    const asset = makeAsset(store, seller, { finish, statcounter, souvenir, decorate: true });
    const auction = rng.chance(0.15);
    const price = Math.max(3, Math.round(modelPrice(store, asset.item) * rng.float(0.75, 1.2)));
    const l = createListing(
      store,
      seller,
      {
        assetId: asset.assetId,
        type: auction ? "auction" : "buy_now",
        price,
        reservePrice: auction ? Math.max(3, Math.round(price * 0.6)) : undefined,
        durationMs: auction ? now + rng.int(10, 5 * 24 * 60) * 60_000 - at : undefined,
        durationDays: undefined,
        maxOfferDiscount: auction ? 0 : rng.chance(0.15) ? 0 : rng.pick([500, 1000, 1500, 2000]),
        description: rng.chance(0.2) ? "Fast trades, no lowballs please." : undefined,
        private: undefined,
      },
      at,
    );
    if (l.auction && rng.chance(0.6)) {
      let t = at + 10 * 60_000;
      for (let b = rng.int(1, 4); b > 0 && t < now; b--, t += rng.int(5, 120) * 60_000) {
        const bidder = rng.pick(bidders.filter((x) => x.platformId !== l.auction?.leader?.userId));
        const floor = minNextBid(l.auction, l.price);
        placeBid(store, bidder, l.id, Math.round(floor * rng.float(1.05, 1.6)), Math.min(t, now));
      }
    }
    if (rng.chance(0.1)) l.watchers.add(marketBuyer.platformId);
  }

  // Inventory the demo users and sellers can list.
  for (const u of [...demo, ...sellers]) {
    for (let i = 0; i < (u.kind === "demo" ? 8 : 3); i++) makeAsset(store, u, { decorate: true });
  }

  // Standing buy orders from the background buyer so aggregates have data.
  for (let i = 0; i < 40; i++) {
    const n = rng.pick(names);
    createBuyOrder(
      store,
      marketBuyer,
      {
        marketHashName: n.name,
        maxPrice: Math.max(3, Math.round(n.price * rng.float(0.6, 0.95))),
        quantity: rng.int(1, 5),
        hybrid: rng.chance(0.3) ? { max_float: Math.round(rng.float(0.05, 0.5) * 100) / 100 } : {},
      },
      now - rng.int(1, 72) * HOUR,
    );
  }
  seedExample(store, demo, sellers, now);

  // Last, and without the seeded RNG, so the world stays the same for the same seed.
  const operator: UserRec = {
    platformId: "42420000000000401",
    name: "operator",
    apiKey: SANDBOX_OPERATOR_KEY,
    revoked: false,
    kind: "synthetic",
    balance: 0,
    pending: 0,
    stallPublic: false,
    autoAcceptMs: undefined,
    obfuscatedId: "0000000000operator",
    avatar: "https://avatars.invalid/42420000000000401.png",
    online: true,
    away: false,
    totalTrades: 0,
    verifiedTrades: 0,
    failedTrades: 0,
    inventory: new Map(),
    watchlist: new Map(),
  };
  store.addUser(operator);
  return { demo, sellers, marketBuyer };
}

/**
 * The README's example item on the market (buy-now listings, one under the examples' $120
 * ceiling) and in each demo user's inventory under a well-known asset id. Created after the rest,
 * at the seed's "now", so listing ids still follow creation time.
 */
function seedExample(store: Store, demo: readonly UserRec[], sellers: readonly UserRec[], now: number): void {
  const prices = [9840, 11500, 12900];
  prices.forEach((price, i) => {
    const seller = sellers[i % sellers.length] as UserRec;
    const asset = makeAsset(store, seller, { marketHashName: EXAMPLE_ITEM, floatValue: 0.0214 + i * 0.011 });
    createListing(
      store,
      seller,
      {
        assetId: asset.assetId,
        type: "buy_now",
        price,
        reservePrice: undefined,
        durationMs: undefined,
        durationDays: undefined,
        maxOfferDiscount: 1000,
        description: undefined,
        private: undefined,
      },
      now,
    );
  });
  for (const user of demo) {
    (DEMO_ASSET_IDS[user.name] ?? []).forEach((assetId, i) =>
      makeAsset(store, user, { marketHashName: EXAMPLE_ITEM, floatValue: 0.0412 + i * 0.0101 }, assetId),
    );
  }
}

// Market data endpoints of the sandbox: envelopes, limits, cursors, filters, sorts and schema fidelity.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Bid, HistoryPoint, Item, Listing } from "../../src/market/schemas.ts";
import { SANDBOX_OPERATOR_KEY, startSandbox } from "../../src/sandbox/index.ts";
import { call, ErrorBodyStrict, Page, parse, useSandbox } from "./helpers.ts";

const ListingPage = Page(Listing);

describe("GET /listings", () => {
  const t = useSandbox();

  it("answers the spec envelope with 50 listings by default, all parsing with the Listing schema", async () => {
    const a = await t.api("GET", "/listings");
    expect(a.status).toBe(200);
    expect(a.headers["content-type"]).toMatch(/application\/json/);
    const page = parse(ListingPage, a);
    expect(page.data).toHaveLength(50);
    expect(page.cursor).toEqual(expect.any(String));
    expect(page.data.every((l) => l.state === "listed")).toBe(true);
    expect(page.data.every((l) => /^\d+$/.test(l.id) && BigInt(l.id) > 2n ** 53n)).toBe(true);
  });

  it("refuses limit 51 and limit 0 with a 400 JSON error body, and accepts 1 and 50", async () => {
    for (const limit of [51, 0]) {
      const a = await t.api("GET", `/listings?limit=${limit}`);
      expect(a.status).toBe(400);
      expect(parse(ErrorBodyStrict, a).message).toMatch(/limit/);
    }
    expect(parse(ListingPage, await t.api("GET", "/listings?limit=1")).data).toHaveLength(1);
    expect(parse(ListingPage, await t.api("GET", "/listings?limit=50")).data).toHaveLength(50);
  });

  it("refuses an unknown sort, a bad category and a malformed cursor with 400", async () => {
    expect((await t.api("GET", "/listings?sort_by=cheapest")).status).toBe(400);
    expect((await t.api("GET", "/listings?category=4")).status).toBe(400);
    expect((await t.api("GET", "/listings?cursor=not-a-cursor")).status).toBe(400);
    expect((await t.api("GET", "/listings?min_price=-1")).status).toBe(400);
  });

  it.each(["most_recent", "lowest_price", "best_deal", "highest_float", "expires_soon", "num_bids"])(
    "pages with the cursor to the end without duplicates or gaps (%s)",
    async (sort) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const q = `/listings?sort_by=${sort}&limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page = parse(ListingPage, await t.api("GET", q));
        seen.push(...page.data.map((l) => l.id));
        cursor = page.cursor;
        if (!cursor) break;
      }
      expect(cursor).toBeUndefined();
      expect(new Set(seen).size).toBe(seen.length);
      const all = parse(ListingPage, await t.api("GET", `/listings?sort_by=${sort}&limit=50`));
      expect(seen.slice(0, 50)).toEqual(all.data.map((l) => l.id));
      expect(seen.length).toBeGreaterThan(200);
    },
  );

  it("keeps most_recent pages stable while new listings arrive between requests", async () => {
    const first = parse(ListingPage, await t.api("GET", "/listings?sort_by=most_recent&limit=10"));
    t.sb.control.createListings(5);
    const second = parse(
      ListingPage,
      await t.api("GET", `/listings?sort_by=most_recent&limit=10&cursor=${first.cursor ?? ""}`),
    );
    const ids = [...first.data, ...second.data].map((l) => BigInt(l.id));
    expect(new Set(ids).size).toBe(20);
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
  });

  it("shows a listing created through control first in most_recent", async () => {
    const created = t.sb.control.createListing({
      price: 1234,
      market_hash_name: "Falcon Rifle | Ember Tide (Field Worn)",
    });
    const page = parse(ListingPage, await t.api("GET", "/listings?sort_by=most_recent&limit=1"));
    expect(page.data[0]?.id).toBe(created.id);
    expect(page.data[0]?.price).toBe(1234);
    expect(page.data[0]?.item.wear_name).toBe("Field Worn");
  });

  it("sorts by price both ways and by float", async () => {
    const low = parse(ListingPage, await t.api("GET", "/listings?sort_by=lowest_price")).data.map(
      (l) => l.price,
    );
    expect(low).toEqual([...low].sort((a, b) => a - b));
    const high = parse(ListingPage, await t.api("GET", "/listings?sort_by=highest_price")).data.map(
      (l) => l.price,
    );
    expect(high).toEqual([...high].sort((a, b) => b - a));
    expect(high[0]).toBeGreaterThan(low[0] ?? 0);
    const floats = parse(ListingPage, await t.api("GET", "/listings?sort_by=lowest_float")).data.map(
      (l) => l.item.float_value ?? -1,
    );
    expect(floats).toEqual([...floats].sort((a, b) => a - b));
  });

  it("filters by category: normal excludes statcounter and souvenir, 2 and 3 select them", async () => {
    const normal = parse(ListingPage, await t.api("GET", "/listings?category=1")).data;
    expect(normal.length).toBeGreaterThan(0);
    expect(normal.every((l) => !l.item.is_statcounter && !l.item.is_souvenir)).toBe(true);
    const stat = parse(ListingPage, await t.api("GET", "/listings?category=2")).data;
    expect(stat.length).toBeGreaterThan(0);
    expect(
      stat.every((l) => l.item.is_statcounter && l.item.market_hash_name.startsWith("Statcounter ")),
    ).toBe(true);
    const souvenir = parse(ListingPage, await t.api("GET", "/listings?category=3")).data;
    expect(souvenir.length).toBeGreaterThan(0);
    expect(souvenir.every((l) => l.item.is_souvenir)).toBe(true);
  });

  it("ignores the user_id filter, as the live service does: the page is the unfiltered one", async () => {
    const page = parse(ListingPage, await t.api("GET", "/listings?sort_by=most_recent&limit=50")).data;
    const seller = page[0]?.seller?.platform_id;
    if (!seller) throw new Error("no sample");
    const filtered = parse(
      ListingPage,
      await t.api("GET", `/listings?sort_by=most_recent&limit=50&user_id=${seller}`),
    ).data;
    expect(filtered.map((l) => l.id)).toEqual(page.map((l) => l.id));
    expect(filtered.some((l) => l.seller?.platform_id !== seller)).toBe(true);
  });

  it("filters by price range, float range, type, def_index and paint_index together", async () => {
    const sample = parse(ListingPage, await t.api("GET", "/listings?sort_by=most_recent")).data[3];
    if (!sample?.seller?.platform_id) throw new Error("no sample");
    const q = new URLSearchParams({
      def_index: String(sample.item.def_index),
      paint_index: String(sample.item.paint_index),
      min_price: String(sample.price),
      max_price: String(sample.price),
      min_float: String(sample.item.float_value),
      max_float: String(sample.item.float_value),
      type: sample.type,
    });
    const hits = parse(ListingPage, await t.api("GET", `/listings?${q}`)).data;
    expect(hits.map((l) => l.id)).toContain(sample.id);
    expect(hits.every((l) => l.price === sample.price)).toBe(true);
    const auctions = parse(ListingPage, await t.api("GET", "/listings?type=auction")).data;
    expect(auctions.length).toBeGreaterThan(0);
    expect(auctions.every((l) => l.type === "auction" && l.auction_details?.expires_at)).toBe(true);
  });

  it("filters by market_hash_name, paint_seed, rarity and collection", async () => {
    const l = t.sb.control.createListing({
      market_hash_name: "Warden Carbine | Copper Bloom (Lightly Used)",
      paint_seed: 777,
    });
    const q = new URLSearchParams({
      market_hash_name: "Warden Carbine | Copper Bloom (Lightly Used)",
      paint_seed: "777",
      rarity: String(l.item.rarity),
      collection: String(l.item.collection),
    });
    const hits = parse(ListingPage, await t.api("GET", `/listings?${q}`)).data;
    expect(hits.map((x) => x.id)).toContain(l.id);
    expect(hits.every((x) => x.item.paint_seed === 777)).toBe(true);
  });

  it("filters by stickers in the JSON form and ignores the spec's id|slot form, as the live service does", async () => {
    const l = t.sb.control.createListing({
      stickers: [
        { stickerId: 1107, slot: 2 },
        { stickerId: 1101, slot: 0 },
      ],
    });
    const json = (sel: unknown) => `/listings?limit=50&stickers=${encodeURIComponent(JSON.stringify(sel))}`;
    const bySlot = parse(ListingPage, await t.api("GET", json([{ i: 1107, s: 2 }]))).data;
    expect(bySlot.map((x) => x.id)).toContain(l.id);
    expect(bySlot.every((x) => x.item.stickers?.some((s) => s.stickerId === 1107 && s.slot === 2))).toBe(
      true,
    );
    const wrongSlot = parse(ListingPage, await t.api("GET", json([{ i: 1107, s: 3 }]))).data;
    expect(wrongSlot.map((x) => x.id)).not.toContain(l.id);
    // The documented form is accepted and silently ignored live: an unfiltered page comes back.
    const ignored = parse(
      ListingPage,
      await t.api("GET", `/listings?limit=50&stickers=${encodeURIComponent("1107|3")}`),
    ).data;
    const unfiltered = parse(ListingPage, await t.api("GET", "/listings?limit=50")).data;
    expect(ignored.map((x) => x.id)).toEqual(unfiltered.map((x) => x.id));
    expect((await t.api("GET", "/listings?stickers=abc")).status).toBe(400);
  });

  it("filters by minimum reference quantity, leaving out listings without a reference", async () => {
    const noRef = t.sb.control.createListing({
      market_hash_name: "Nomad SMG | Quiet Harbor (Pristine)",
      reference_price: null,
    });
    const hits = parse(ListingPage, await t.api("GET", "/listings?min_ref_qty=100&sort_by=most_recent")).data;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((l) => (l.reference?.quantity ?? 0) >= 100)).toBe(true);
    expect(hits.map((l) => l.id)).not.toContain(noRef.id);
    expect(noRef.reference).toBeUndefined();
  });
});

describe("single listing, bids, similar, history and stall", () => {
  const t = useSandbox();

  it("reads one listing, 404 for an unknown id and 400 for a non-numeric id", async () => {
    const page = parse(ListingPage, await t.api("GET", "/listings?limit=1"));
    const id = page.data[0]?.id ?? "";
    expect(parse(Listing, await t.api("GET", `/listings/${id}`)).id).toBe(id);
    const missing = await t.api("GET", "/listings/123456789012345678901");
    expect(missing.status).toBe(404);
    parse(ErrorBodyStrict, missing);
    const bad = await t.api("GET", "/listings/12ab");
    expect(bad.status).toBe(400);
    parse(ErrorBodyStrict, bad);
  });

  it("lists an auction's bids most recent first with the Bid schema", async () => {
    const auction = t.sb.control.createListing({ type: "auction", price: 1000 });
    t.sb.control.placeCompetingBid(auction.id, 1500);
    t.sb.control.placeCompetingBid(auction.id, 3000);
    const bids = parse(z.array(Bid), await t.api("GET", `/listings/${auction.id}/bids`));
    expect(bids.length).toBeGreaterThanOrEqual(2);
    const seqs = bids.map((b) => BigInt(b.id));
    expect(seqs).toEqual([...seqs].sort((a, b) => (a > b ? -1 : 1)));
    expect(bids[0]?.state).toBe("active");
  });

  it("answers comparable listings of the same finish", async () => {
    const l = t.sb.control.createListing({ market_hash_name: "Falcon Rifle | Glacier Veil (Battered)" });
    t.sb.control.createListing({ market_hash_name: "Falcon Rifle | Glacier Veil (Pristine)" });
    const sim = parse(z.array(Listing), await t.api("GET", `/listings/${l.id}/similar`));
    expect(sim.length).toBeGreaterThan(0);
    expect(sim.every((s) => s.item.paint_index === l.item.paint_index && s.id !== l.id)).toBe(true);
  });

  it("answers a daily price history and past sales for a seeded item name", async () => {
    const name = "Falcon Rifle | Ember Tide (Field Worn)";
    const graph = parse(
      z.array(HistoryPoint),
      await t.api("GET", `/history/${encodeURIComponent(name)}/graph`),
    );
    expect(graph.length).toBeGreaterThan(0);
    expect(graph.every((p) => /^\d{4}-\d{2}-\d{2}$/.test(p.day) && p.count > 0 && p.avg_price > 0)).toBe(
      true,
    );
    // As public clients model the live answer: { price, sold_at, item, reference } only.
    const Sale = z.strictObject({
      price: z.number().int(),
      sold_at: z.string(),
      item: Item,
      reference: z.unknown().optional(),
    });
    const sales = parse(z.array(Sale), await t.api("GET", `/history/${encodeURIComponent(name)}/sales`));
    expect(sales.length).toBe(
      Math.min(
        40,
        graph.reduce((n, p) => n + p.count, 0),
      ),
    );
    expect(sales.every((s) => s.sold_at && s.item.market_hash_name === name)).toBe(true);
    const other = await t.api("GET", `/history/${encodeURIComponent(name)}/graph?paint_index=1`);
    expect(parse(z.array(HistoryPoint), other)).toEqual([]);
  });

  it("pages a public stall with totals on its first page only and refuses a private stall with 403", async () => {
    const users = parse(
      z.object({
        users: z.array(z.object({ platformId: z.string(), kind: z.string(), stallPublic: z.boolean() })),
      }),
      await t.control("GET", "/users"),
    ).users;
    const open = users.find((u) => u.kind === "seller" && u.stallPublic);
    const closed = users.find((u) => u.kind === "seller" && !u.stallPublic);
    if (!open || !closed) throw new Error("seed lacks a public and a private stall");
    const StallPage = Page(Listing).extend({ total_count: z.number().int(), total_price: z.number().int() });
    const first = parse(StallPage, await t.api("GET", `/users/${open.platformId}/stall?limit=5`));
    expect(first.data).toHaveLength(5);
    expect(first.total_count).toBeGreaterThan(5);
    const ids = new Set(first.data.map((l) => l.id));
    let cursor = first.cursor;
    while (cursor) {
      const later = await t.api("GET", `/users/${open.platformId}/stall?limit=5&cursor=${cursor}`);
      // Later pages carry no totals (live answers may lack them).
      expect(later.json).not.toHaveProperty("total_count");
      expect(later.json).not.toHaveProperty("total_price");
      const next = parse(Page(Listing), later);
      for (const l of next.data) {
        expect(ids.has(l.id)).toBe(false);
        ids.add(l.id);
      }
      cursor = next.cursor;
    }
    expect(ids.size).toBe(first.total_count);
    const privateStall = await t.api("GET", `/users/${closed.platformId}/stall`);
    expect(privateStall.status).toBe(403);
    parse(ErrorBodyStrict, privateStall);
  });
});

describe("seeded data", () => {
  it("is identical for the same seed and clock, and differs for another seed", async () => {
    const clock = () => Date.UTC(2030, 0, 15, 12);
    const [a, b, c] = await Promise.all([
      startSandbox({ seed: 7, clock }),
      startSandbox({ seed: 7, clock }),
      startSandbox({ seed: 8, clock }),
    ]);
    try {
      const read = async (base: string) =>
        (await call(base, "GET", "/listings?sort_by=lowest_price&limit=50", { key: SANDBOX_OPERATOR_KEY }))
          .text;
      const [ta, tb, tc] = await Promise.all([read(a.baseUrl), read(b.baseUrl), read(c.baseUrl)]);
      expect(ta).toBe(tb);
      expect(ta).not.toBe(tc);
      expect(a.users).toEqual(b.users);
      expect(a.users.every((u) => u.apiKey.length >= 24)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it("has wear names consistent with float values, paint seeds in range and items without a reference", async () => {
    const sb = await startSandbox({ rateLimit: false });
    try {
      const WEARS: [string, number, number][] = [
        ["Pristine", 0, 0.07],
        ["Lightly Used", 0.07, 0.15],
        ["Field Worn", 0.15, 0.38],
        ["Heavily Used", 0.38, 0.45],
        ["Battered", 0.45, 1.0000001],
      ];
      const all: z.infer<typeof Listing>[] = [];
      let cursor: string | undefined;
      do {
        const p = parse(
          ListingPage,
          await call(sb.baseUrl, "GET", `/listings?sort_by=most_recent${cursor ? `&cursor=${cursor}` : ""}`, {
            key: sb.operatorKey,
          }),
        );
        all.push(...p.data);
        cursor = p.cursor;
      } while (cursor);
      expect(all.length).toBeGreaterThanOrEqual(300);
      for (const l of all) {
        const w = WEARS.find(([name]) => name === l.item.wear_name);
        expect(w, l.item.market_hash_name).toBeDefined();
        const f = l.item.float_value ?? -1;
        expect(f >= (w?.[1] ?? 2) && f < (w?.[2] ?? -1)).toBe(true);
        expect(l.item.market_hash_name.endsWith(`(${l.item.wear_name})`)).toBe(true);
        expect(l.item.paint_seed).toBeGreaterThanOrEqual(0);
        expect(l.item.paint_seed).toBeLessThanOrEqual(1000);
      }
      expect(all.some((l) => l.reference === undefined)).toBe(true);
      expect(all.some((l) => (l.item.stickers?.length ?? 0) > 0)).toBe(true);
      expect(all.some((l) => (l.item.keychains?.length ?? 0) > 0)).toBe(true);
      expect(all.some((l) => l.max_offer_discount === 0 && l.type === "buy_now")).toBe(true);
      expect(all.some((l) => l.auction_details?.top_bid !== undefined)).toBe(true);
      expect(new Set(all.map((l) => l.seller?.platform_id)).size).toBeGreaterThanOrEqual(5);
    } finally {
      await sb.close();
    }
  });
});

// One catalog: every name the seeded sandbox lists is in it, the README's example item is listed,
// each demo user owns a well-known asset, and a bought item lands in the buyer's inventory.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { catalogItems, EXAMPLE_ITEM } from "../../src/sandbox/catalog.ts";
import { DEMO_ASSET_IDS } from "../../src/sandbox/index.ts";
import { HOUR } from "../../src/sandbox/state/index.ts";
import { useSandbox } from "./helpers.ts";

const t = useSandbox();

const Page = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      price: z.number(),
      type: z.string(),
      item: z.object({ market_hash_name: z.string() }),
    }),
  ),
  cursor: z.string().optional(),
});
const Inventory = z.object({
  asset_ids: z.array(z.string()),
  assets: z.array(z.object({ asset_id: z.string(), market_hash_name: z.string() })),
});

async function allListings(): Promise<z.infer<typeof Page>["data"]> {
  const out: z.infer<typeof Page>["data"] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const res = await t.api(
      "GET",
      `/listings?limit=50&sort_by=most_recent${cursor ? `&cursor=${cursor}` : ""}`,
    );
    const page = Page.parse(res.json);
    out.push(...page.data);
    if (!page.cursor || page.data.length === 0) break;
    cursor = page.cursor;
  }
  return out;
}

describe("the sandbox catalog", () => {
  it("GIVEN the seeded world WHEN every listing is read THEN each item name is in the catalog the panel and autocomplete use", async () => {
    const catalog = new Set(t.sb.catalog);
    expect(t.sb.catalog).toEqual(catalogItems().map((c) => c.name));
    const listings = await allListings();
    expect(listings.length).toBeGreaterThan(100);
    const strays = listings.map((l) => l.item.market_hash_name).filter((n) => !catalog.has(n));
    expect(strays).toEqual([]);
    const control = await t.control("GET", "/catalog");
    expect(z.object({ items: z.array(z.string()) }).parse(control.json).items).toEqual(t.sb.catalog);
  });

  it("GIVEN the README's example item WHEN it is searched with the README's ceiling THEN it is in the catalog and listed under $120", async () => {
    expect(t.sb.catalog).toContain(EXAMPLE_ITEM);
    const res = await t.api(
      "GET",
      `/listings?market_hash_name=${encodeURIComponent(EXAMPLE_ITEM)}&max_price=12000`,
    );
    const page = Page.parse(res.json);
    expect(page.data.length).toBeGreaterThanOrEqual(1);
    expect(page.data.every((l) => l.item.market_hash_name === EXAMPLE_ITEM && l.price <= 12_000)).toBe(true);
  });

  it("GIVEN the demo users WHEN their inventories are read through the control surface THEN each owns its well-known asset", async () => {
    for (const user of t.sb.users) {
      const res = await t.control("GET", `/users/${user.platformId}/inventory`);
      const inventory = Inventory.parse(res.json);
      const expected = DEMO_ASSET_IDS[user.name] ?? [];
      expect(expected.length).toBe(2);
      for (const assetId of expected) {
        expect(inventory.asset_ids).toContain(assetId);
        expect(inventory.assets.find((a) => a.asset_id === assetId)?.market_hash_name).toBe(EXAMPLE_ITEM);
      }
    }
  });

  it("GIVEN bob buys a listing WHEN the trade is verified THEN the item is in bob's inventory and he can list it", async () => {
    // mossy_trader: a seeded seller who accepts trades.
    const listing = t.sb.control.createListing({ price: 700, sellerPlatformId: "42420000000000201" });
    const bought = await t.api("POST", "/listings/buy", {
      key: t.bob,
      body: { contract_ids: [listing.id], total_price: 700 },
    });
    expect(bought.status).toBe(200);
    // The seeded sellers accept after a few minutes; verification follows an hour later.
    t.sb.control.advanceClock(2 * HOUR);
    const inventory = Inventory.parse((await t.control("GET", `/users/${t.bobId}/inventory`)).json);
    expect(inventory.asset_ids).toContain(listing.item.asset_id);
    const relisted = await t.api("POST", "/listings", {
      key: t.bob,
      body: { asset_id: listing.item.asset_id, type: "buy_now", price: 900 },
    });
    expect(relisted.status).toBe(200);
  });
});

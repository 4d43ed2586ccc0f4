// Section 3 listing rules: create, reprice, remove and bulk operations on listings.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Listing } from "../../src/market/schemas.ts";
import { ErrorBodyStrict, parse, useSandbox } from "./helpers.ts";

describe("selling", () => {
  const t = useSandbox();
  const asset = (): string => {
    const id = t.sb.control.inventory(t.aliceId)[0];
    if (!id) throw new Error("alice has no inventory left");
    return id;
  };

  it("lists an inventory asset as buy-now; the asset leaves the inventory and the listing is searchable", async () => {
    const assetId = asset();
    const a = await t.api("POST", "/listings", { key: t.alice, body: { asset_id: assetId, price: 2500 } });
    expect(a.status).toBe(200);
    const l = parse(Listing, a);
    expect(l).toMatchObject({ type: "buy_now", price: 2500, state: "listed", is_seller: true });
    expect(l.item.asset_id).toBe(assetId);
    expect(t.sb.control.inventory(t.aliceId)).not.toContain(assetId);
    const again = await t.api("POST", "/listings", {
      key: t.alice,
      body: { asset_id: assetId, price: 2500 },
    });
    expect(again.status).toBe(400);
    const newest = parse(
      z.object({ data: z.array(Listing) }),
      await t.api("GET", "/listings?sort_by=most_recent&limit=5"),
    );
    expect(newest.data.map((x) => x.id)).toContain(l.id);
  });

  it("refuses invalid listing bodies: missing price, negative or fractional money, someone else's asset", async () => {
    const assetId = asset();
    for (const body of [
      { asset_id: assetId },
      { asset_id: assetId, price: -5 },
      { asset_id: assetId, price: 12.5 },
      { asset_id: assetId, price: "100" },
      { price: 100 },
      { asset_id: t.sb.control.inventory(t.bobId)[0], price: 100 },
      { asset_id: assetId, type: "auction", reserve_price: 100, duration_days: 2 },
    ]) {
      const a = await t.api("POST", "/listings", { key: t.alice, body });
      expect(a.status, JSON.stringify(body)).toBe(400);
      parse(ErrorBodyStrict, a);
    }
  });

  it("reprices an active buy-now listing, and refuses an empty patch", async () => {
    const l = parse(
      Listing,
      await t.api("POST", "/listings", { key: t.alice, body: { asset_id: asset(), price: 900 } }),
    );
    const patched = parse(
      Listing,
      await t.api("PATCH", `/listings/${l.id}`, {
        key: t.alice,
        body: { price: 850, description: "quick sale" },
      }),
    );
    expect(patched).toMatchObject({ price: 850, description: "quick sale" });
    expect(parse(Listing, await t.api("GET", `/listings/${l.id}`)).price).toBe(850);
    expect((await t.api("PATCH", `/listings/${l.id}`, { key: t.alice, body: {} })).status).toBe(400);
    expect((await t.api("PATCH", `/listings/${l.id}`, { key: t.bob, body: { price: 1 } })).status).toBe(400);
    expect((await t.api("PATCH", "/listings/1", { key: t.alice, body: { price: 500 } })).status).toBe(404);
  });

  it("refuses to reprice an auction, with or without bids", async () => {
    const a = parse(
      Listing,
      await t.api("POST", "/listings", {
        key: t.alice,
        body: { asset_id: asset(), type: "auction", reserve_price: 1000, duration_days: 3 },
      }),
    );
    expect(a.auction_details?.reserve_price).toBe(1000);
    const before = await t.api("PATCH", `/listings/${a.id}`, { key: t.alice, body: { price: 1200 } });
    expect(before.status).toBe(400);
    t.sb.control.placeCompetingBid(a.id, 1500);
    const after = await t.api("PATCH", `/listings/${a.id}`, { key: t.alice, body: { price: 2000 } });
    expect(after.status).toBe(400);
    expect(parse(ErrorBodyStrict, after).message).toMatch(/bidding/);
  });

  it("removes an active listing (asset back in inventory) but not a sold one; both stay readable", async () => {
    const assetId = asset();
    const l = parse(
      Listing,
      await t.api("POST", "/listings", { key: t.alice, body: { asset_id: assetId, price: 700 } }),
    );
    const del = await t.api("DELETE", `/listings/${l.id}`, { key: t.alice });
    expect(del.status).toBe(200);
    expect(t.sb.control.inventory(t.aliceId)).toContain(assetId);
    expect(parse(Listing, await t.api("GET", `/listings/${l.id}`)).state).toBe("delisted");
    expect((await t.api("DELETE", `/listings/${l.id}`, { key: t.alice })).status).toBe(400);

    const sold = parse(
      Listing,
      await t.api("POST", "/listings", { key: t.alice, body: { asset_id: asset(), price: 800 } }),
    );
    t.sb.control.sellToBuyer(sold.id);
    const delSold = await t.api("DELETE", `/listings/${sold.id}`, { key: t.alice });
    expect(delSold.status).toBe(400);
    parse(ErrorBodyStrict, delSold);
    const read = parse(Listing, await t.api("GET", `/listings/${sold.id}`));
    expect(read.state).toBe("sold");
    expect(read.sold_at).toEqual(expect.any(String));
    expect((await t.api("DELETE", "/listings/5", { key: t.alice })).status).toBe(404);
    expect((await t.api("DELETE", "/listings/abc", { key: t.alice })).status).toBe(400);
  });

  it("bulk-lists, bulk-modifies and bulk-delists, all or nothing", async () => {
    const [a1, a2] = t.sb.control.inventory(t.bobId);
    if (!a1 || !a2) throw new Error("bob lacks inventory");
    const bad = await t.api("POST", "/listings/bulk-list", {
      key: t.bob,
      body: {
        items: [
          { asset_id: a1, price: 100 },
          { asset_id: "999", price: 100 },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(t.sb.control.inventory(t.bobId)).toContain(a1);

    const listed = parse(
      z.object({ data: z.array(Listing) }),
      await t.api("POST", "/listings/bulk-list", {
        key: t.bob,
        body: {
          items: [
            { asset_id: a1, price: 100 },
            { asset_id: a2, price: 200 },
          ],
          notary_payload: "x",
        },
      }),
    ).data;
    expect(listed.map((l) => l.price)).toEqual([100, 200]);
    const [l1, l2] = listed as [z.infer<typeof Listing>, z.infer<typeof Listing>];

    const badModify = await t.api("PATCH", "/listings/bulk-modify", {
      key: t.bob,
      body: {
        modifications: [
          { contract_id: l1.id, price: 150 },
          { contract_id: "77", price: 1 },
        ],
      },
    });
    expect(badModify.status).toBe(400);
    expect(parse(Listing, await t.api("GET", `/listings/${l1.id}`)).price).toBe(100);
    const modified = parse(
      z.object({ data: z.array(Listing) }),
      await t.api("PATCH", "/listings/bulk-modify", {
        key: t.bob,
        body: {
          modifications: [
            { contract_id: l1.id, price: 150 },
            { contract_id: l2.id, price: 250 },
          ],
        },
      }),
    ).data;
    expect(modified.map((l) => l.price)).toEqual([150, 250]);

    const delisted = await t.api("PATCH", "/listings/bulk-delist", {
      key: t.bob,
      body: { contract_ids: [l1.id, l2.id] },
    });
    expect(delisted.status).toBe(200);
    expect(parse(Listing, await t.api("GET", `/listings/${l2.id}`)).state).toBe("delisted");
    expect(t.sb.control.inventory(t.bobId)).toEqual(expect.arrayContaining([a1, a2]));
  });
});

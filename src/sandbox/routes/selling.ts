// Spec 4.2, selling: list, bulk-list, modify, delist, one at a time or all or nothing in bulk.
import { z } from "zod";
import { badRequest, ErrorCode } from "../errors.ts";
import { IdField, MoneyField, ok, parseBody, type Router } from "../http.ts";
import {
  createListing,
  delist,
  updateListing,
  validateDelist,
  validateNewListing,
  validatePatch,
  type NewListing,
} from "../listings.ts";
import { listingJson } from "../render/index.ts";
import type { Store, UserRec } from "../state/index.ts";
import { IdList, MAX_BATCH, need } from "./common.ts";

const NewListingBody = z.object({
  asset_id: z.string().min(1),
  type: z.enum(["buy_now", "auction"]).default("buy_now"),
  price: MoneyField.optional(),
  reserve_price: MoneyField.optional(),
  duration_days: z.number().int().optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  description: z.string().max(180).optional(),
  private: z.boolean().optional(),
});

const PatchFields = {
  price: MoneyField.optional(),
  description: z.string().max(180).optional(),
  max_offer_discount: z.number().int().min(0).max(10_000).optional(),
  private: z.boolean().optional(),
};
const ListingPatchBody = z
  .object(PatchFields)
  .refine((p) => Object.values(p).some((v) => v !== undefined), "at least one property is required");

function toNewListing(b: z.infer<typeof NewListingBody>): NewListing {
  return {
    assetId: b.asset_id,
    type: b.type,
    price: b.price,
    reservePrice: b.reserve_price,
    durationMs: undefined,
    durationDays: b.duration_days,
    maxOfferDiscount: b.max_offer_discount,
    description: b.description,
    private: b.private,
  };
}

export function addSellingRoutes(r: Router<UserRec>, store: Store): void {
  const now = (): number => store.now();
  /** Ids named in a bulk body: an unknown one makes the whole request a 400, not a 404. */
  const known = (id: string): string => {
    if (!store.listings.has(id))
      throw badRequest(`listing ${id} does not exist; nothing was changed`, ErrorCode.notFound);
    return id;
  };

  r.add("POST", "/listings", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(NewListingBody, ctx.body);
    return ok(listingJson(store, createListing(store, u, toNewListing(body), now()), u.platformId));
  });

  r.add("PATCH", "/listings/bulk-modify", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        modifications: z
          .array(z.object({ contract_id: IdField, ...PatchFields }))
          .min(1)
          .max(MAX_BATCH),
      }),
      ctx.body,
    );
    // All or nothing: every modification is checked before any is applied.
    for (const m of body.modifications) validatePatch(store, u, known(m.contract_id), m);
    const done = body.modifications.map((m) => updateListing(store, u, m.contract_id, m));
    return ok({ data: done.map((l) => listingJson(store, l, u.platformId)) });
  });

  r.add("PATCH", "/listings/bulk-delist", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(z.object({ contract_ids: IdList }), ctx.body);
    if (new Set(body.contract_ids).size !== body.contract_ids.length)
      throw badRequest("contract_ids contains duplicates");
    for (const id of body.contract_ids) validateDelist(store, u, known(id));
    const at = now();
    const done = body.contract_ids.map((id) => delist(store, u, id, at));
    return ok({
      message: `${done.length} listing(s) delisted`,
      data: done.map((l) => listingJson(store, l, u.platformId)),
    });
  });

  r.add("PATCH", "/listings/{listing_id}", true, (ctx) => {
    const u = need(ctx);
    const patch = parseBody(ListingPatchBody, ctx.body);
    return ok(
      listingJson(store, updateListing(store, u, ctx.params["listing_id"] as string, patch), u.platformId),
    );
  });

  r.add("DELETE", "/listings/{listing_id}", true, (ctx) => {
    const u = need(ctx);
    const l = delist(store, u, ctx.params["listing_id"] as string, now());
    return ok({ message: "listing delisted", id: l.id, state: l.state });
  });

  r.add("POST", "/listings/bulk-list", true, (ctx) => {
    const u = need(ctx);
    const body = parseBody(
      z.object({
        items: z.array(NewListingBody).min(1).max(MAX_BATCH),
        notary_payload: z.unknown().optional(),
      }),
      ctx.body,
    );
    const inputs = body.items.map(toNewListing);
    if (new Set(inputs.map((i) => i.assetId)).size !== inputs.length)
      throw badRequest("items list an asset twice");
    for (const i of inputs) validateNewListing(u, i);
    const at = now();
    return ok({ data: inputs.map((i) => listingJson(store, createListing(store, u, i, at), u.platformId)) });
  });
}

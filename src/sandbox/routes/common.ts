// What every section of the API's routes shares: the caller's context, the signed-in user, batch limits.
import { z } from "zod";
import { unauthorized } from "../errors.ts";
import { IdField, type RequestContext } from "../http.ts";
import type { UserRec } from "../state/index.ts";

export type Ctx = RequestContext<UserRec>;

/** Largest batch a bulk operation takes (spec: not shown). */
export const MAX_BATCH = 100;

export const IdList = z.array(IdField).min(1).max(MAX_BATCH);

export function need(ctx: Ctx): UserRec {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

/** The caller's platform id, when the request carries a key. */
export const viewer = (ctx: Ctx): string | undefined => ctx.user?.platformId;

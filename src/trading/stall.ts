// A seller's public stall: their active listings, or a clear refusal when they keep it private.
import { UserFacingError } from "../errors.ts";
import { isMarketError } from "../market/errors.ts";
import type { Cents } from "../money.ts";
import type { MarketDeps } from "./deps.ts";
import { requireId, requireInt } from "../input/validate.ts";
import { nextCursor, toListingSummary, type ListingSummary } from "./views.ts";

export type StallFilter = "unique" | "sticker_combos";

export interface StallPage {
  platformId: string;
  listings: ListingSummary[];
  /** Pass back to read the next page; undefined on the last one. */
  cursor: string | undefined;
  totalCount: number | undefined;
  totalPriceCents: Cents | undefined;
}

export async function viewStall(
  deps: MarketDeps,
  input: {
    platformId: string;
    cursor?: string | undefined;
    limit?: number | undefined;
    filter?: StallFilter | undefined;
  },
): Promise<StallPage> {
  const platformId = requireId("user", input.platformId);
  const limit = input.limit === undefined ? 20 : requireInt("limit", input.limit, 1, 50);
  try {
    const page = await deps.market.getStall(platformId, {
      limit,
      ...(input.cursor ? { cursor: input.cursor } : {}),
      ...(input.filter ? { filter: input.filter } : {}),
    });
    return {
      platformId,
      listings: page.data.map(toListingSummary),
      cursor: nextCursor(page.cursor, page.data.length),
      totalCount: page.total_count,
      totalPriceCents: page.total_price,
    };
  } catch (error) {
    if (isMarketError(error, "forbidden")) {
      throw new UserFacingError("forbidden", "This seller's stall is private.", { platformId });
    }
    throw error;
  }
}

// Is a typed item name one the marketplace trades? A name a few letters off a known one is refused
// with the closest names; a name nobody has listed or sold yet (a new release, a rare item) is
// reported as unseen, for the caller to confirm with the user.
import { invalidOption, type UserFacingError } from "../errors.ts";
import { safeUserText } from "../input/parse.ts";
import type { MarketDeps } from "./deps.ts";
import type { ItemNameIndex } from "../market/itemNames.ts";

/** Quotes a user-typed name inside a message: shown literally, bounded. */
const quoted = (text: string): string => `“${safeUserText(text, 100)}”`;

/** A known name as the market spells it, or one no listing or sale has yet (with names like it). */
export type ItemNameCheck =
  { kind: "known"; name: string } | { kind: "unseen"; name: string; similar: string[] };

/**
 * The name as the market spells it. Known names (catalog, names seen lately) answer from memory;
 * any other is looked up once on the market: a current listing or a recorded sale proves it. A
 * slip for a known name throws "Did you mean"; any other name is "unseen" (nothing could match it
 * today, but a new item may be listed tomorrow). A failed lookup throws the market's own error.
 */
export async function checkItemName(
  deps: MarketDeps,
  index: ItemNameIndex,
  option: string,
  typed: string,
): Promise<ItemNameCheck> {
  const known = index.canonical(typed);
  if (known !== undefined) return { kind: "known", name: known };
  const page = await deps.market.searchListings({ market_hash_name: typed, limit: 1 });
  const listed = page.data[0]?.item.market_hash_name;
  if (listed !== undefined) {
    index.remember([listed]);
    return { kind: "known", name: listed };
  }
  const sales = await deps.market.getHistorySales(typed);
  if (sales.length > 0) {
    index.remember([typed]);
    return { kind: "known", name: typed };
  }
  const slips = index.slipsOf(typed, 3);
  if (slips.length > 0) throw unknownItem(option, typed, slips);
  return { kind: "unseen", name: typed.trim(), similar: index.closest(typed, 3) };
}

export function unknownItem(option: string, typed: string, suggestions: readonly string[]): UserFacingError {
  const hint =
    suggestions.length > 0
      ? ` Did you mean ${suggestions.map((s) => `**${safeUserText(s, 100)}**`).join(", ")}?`
      : " Pick a name from the suggestions while typing.";
  return invalidOption(
    option,
    `no listing or sale has the name ${quoted(typed)}, and it is a few letters off a known item.${hint}`,
  );
}

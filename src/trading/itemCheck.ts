// Is a typed item name one the marketplace trades? A buy order (or any standing request) for a
// name that is no item can never fill, so it is refused with the closest names instead.
import { invalidOption, type UserFacingError } from "../errors.ts";
import { safeUserText } from "../input/parse.ts";
import type { MarketDeps } from "./deps.ts";
import type { ItemNameIndex } from "./itemNames.ts";

/** Quotes a user-typed name inside a message: shown literally, bounded. */
const quoted = (text: string): string => `“${safeUserText(text, 100)}”`;

/**
 * The name as the market spells it. Known names (catalog, names seen lately) answer from memory;
 * any other is looked up once on the market: a current listing or a recorded sale proves it. A
 * failed lookup throws the market's own error (the user is told the marketplace did not answer).
 */
export async function checkItemName(
  deps: MarketDeps,
  index: ItemNameIndex,
  option: string,
  typed: string,
): Promise<string> {
  const known = index.canonical(typed);
  if (known !== undefined) return known;
  const page = await deps.market.searchListings({ market_hash_name: typed, limit: 1 });
  const listed = page.data[0]?.item.market_hash_name;
  if (listed !== undefined) {
    index.remember([listed]);
    return listed;
  }
  const sales = await deps.market.getHistorySales(typed);
  if (sales.length > 0) {
    index.remember([typed]);
    return typed;
  }
  throw unknownItem(option, typed, index.closest(typed, 3));
}

export function unknownItem(option: string, typed: string, suggestions: readonly string[]): UserFacingError {
  const hint =
    suggestions.length > 0
      ? ` Did you mean ${suggestions.map((s) => `**${safeUserText(s, 100)}**`).join(", ")}?`
      : " Pick a name from the suggestions while typing.";
  return invalidOption(
    option,
    `${quoted(typed)} is not an item on the marketplace (no listing or sale has that name), so nothing could ever match it.${hint}`,
  );
}

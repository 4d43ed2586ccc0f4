// /buyorder autocomplete: item names (create, similar) from the one catalog and the market, and
// the user's own orders (edit, cancel) labelled by item, price and quantity.
import type { AutocompleteContext, Choice } from "../../src/discord/command.ts";
import { orderChoice } from "../../src/discord/render/choices.ts";
import { userChoices } from "../../src/discord/suggest.ts";
import { fitsTyped, orderChoices } from "../../src/trading/suggestions.ts";
import { suggestItemNames } from "../search.ts";

export async function buyOrderAutocomplete(ctx: AutocompleteContext): Promise<readonly Choice[]> {
  if (ctx.focused.name === "item") return suggestItemNames(ctx);
  if (ctx.focused.name !== "order") return [];
  const typed = ctx.focused.value;
  return userChoices(
    ctx,
    "buy-orders",
    ({ market }) => orderChoices(market),
    (orders) => orders.filter((o) => fitsTyped(typed, o.id, o.itemName)).map(orderChoice),
  );
}

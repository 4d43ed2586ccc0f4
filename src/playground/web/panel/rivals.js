// The sandbox drawer's "Rivals" card: another trader's buy order or listing for the item, price
// and float typed in the New listing card, which /buyorder guard and /sell guard then answer.
import { el } from "../render.js";

const dollars = (cents) => `$${(cents / 100).toFixed(2)}`;
/** Rival buy orders cover the float typed, give or take this (the listing guard's window). */
const FLOAT_WINDOW = 0.01;

export function rivalsCard({ ctx, act, say, card, button, values }) {
  const read = () => {
    const { item, price, float } = values();
    const name = item.trim();
    if (price === undefined) throw new Error("Price: a dollar amount such as 12.50.");
    if (!name) throw new Error("Item: the item the rival trades.");
    const f = float.trim() === "" ? undefined : Number(float);
    if (f !== undefined && !(f >= 0 && f <= 1)) throw new Error("Float: a number from 0 to 1.");
    return { name, price, float: f };
  };
  const orderButton = button("Rival buy order", "btn btn-primary");
  orderButton.id = "create-rival-order";
  orderButton.addEventListener("click", () =>
    act(async () => {
      const { name, price, float } = read();
      const floats =
        float === undefined
          ? {}
          : { minFloat: Math.max(0, float - FLOAT_WINDOW), maxFloat: Math.min(1, float + FLOAT_WINDOW) };
      const { order } = await ctx.api("/api/sandbox/rival-orders", {
        method: "POST",
        body: { marketHashName: name, maxPrice: price, ...floats },
      });
      say(
        `A rival buy order at ${dollars(order.price)}: your guarded order for it is raised on the next pass.`,
      );
    }),
  );
  const listingButton = button("Rival listing", "btn btn-primary");
  listingButton.id = "create-rival-listing";
  listingButton.addEventListener("click", () =>
    act(async () => {
      const { name, price, float } = read();
      const { listing } = await ctx.api("/api/sandbox/listings", {
        method: "POST",
        body: { market_hash_name: name, price, ...(float === undefined ? {} : { float_value: float }) },
      });
      say(
        `A rival listing at ${dollars(listing.price)}: your guarded listing for it is lowered on the next pass.`,
      );
    }),
  );
  const row = el("div", "panel-row");
  row.append(orderButton, listingButton);
  return card(
    "Rivals (guards)",
    el(
      "div",
      "panel-hint",
      "Another trader's order or listing for the item, price and float of New listing: what /buyorder guard and /sell guard answer.",
    ),
    row,
  );
}

// The controls under /buyorder list: a menu of the page's orders, and for the order chosen in it,
// Edit order (a form) and Cancel order buttons, so no order id has to be typed by hand.
import { ButtonStyle, ComponentType } from "discord.js";
import type { BuyOrderView } from "../../trading/buyOrders.ts";
import { money, truncate } from "./format.ts";
import { button, row, type ActionRow } from "./button.ts";
import { plainText } from "./listing.ts";

export interface ManageIds {
  /** The menu; its value is the chosen order's id. */
  readonly pickId: string;
  readonly editId: (orderId: string) => string;
  readonly cancelId: (orderId: string) => string;
}

/** The menu of the page's orders and, once one is chosen, its Edit and Cancel buttons. */
export function manageRows(
  orders: readonly BuyOrderView[],
  ids: ManageIds,
  chosen: string | undefined,
): ActionRow[] {
  if (orders.length === 0) return [];
  const menu: ActionRow = {
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.StringSelect,
        custom_id: ids.pickId,
        placeholder: "Edit or cancel an order…",
        min_values: 1,
        max_values: 1,
        options: orders.slice(0, 25).map((o) => ({
          label: plainText(
            `${o.itemName ?? "Advanced order"} · ${money(o.maxPriceCents)} × ${o.quantity}`,
            100,
          ),
          description: truncate(`order ${o.orderId}`, 100),
          value: o.orderId,
          ...(o.orderId === chosen ? { default: true } : {}),
        })),
      },
    ],
  };
  const order = orders.find((o) => o.orderId === chosen);
  if (!order) return [menu];
  return [
    menu,
    ...row([
      button("Edit order", ButtonStyle.Primary, ids.editId(order.orderId)),
      button("Cancel order", ButtonStyle.Danger, ids.cancelId(order.orderId)),
    ]),
  ];
}

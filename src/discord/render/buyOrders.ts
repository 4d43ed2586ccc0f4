// Buy orders as Discord shows them: one order, a page of the user's orders, other buyers' orders.
// Advanced orders (made on the website) show their filter expression as is, in a code span.
import { ButtonStyle, type APIEmbed } from "discord.js";
import type { CapsView } from "../../spending/guard.ts";
import type { BuyOrderEditPreview } from "../../trading/buyOrderEdit.ts";
import type {
  BuyOrderAggregateView,
  BuyOrderQuote,
  BuyOrderView,
  BuyOrdersPage,
} from "../../trading/buyOrders.ts";
import type { BuyOrderConstraints } from "../../trading/constraints.ts";
import { safeUserText } from "../../input/parse.ts";
import { embed } from "./embeds.ts";
import { money, relativeTime, truncate } from "./format.ts";
import { button, pagingRow, row, type ActionRow, type Paging } from "./button.ts";
import { itemName } from "./listing.ts";

/** What an order made on the website with a filter expression is called wherever it is shown. */
export const ADVANCED_ORDER = "Advanced order (made on the website)";

/** Characters of an expression shown on a list line; one page of ten must fit one embed. */
const LINE_EXPRESSION_MAX = 200;
/** An embed field holds 1024 characters; the fences and a margin take the rest. */
const FIELD_EXPRESSION_MAX = 1000;
const DESCRIPTION_MAX = 4096;

// Controls and bidi overrides would break the line or reorder what the reader sees.
const CONTROL_OR_BIDI = /[\p{Cc}\u202A-\u202E\u2066-\u2069\u061C\u200E\u200F]/gu;

/**
 * An expression as is, in an inline code span so none of its characters read as markdown or
 * mentions: one line, cut to `max` characters with the ellipsis inside the span (so the span
 * always closes), fenced with backticks it does not contain. Only an expression holding a run of
 * two backticks, which no fence can hold, has its backticks shown as the look-alike ˋ.
 */
export function expressionCode(expression: string, max: number): string {
  const body = truncate(expression.replace(CONTROL_OR_BIDI, " "), max);
  if (body.trim() === "") return "(empty expression)";
  if (!body.includes("`")) return `\`${body}\``;
  // Spaces keep a backtick at either end from merging with the fence.
  if (!body.includes("``")) return `\`\` ${body} \`\``;
  return `\`${body.replace(/`/g, "ˋ")}\``;
}

/** The order's target on one line: the item's name, or the label and the expression. */
export function orderTarget(
  o: { readonly itemName?: string | undefined; readonly expression?: string | undefined },
  maxExpression = LINE_EXPRESSION_MAX,
): string {
  if (o.expression !== undefined) return `${ADVANCED_ORDER} ${expressionCode(o.expression, maxExpression)}`;
  if (o.itemName !== undefined) return itemName(o.itemName, 80);
  return "(item not named by the marketplace)";
}

/**
 * Whole lines up to Discord's description limit, then a count of those left out: cutting the text
 * itself could end inside a code span or a bold run and garble the rest.
 */
function fitLines(lines: readonly string[], max = DESCRIPTION_MAX): string {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const reserve = i < lines.length - 1 ? 40 : 0;
    if (used + line.length + 1 + reserve > max) {
      out.push(`…and ${lines.length - i} more not shown.`);
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.join("\n");
}

const trimFloat = (x: number) => String(Number(x.toFixed(6)));

/** "float 0.01–0.07 · paint 44 · seeds 661, 670 · stickers 1101" or "any". */
export function constraintsText(c: BuyOrderConstraints): string {
  const parts: string[] = [];
  if (c.minFloat !== undefined || c.maxFloat !== undefined) {
    parts.push(
      `float ${c.minFloat === undefined ? "0" : trimFloat(c.minFloat)}–${c.maxFloat === undefined ? "1" : trimFloat(c.maxFloat)}`,
    );
  }
  if (c.paintIndex !== undefined) parts.push(`paint index ${c.paintIndex}`);
  if (c.paintSeeds && c.paintSeeds.length > 0) parts.push(`seeds ${truncate(c.paintSeeds.join(", "), 120)}`);
  if (c.stickerIds && c.stickerIds.length > 0) parts.push(`stickers ${c.stickerIds.join(", ")}`);
  if (c.keychainIds && c.keychainIds.length > 0) parts.push(`keychains ${c.keychainIds.join(", ")}`);
  if (c.minKeychainPattern !== undefined || c.maxKeychainPattern !== undefined) {
    parts.push(`keychain pattern ${c.minKeychainPattern ?? 0}–${c.maxKeychainPattern ?? "any"}`);
  }
  return parts.length > 0 ? parts.join(" · ") : "any";
}

export function buyOrderEmbed(o: BuyOrderView, title: string): APIEmbed {
  const filled = o.boughtCount === undefined ? `${o.quantity}` : `${o.boughtCount} of ${o.quantity} bought`;
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "Max price each", value: `**${money(o.maxPriceCents)}**`, inline: true },
    { name: "Quantity", value: filled, inline: true },
  ];
  const constraints = constraintsText(o.constraints);
  if (o.expression === undefined) {
    fields.push({ name: "Constraints", value: constraints });
  } else {
    fields.push({ name: "Expression", value: expressionCode(o.expression, FIELD_EXPRESSION_MAX) });
    if (constraints !== "any") fields.push({ name: "Constraints", value: constraints });
  }
  const target = o.expression !== undefined ? ADVANCED_ORDER : (o.itemName ?? `order ${o.orderId}`);
  return embed({
    tone: "success",
    title: truncate(`${title}: ${target}`, 256),
    ...(o.expression === undefined
      ? {}
      : {
          description:
            "Its expression can only be edited on the website; `/buyorder edit` changes its price and quantity.",
        }),
    fields,
    footer: `Buy order ${o.orderId}`,
    ...(o.createdAt ? { timestamp: o.createdAt } : {}),
  });
}

function orderLine(o: BuyOrderView): string {
  const qty = o.boughtCount === undefined ? `×${o.quantity}` : `${o.boughtCount}/${o.quantity} bought`;
  const c = constraintsText(o.constraints);
  return `**${money(o.maxPriceCents)}** · ${orderTarget(o)} · ${qty}${c === "any" ? "" : ` · ${c}`} · \`${o.orderId}\``;
}

export function buyOrdersPageMessage(
  p: BuyOrdersPage,
  paging: Paging,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  const body =
    p.orders.length > 0
      ? fitLines(p.orders.map(orderLine))
      : p.page === 0
        ? "You have no open buy orders. Create one with `/buyorder create`."
        : "No more buy orders.";
  const total = p.total === undefined ? "" : ` · ${p.total} order${p.total === 1 ? "" : "s"}`;
  return {
    embeds: [
      embed({
        tone: "info",
        title: "Your buy orders",
        description: body,
        footer: `Page ${p.page + 1}${total}`,
      }),
    ],
    components: pagingRow(paging),
  };
}

/** Standing orders (aggregates, no ids): for a listing's matches or an item's competition. */
export function aggregatesEmbed(
  title: string,
  orders: readonly BuyOrderAggregateView[],
  empty: string,
  footer: string,
): APIEmbed {
  const lines = orders.slice(0, 20).map((o) => {
    const c = constraintsText(o.constraints);
    return `**${money(o.maxPriceCents)}** × ${o.quantity} · ${orderTarget(o, 120)}${c === "any" ? "" : ` · ${c}`}`;
  });
  return embed({
    tone: "info",
    title: truncate(title, 256),
    description: lines.length > 0 ? fitLines(lines) : empty,
    footer,
  });
}

export interface ConfirmButtons {
  readonly confirmId: string;
  readonly cancelId: string;
  readonly expiresAt: Date;
}

function capsLines(caps: CapsView): string {
  const lines = [
    caps.perPurchaseCapCents === null ? "No per-purchase cap" : `${money(caps.perPurchaseCapCents)} per item`,
    caps.dailyCapCents === null
      ? `No daily cap (${money(caps.committedCents)} committed)`
      : `${money(caps.leftCents ?? 0)} of ${money(caps.dailyCapCents)} left today (${money(caps.committedCents)} committed)`,
  ];
  return lines.join("\n");
}

/** A new order's confirmation: what it commits in all, against the caps. Nothing is placed yet. */
/** Above a buy order's confirmation when no listing or sale has its name yet. */
export function unseenItemNotice(itemName: string, similar: readonly string[]): APIEmbed {
  const like =
    similar.length === 0
      ? ""
      : `\nNames like it that do trade: ${similar.map((s) => `**${safeUserText(s, 100)}**`).join(", ")}.`;
  return embed({
    tone: "warning",
    title: "No listing or sale has this name yet; place the order anyway?",
    description:
      `**${safeUserText(itemName, 128)}** has never been listed or sold that the marketplace shows: fine for a new ` +
      `release or a rare item, but check the spelling, since the order fills only for exactly this name.${like}`,
  });
}

export function buyOrderConfirmMessage(
  q: BuyOrderQuote,
  b: ConfirmButtons,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  return {
    embeds: [
      embed({
        tone: "deal",
        title: truncate(`Place a buy order for ${q.itemName}?`, 256),
        description:
          `Up to **${money(q.maxPriceCents)}** each for **${q.quantity}** item${q.quantity === 1 ? "" : "s"}: ` +
          `the order can spend up to **${money(q.exposureCents)}** in all, held against your daily cap while it is open. ` +
          `This confirmation expires ${relativeTime(b.expiresAt)}.`,
        fields: [
          { name: "Max price", value: money(q.maxPriceCents), inline: true },
          { name: "Quantity", value: String(q.quantity), inline: true },
          { name: "Total exposure", value: `**${money(q.exposureCents)}**`, inline: true },
          { name: "Your caps", value: capsLines(q.caps) },
        ],
        footer: "Change your caps with /account settings.",
      }),
    ],
    components: row([
      button("Place order", ButtonStyle.Success, b.confirmId),
      button("Cancel", ButtonStyle.Secondary, b.cancelId),
    ]),
  };
}

/** An edit that raises an order's exposure: before and after, against the caps. */
export function buyOrderRaiseMessage(
  p: BuyOrderEditPreview,
  b: ConfirmButtons,
): { embeds: APIEmbed[]; components: ActionRow[] } {
  return {
    embeds: [
      embed({
        tone: "deal",
        title: "Raise this buy order?",
        description:
          `${orderTarget(p, FIELD_EXPRESSION_MAX / 2)}\n` +
          `Up to **${money(p.maxPriceCents)}** each, **${p.quantity}** in all: what the order can still spend goes from ` +
          `${money(p.exposureBeforeCents)} to **${money(p.exposureAfterCents)}**. This confirmation expires ${relativeTime(b.expiresAt)}.`,
        fields: [
          {
            name: "Total exposure",
            value: `${money(p.exposureBeforeCents)} → **${money(p.exposureAfterCents)}**`,
            inline: true,
          },
          { name: "Your caps", value: capsLines(p.caps) },
        ],
        footer: `Buy order ${p.orderId} · change your caps with /account settings`,
      }),
    ],
    components: row([
      button("Save changes", ButtonStyle.Success, b.confirmId),
      button("Cancel", ButtonStyle.Secondary, b.cancelId),
    ]),
  };
}

// Autocomplete choices for id options, labelled as people know the things: item, price, state.
import type { AssetChoice, AuctionChoice, OrderChoice, TradeChoice } from "../../trading/suggestions.ts";
import type { Choice } from "../command.ts";
import { choiceLabel } from "../suggest.ts";
import { compactDuration, money } from "./format.ts";

export function orderChoice(o: OrderChoice): Choice {
  const bought = o.bought > 0 ? ` (${o.bought} bought)` : "";
  return {
    name: choiceLabel(o.itemName, ` · ${money(o.priceCents)} × ${o.quantity}${bought}`, o.id),
    value: o.id,
  };
}

const TRADE_ROLE = { seller: "Selling ", buyer: "Buying ", none: "" } as const;

export function tradeChoice(t: TradeChoice): Choice {
  const price = t.priceCents === undefined ? "" : ` · ${money(t.priceCents)}`;
  return {
    name: choiceLabel(
      `${TRADE_ROLE[t.role ?? "none"]}${t.itemName ?? "trade"}`,
      `${price} · ${t.state}`,
      t.id,
    ),
    value: t.id,
  };
}

export function assetChoice(a: AssetChoice): Choice {
  const float = a.floatValue === undefined ? "" : ` · float ${a.floatValue.toFixed(4)}`;
  return { name: choiceLabel(a.itemName, float, `asset ${a.assetId}`), value: a.assetId };
}

export function auctionChoice(a: AuctionChoice, nowMs: number): Choice {
  const parts: string[] = [];
  if (a.priceCents !== undefined) parts.push(money(a.priceCents));
  if (a.endsAt !== undefined) {
    const left = Date.parse(a.endsAt) - nowMs;
    if (Number.isFinite(left)) parts.push(left > 0 ? `ends in ${compactDuration(left)}` : "ended");
  }
  if (a.ceilingCents !== undefined) parts.push(`your ceiling ${money(a.ceilingCents)}`);
  const head = a.itemName ?? (a.ceilingCents === undefined ? "Auction" : "Your bid");
  return { name: choiceLabel(head, parts.map((p) => ` · ${p}`).join(""), a.id), value: a.id };
}

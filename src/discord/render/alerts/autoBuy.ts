// Armed-rule outcome messages (snipe mode): what was bought, or would have been, and why not.
import type { APIEmbed } from "discord.js";
import type { AutoBuyAlert } from "../../../outbox/payload.ts";
import { safeUserText } from "../../../input/parse.ts";
import { embed } from "../embeds.ts";
import { money, truncate } from "../format.ts";
import type { Tone } from "../theme.ts";

const name = (text: string) => safeUserText(text, 120);

const TITLE: Record<AutoBuyAlert["outcome"], { tone: Tone; title: (item: string) => string }> = {
  would_buy: { tone: "info", title: (i) => `Shadow: would have bought ${i}` },
  would_refuse: { tone: "neutral", title: (i) => `Shadow: a cap would have refused ${i}` },
  bought: { tone: "success", title: (i) => `Bought: ${i}` },
  lost: { tone: "neutral", title: (i) => `Someone was faster: ${i}` },
  cap_refused: { tone: "warning", title: (i) => `Auto-buy refused by your cap: ${i}` },
  key_refused: { tone: "error", title: (i) => `Auto-buy stopped, key refused: ${i}` },
  unknown: { tone: "warning", title: (i) => `Auto-buy outcome not known yet: ${i}` },
  failed: { tone: "error", title: (i) => `Auto-buy did not go through: ${i}` },
};

function what(a: AutoBuyAlert): string {
  const price = money(a.priceCents);
  switch (a.outcome) {
    case "would_buy":
      return `The rule is armed in **shadow** mode: nothing was bought. Live, it would have bought this for **${price}**.`;
    case "would_refuse":
      return `The rule is armed in **shadow** mode: nothing was bought. Live, this **${price}** buy would have been refused: ${a.detail ?? "over a cap"}.`;
    case "bought":
      return `Bought for **${price}** at the listed price${a.reactionMs === undefined ? "" : `, ${a.reactionMs} ms after the feed saw it`}. The trade is in /trades list: watch for the seller's offer.`;
    case "lost":
      return `Nothing was bought (${price}): ${a.detail ?? "the listing sold first"}.`;
    case "cap_refused":
      return `Nothing was bought (${price}): ${a.detail ?? "over a cap"}`;
    case "key_refused":
      return `Nothing was bought (${price}): ${a.detail ?? "your API key was refused"}.`;
    case "unknown":
      return `We could not confirm whether the **${price}** purchase went through: ${a.detail ?? "no answer"}. Check /trades list before buying it again.`;
    case "failed":
      return `Nothing was bought (${price}): ${a.detail ?? "the marketplace refused it"}.`;
  }
}

function signed(cents: number): string {
  return money(cents, { sign: true });
}

function buysLine(a: AutoBuyAlert): string {
  const used = `${a.buyNumber} of ${a.maxBuys} ${a.mode === "shadow" ? "shadow buys" : "buys"} used`;
  return a.disarmed
    ? `${used}; the rule is now **disarmed** (it keeps alerting).`
    : `${used}; the rule stays armed.`;
}

export function autoBuyEmbed(a: AutoBuyAlert): APIEmbed {
  const { tone, title } = TITLE[a.outcome];
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "Price", value: money(a.priceCents), inline: true },
  ];
  if (a.referenceCents !== undefined)
    fields.push({ name: "Reference", value: money(a.referenceCents), inline: true });
  if (a.netResaleCents !== undefined)
    fields.push({ name: "Net at reference", value: signed(a.netResaleCents), inline: true });
  if (a.exitNetCents !== undefined)
    fields.push({ name: "Instant exit", value: signed(a.exitNetCents), inline: true });
  fields.push({ name: `Rule: ${truncate(a.ruleName, 200)}`, value: buysLine(a) });
  return embed({
    tone,
    title: truncate(title(a.itemName), 256),
    description: what(a),
    fields,
    footer: `Listing ${a.listingId} · ${a.mode === "live" ? "live" : "shadow"} · net figures after the seller fee`,
  });
}

export function autoBuyLine(a: AutoBuyAlert): string {
  const mark = a.outcome === "bought" ? "✅" : a.outcome === "would_buy" ? "👁️" : "•";
  return `${mark} ${TITLE[a.outcome].title(name(a.itemName))} — ${money(a.priceCents)} · rule ${name(a.ruleName)} · listing ${a.listingId}`;
}

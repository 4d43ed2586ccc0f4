// /automation as Discord shows it: what is on (with what the user confirmed for each), the last
// automatic actions, and the Stop everything flow. Plain data in, embeds out.
import type { APIEmbed } from "discord.js";
import type { AutomationOverview } from "../../automation/overview.ts";
import type { RecentAction } from "../../db/repos/automation.ts";
import { safeUserText } from "../../input/parse.ts";
import { embed } from "./embeds.ts";
import { money, relativeTime } from "./format.ts";

const MAX_LINES = 10;

function lines(items: readonly string[]): string {
  if (items.length === 0) return "None.";
  const shown = items.slice(0, MAX_LINES);
  return items.length > MAX_LINES
    ? [...shown, `…and ${items.length - MAX_LINES} more`].join("\n")
    : shown.join("\n");
}

const name = (s: string) => `**${safeUserText(s, 60)}**`;

function ruleLine(r: AutomationOverview["rules"][number]): string {
  if (r.mode === "shadow") {
    return `👁️ ${name(r.name)} · shadow (buys nothing) · ${r.buys} of ${r.maxBuys} recorded`;
  }
  const ceiling = r.ceilingCents === null ? "no ceiling stored" : `ceiling ${money(r.ceilingCents)}`;
  const left =
    r.budgetCents === null
      ? ""
      : ` · may spend ${money(r.budgetCents)} in all, ${money(Math.max(0, r.budgetCents - r.committedCents))} left`;
  return `🎯 ${name(r.name)} · live · ${ceiling}${left} · ${r.buys} of ${r.maxBuys} buys used`;
}

function guardLine(g: AutomationOverview["guards"][number]): string {
  const what = g.itemName === null ? g.subjectId : safeUserText(g.itemName, 60);
  return g.kind === "buy_order"
    ? `🛡️ Order ${g.subjectId} (${what}) · raised up to ${money(g.limitCents)}, ${money(g.stepCents)} a step, ${g.maxChangesPerDay} changes a day at most`
    : `🛡️ Listing ${g.subjectId} (${what}) · lowered down to ${money(g.limitCents)}, ${money(g.stepCents)} a step, ${g.maxChangesPerDay} changes a day at most`;
}

function acceptLine(a: NonNullable<AutomationOverview["autoAccept"]>): string {
  const conditions = [
    a.minPriceCents === null ? undefined : `priced at least ${money(a.minPriceCents)}`,
    a.itemContains === null ? undefined : `whose item name contains “${safeUserText(a.itemContains, 60)}”`,
  ].filter((c): c is string => c !== undefined);
  return `🤝 Sales waiting on you${conditions.length > 0 ? ` ${conditions.join(" and ")}` : ""} are accepted with no press.`;
}

const OUTCOME: Record<string, string> = {
  bought: "bought",
  would_buy: "would have bought",
  would_refuse: "would have been refused",
  lost: "someone was faster",
  cap_refused: "refused by a cap",
  key_refused: "key refused",
  unknown: "outcome being found out",
  failed: "did not go through",
  skipped: "skipped",
  pending: "in progress",
  accepted: "accepted",
  changed: "changed",
};

function recentLine(a: RecentAction): string {
  const when = relativeTime(a.at);
  const outcome = OUTCOME[a.outcome] ?? a.outcome;
  const subject = safeUserText(a.subject, 60);
  switch (a.kind) {
    case "auto_buy":
    case "shadow_buy":
      return `${when} · ${a.kind === "shadow_buy" ? "shadow " : ""}buy of ${subject}${a.amountCents === null ? "" : ` at ${money(a.amountCents)}`}: ${outcome}`;
    case "order_raised":
    case "listing_lowered":
      return `${when} · ${a.kind === "order_raised" ? "order raised" : "listing lowered"} for ${subject}: ${a.fromCents === null ? "?" : money(a.fromCents)} → ${a.amountCents === null ? "?" : money(a.amountCents)}`;
    case "auto_accept":
      return `${when} · sale ${subject} auto-accepted: ${outcome}`;
  }
}

export function automationEmbed(o: AutomationOverview): APIEmbed {
  const caps = [
    o.perPurchaseCapCents === null ? "no per-purchase cap" : `${money(o.perPurchaseCapCents)} per purchase`,
    o.dailyCapCents === null ? "no daily cap" : `${money(o.dailyCapCents)} a day`,
  ].join(", ");
  return embed({
    tone: "info",
    title: "Your automation",
    description: [
      "What the bot does for you without asking each time. Each keeps to what you confirmed when you turned it on: raising a cap or editing a rule later never lets it do more; lowering a cap narrows it at once.",
      o.linked
        ? `Caps now: ${caps}.`
        : "No marketplace account is linked: nothing live can run. Unlinking stopped what was on; it stays off until you turn it on again.",
    ].join("\n\n"),
    fields: [
      { name: "Armed rules (snipe mode)", value: lines(o.rules.map(ruleLine)) },
      { name: "Guards", value: lines(o.guards.map(guardLine)) },
      { name: "Trade auto-accept", value: o.autoAccept === null ? "Off." : acceptLine(o.autoAccept) },
      { name: "Last automatic actions", value: lines(o.recent.map(recentLine)) },
    ],
    footer: "Stop everything disarms every rule, turns every guard and auto-accept off at once.",
  });
}

// Notices about the account and the bot itself, as Discord sees them: an action's outcome found
// out later (settlement), a refused key, listings the feed could not check, the weekly report.
import type { APIEmbed } from "discord.js";
import type { FeedGapAlert, SettlementAlert, WeeklyReportAlert } from "../../../outbox/payload.ts";
import { embed } from "../embeds.ts";
import { absoluteTime, compactDuration, money, relativeTime, truncate } from "../format.ts";

const SETTLED_ACTION: Record<SettlementAlert["action"], string> = {
  buy: "purchase",
  bid: "bid",
  buy_order: "buy order",
  offer: "offer",
};

export function settlementTitle(a: SettlementAlert): string {
  const what = SETTLED_ACTION[a.action];
  switch (a.outcome) {
    case "went_through":
      return a.action === "bid" ? "Your bid won the auction" : `Your ${what} went through`;
    case "stands":
      return `Your ${what} is in place`;
    case "ended":
      return `Your ${what} no longer stands`;
    case "did_not_go_through":
      return `Your ${what} did not go through`;
  }
}

export function settlementEmbed(a: SettlementAlert): APIEmbed {
  const subject =
    a.subjectId === undefined
      ? ""
      : a.action === "buy_order"
        ? ` (order ${a.subjectId})`
        : ` (listing ${a.subjectId})`;
  const nothing = a.outcome === "did_not_go_through" || a.outcome === "ended";
  const money_ = nothing ? "Nothing was spent" : money(a.amountCents);
  return embed({
    tone: nothing ? "warning" : "success",
    title: settlementTitle(a),
    description: `The marketplace did not answer when you acted ${relativeTime(new Date(a.since))}${subject}. We checked its records: ${truncate(a.detail, 200)}. ${money_}${nothing ? "; it no longer counts against your caps." : "."}`,
    footer: "Found out from your trades, ledger and listings on the marketplace.",
  });
}

export const KEY_REVOKED_TEXT =
  "The marketplace refused your API key, so the bot stopped checking your trades, bids and buy orders. " +
  "Create a new key on the marketplace and link it again with /account link.";

/** "between <start> and <end>", as much of it as the marketplace's timestamps tell. */
export function gapWindow(a: FeedGapAlert): string {
  const after = a.after === undefined || Date.parse(a.after) <= 0 ? undefined : new Date(a.after);
  const before = a.before === undefined ? undefined : new Date(a.before);
  if (after !== undefined && before !== undefined)
    return `between ${absoluteTime(after)} and ${absoluteTime(before)}`;
  if (before !== undefined) return `before ${absoluteTime(before)}`;
  if (after !== undefined) return `after ${absoluteTime(after)}`;
  return "recently";
}

export function feedGapEmbed(a: FeedGapAlert): APIEmbed {
  const why =
    a.reason === "cursor_expired"
      ? "the marketplace lost our place while we were reading a burst of new listings"
      : "more new listings arrived than the marketplace let us read in time";
  const rules = a.ruleCount === 1 ? "Your watch rule" : `Your ${a.ruleCount} watch rules`;
  return embed({
    tone: "warning",
    title: "Some new listings were not checked",
    description: `Listings created ${gapWindow(a)} were skipped: ${why}. ${rules} may have missed a match among them. Run /watch test to see what a rule would have caught recently.`,
    footer: "Alerts for newer listings continue as usual.",
  });
}

/**
 * "This week: 14 deals alerted, 6 missed (sold before you acted, median 9 s after the alert);
 * they would have netted $123.45 at reference after fees."
 */
export function weeklyReportText(a: WeeklyReportAlert): string {
  const deals = `${a.alerted} deal${a.alerted === 1 ? "" : "s"} alerted`;
  if (a.missed === 0) return `This week: ${deals}, none missed.`;
  const median =
    a.medianGoneAfterMs === undefined
      ? ""
      : `, median ${compactDuration(a.medianGoneAfterMs)} after the alert`;
  const net =
    a.netCents > 0
      ? `; ${a.missed === 1 ? "it" : "they"} would have netted ${money(a.netCents)} at reference after fees`
      : "";
  return `This week: ${deals}, ${a.missed} missed (sold before you acted${median})${net}.`;
}

export function weeklyReportEmbed(a: WeeklyReportAlert): APIEmbed {
  return embed({
    tone: "info",
    title: "Your week of deals",
    description: weeklyReportText(a),
    footer: "Missed: gone from the market before you bought it. /alerts recent shows each one.",
  });
}

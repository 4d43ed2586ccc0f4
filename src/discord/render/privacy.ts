// Messages of /account export and /account delete: what is stored, what will go, what stopped.
import type { APIEmbed } from "discord.js";
import type { DeletePreview, DeleteResult, ErasedKind } from "../../privacy/index.ts";
import { embed } from "./embeds.ts";

const KIND_LABELS: Readonly<Record<ErasedKind | "autoAcceptSetting", string>> = {
  watchRules: "watch rules",
  seedTiers: "seed tiers",
  alerts: "alerts in the alert log",
  outbox: "messages queued or delivered",
  trackedBids: "tracked bids",
  trackedTrades: "tracked trades",
  trackedBuyOrders: "tracked buy orders",
  purchases: "purchases and spend commitments",
  drafts: "confirmations not yet pressed",
  autoBuys: "snipe-mode matches",
  autoAccepts: "trades auto-accepted",
  autoAcceptSetting: "auto-accept setting",
  guards: "guards",
  guardEvents: "guard changes",
};

/** "3 watch rules · 120 alerts in the alert log", only the kinds that have rows. */
export function countLines(counts: Readonly<Record<string, number>>): string[] {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `• ${n} ${KIND_LABELS[kind as ErasedKind] ?? kind}`);
}

export function exportEmbed(
  counts: Readonly<Record<string, number>>,
  files: number,
  compressed: boolean,
): APIEmbed {
  const shape = compressed
    ? files > 1
      ? `It is gzip-compressed and cut in ${files} parts (sent one per message): join them in order (\`cat account-export.json.gz.part* > account-export.json.gz\`), then unzip.`
      : "It is gzip-compressed: unzip it to read the JSON."
    : "It is one JSON file.";
  const rows = countLines(counts);
  return embed({
    tone: "info",
    title: "Everything stored about you",
    description: [
      `Your profile and settings, plus:`,
      ...(rows.length > 0 ? rows : ["• nothing else"]),
      "",
      shape,
      "Your key is never included: the file says only whether one is linked and its last four characters. The privacy policy (PRIVACY.md) describes every field. `/account delete` erases all of it.",
    ].join("\n"),
  });
}

export function deleteConfirmEmbed(preview: DeletePreview): APIEmbed {
  const erase = countLines(preview.erase);
  const s = preview.stop;
  const stops = [
    s.armedRules > 0 ? `• ${s.armedRules} armed watch rule(s) are disarmed: no more automatic buys` : "",
    s.activeGuards > 0 ? `• ${s.activeGuards} guard(s) stop changing your prices` : "",
    s.autoAccept ? "• trade auto-accept is turned off" : "",
    s.tracked > 0 ? `• tracking of ${s.tracked} bid(s), trade(s) and buy order(s) stops` : "",
    s.queuedAlerts > 0 ? `• ${s.queuedAlerts} alert(s) waiting to be sent are dropped` : "",
    "• every alert and reminder to you stops",
  ].filter((line) => line !== "");
  return embed({
    tone: "warning",
    title: "Delete everything the bot stores about you?",
    description: [
      "**Stops first:**",
      ...stops,
      "",
      "**Then erases, for good:**",
      `• your profile and settings (spend caps, quiet hours, alert choices)${s.keyLinked ? " and your linked marketplace key" : ""}`,
      ...erase,
      "",
      "Nothing on the marketplace itself changes: your listings, orders and trades stay there. `/account export` first if you want a copy. You can start again from nothing whenever you like.",
    ].join("\n"),
  });
}

export function deletedEmbed(result: DeleteResult): APIEmbed {
  if (!result.deleted) {
    return embed({
      tone: "info",
      description: "ℹ️ Nothing is stored about you: there was nothing to delete.",
    });
  }
  const total = Object.values(result.erased).reduce((a, b) => a + b, 0);
  const stopped = [
    result.stopped.armedRules > 0 ? `${result.stopped.armedRules} armed rule(s) disarmed` : "",
    result.stopped.guards > 0 ? `${result.stopped.guards} guard(s) turned off` : "",
    result.stopped.autoAccept ? "auto-accept turned off" : "",
  ].filter((p) => p !== "");
  return embed({
    tone: "success",
    title: "Deleted",
    description: [
      `✅ Everything stored about you is gone: your profile, settings and key, and ${total} other record(s).`,
      stopped.length > 0 ? `Stopped first: ${stopped.join(", ")}.` : "",
      "No alert or reminder will reach you from now on. Any command you use later starts you again from nothing.",
    ]
      .filter((l) => l !== "")
      .join("\n"),
  });
}

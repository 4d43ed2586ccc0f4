// What the bot's automation did, as Discord messages: a sale accepted with no press (or why not),
// and the buy-order and listing guards' digests, with a button to turn a guard off.
import { ButtonStyle, type APIEmbed } from "discord.js";
import type { AutoAcceptAlert, GuardDigestAlert, GuardDigestEntry } from "../../../outbox/payload.ts";
import { safeUserText } from "../../../input/parse.ts";
import { GUARD_ACTIONS, TRADE_ACTIONS } from "../../actions.ts";
import { button, dmIds, row } from "../button.ts";
import { embed } from "../embeds.ts";
import { absoluteTime, money, relativeTime, truncate } from "../format.ts";

const name = (text: string) => safeUserText(text, 120);

function when(deadline: string | undefined): string {
  if (deadline === undefined) return "";
  const at = new Date(deadline);
  return ` by ${absoluteTime(at)} (${relativeTime(at)})`;
}

function saleText(a: AutoAcceptAlert): string {
  const what = a.itemName === undefined ? `trade ${a.tradeId}` : name(a.itemName);
  return a.priceCents === undefined ? what : `${what} (${money(a.priceCents)})`;
}

export function autoAcceptEmbed(a: AutoAcceptAlert): APIEmbed {
  const sale = saleText(a);
  switch (a.outcome) {
    case "accepted":
      return embed({
        tone: "success",
        title: truncate(`Sale accepted automatically: ${a.itemName ?? `trade ${a.tradeId}`}`, 256),
        description: `Your auto-accept accepted the sale of ${sale}. **Send the item transfer offer on the platform${when(a.deadline)}**, or the trade is cancelled and counted against you.`,
        footer: `Trade ${a.tradeId} · turn auto-accept off with /trades autoaccept enabled:false`,
      });
    case "failed":
      return embed({
        tone: "error",
        title: truncate(`Auto-accept failed: ${a.itemName ?? `trade ${a.tradeId}`}`, 256),
        description: `The sale of ${sale} was **not** accepted: ${a.detail ?? "the marketplace refused it"}. Accept it yourself${when(a.deadline)}.`,
        footer: `Trade ${a.tradeId} · it is not tried again automatically`,
      });
    case "unknown":
      return embed({
        tone: "warning",
        title: truncate(`Auto-accept not confirmed: ${a.itemName ?? `trade ${a.tradeId}`}`, 256),
        description: `We could not confirm whether the sale of ${sale} was accepted: ${a.detail ?? "no answer"}. Check /trades view trade:${a.tradeId}${when(a.deadline)}.`,
        footer: `Trade ${a.tradeId} · the next trade check tells you its state`,
      });
  }
}

export function autoAcceptLine(a: AutoAcceptAlert): string {
  const mark = a.outcome === "accepted" ? "✅" : a.outcome === "failed" ? "❌" : "⚠️";
  const verb =
    a.outcome === "accepted"
      ? "accepted automatically"
      : a.outcome === "failed"
        ? "auto-accept failed"
        : "auto-accept not confirmed";
  return `${mark} Sale ${saleText(a)} ${verb} · trade ${a.tradeId}`;
}

function subjectOf(e: GuardDigestEntry): string {
  const thing = e.guard === "buy_order" ? `buy order ${e.subjectId}` : `listing ${e.subjectId}`;
  return e.itemName === undefined ? thing : `${thing} (${name(e.itemName)})`;
}

const LIMIT_WORD = { buy_order: "ceiling", listing: "floor" } as const;

export function guardEntryLine(e: GuardDigestEntry): string {
  const subject = subjectOf(e);
  switch (e.event) {
    case "change": {
      const rival = e.rivalCents === undefined ? "" : ` (rival at ${money(e.rivalCents)})`;
      const verb = e.guard === "buy_order" ? "raised" : "lowered";
      const note = e.detail === undefined ? "" : `; ${e.detail}`;
      return `↕️ ${subject}: ${verb} ${money(e.fromCents ?? 0)} → **${money(e.toCents ?? 0)}**${rival}${note} · ${relativeTime(new Date(e.at))}`;
    }
    case "limit":
      return `⏸️ ${subject}: ${e.detail ?? "the daily change limit is reached"} · ${relativeTime(new Date(e.at))}`;
    case "stopped":
      return `⛔ ${subject}: **stopped** at its ${LIMIT_WORD[e.guard]} of ${money(e.limitCents)}: ${e.detail ?? "it cannot go further"} · ${relativeTime(new Date(e.at))}`;
  }
}

export function guardDigestEmbed(a: GuardDigestAlert): APIEmbed {
  const lines = a.entries.map(guardEntryLine);
  if (a.omitted > 0) lines.push(`…and ${a.omitted} more.`);
  const stops = a.entries.filter((e) => e.event === "stopped").length;
  const changes = a.entries.filter((e) => e.event === "change").length;
  return embed({
    tone: stops > 0 ? "warning" : "info",
    title: `Your guards: ${changes} price change${changes === 1 ? "" : "s"}${stops > 0 ? `, ${stops} stopped` : ""}`,
    description: truncate(lines.join("\n"), 4000),
    footer: "Turn a guard off with the buttons, /buyorder guard off:true or /sell guard off:true.",
  });
}

export function guardDigestLine(a: GuardDigestAlert): string {
  return `🛡️ Guards: ${a.entries.length + a.omitted} event${a.entries.length + a.omitted === 1 ? "" : "s"}`;
}

/** The fields of a guard shown when it is set or turned off (plain data, no database types). */
export interface GuardSummary {
  kind: "buy_order" | "listing";
  subjectId: string;
  itemName: string | null;
  limitCents: number;
  stepCents: number;
  maxChangesPerDay: number;
}

const GUARD_COMMAND = { buy_order: "/buyorder guard order", listing: "/sell guard listing" } as const;

function guardSubject(g: GuardSummary): string {
  const thing = g.kind === "buy_order" ? `buy order ${g.subjectId}` : `listing ${g.subjectId}`;
  return g.itemName === null ? thing : `${thing} (${name(g.itemName)})`;
}

export function guardSetEmbed(g: GuardSummary): APIEmbed {
  const what =
    g.kind === "buy_order"
      ? `It keeps your order the highest for the same item and float range: ${money(g.stepCents)} above the best rival, never above **${money(g.limitCents)}** (your ceiling), each raise checked against your spend caps.`
      : `It keeps your listing the cheapest comparable one (same item, similar float): ${money(g.stepCents)} under the cheapest rival, never below **${money(g.limitCents)}** (your floor).`;
  return embed({
    tone: "success",
    title: truncate(`Guard on: ${guardSubject(g)}`, 256),
    description:
      `${what}\nAt most ${g.maxChangesPerDay} changes a day. Changes are DM'd in a digest; when it stops (at its ${LIMIT_WORD[g.kind]}, or for any other reason) you are told at once.\n` +
      `Turn it off with \`${GUARD_COMMAND[g.kind]}:${g.subjectId} off:true\`.`,
  });
}

export function guardOffEmbed(g: GuardSummary): APIEmbed {
  return embed({
    tone: "info",
    title: truncate(`Guard off: ${guardSubject(g)}`, 256),
    description: "Its price is left where the guard last put it; nothing more is changed.",
  });
}

/**
 * The DM of an automation outcome. Its buttons never expire (alert buttons live on delivered
 * DMs): Accept on a sale still waiting on the seller, Turn off guard per guard still running.
 */
export function automationMessage(
  alert: AutoAcceptAlert | GuardDigestAlert,
  ownerId: string,
): { embeds: APIEmbed[]; components: ReturnType<typeof row> } {
  const id = dmIds(ownerId);
  if (alert.kind === "auto_accept") {
    const buttons =
      alert.outcome === "accepted"
        ? []
        : [button("Accept", ButtonStyle.Success, id(TRADE_ACTIONS.accept, alert.tradeId))];
    return { embeds: [autoAcceptEmbed(alert)], components: row(buttons) };
  }
  const buttons = alert.activeGuardIds.slice(0, 5).map((guardId) => {
    const e = alert.entries.find((x) => x.guardId === guardId);
    const label = e === undefined ? `Turn off guard ${guardId}` : `Turn off guard on ${e.subjectId}`;
    return button(truncate(label, 80), ButtonStyle.Danger, id(GUARD_ACTIONS.off, guardId));
  });
  return { embeds: [guardDigestEmbed(alert)], components: row(buttons) };
}

// Alert messages as Discord sees them: one embed per alert kind, with buttons whose custom ids belong to the alert's user.
import { ButtonStyle, type APIEmbed } from "discord.js";
import { listingAlertLine, listingEmbed } from "./listingAlert.ts";
import type {
  AlertContent,
  AuctionEndedAlert,
  BuyOrderFillAlert,
  DigestAlert,
  OutbidAlert,
  SingleAlert,
  TradeAlert,
} from "../../../outbox/payload.ts";
import { safeUserText } from "../../../input/parse.ts";
import { ALERT_ACTIONS, BID_ACTIONS, BUY_ACTIONS, TRADE_ACTIONS, WATCH_ACTIONS } from "../../actions.ts";
import { button, dmIds, row, type ActionRow } from "../button.ts";
import { autoBuyEmbed, autoBuyLine } from "./autoBuy.ts";
import { autoAcceptLine, automationMessage, guardDigestLine } from "./automation.ts";
import { reversalEmbed, reversalLine } from "./reversal.ts";
import { ADVANCED_ORDER, expressionCode, orderTarget } from "../buyOrders.ts";
import { embed } from "../embeds.ts";
import {
  feedGapEmbed,
  gapWindow,
  KEY_REVOKED_TEXT,
  settlementEmbed,
  settlementTitle,
  weeklyReportEmbed,
  weeklyReportText,
} from "./notices.ts";
import { money, relativeTime, truncate } from "../format.ts";

export interface RenderedAlert {
  content?: string;
  embeds: APIEmbed[];
  components: ActionRow[];
}

const name = (text: string) => safeUserText(text, 120);

/** An advanced order's expression in a fill alert; in a digest line, shorter (ten lines share one embed). */
const FILL_EXPRESSION_MAX = 1000;
const LINE_EXPRESSION_MAX = 100;

function outbidEmbed(a: OutbidAlert): APIEmbed {
  const fields = [
    { name: "Top bid now", value: money(a.topBidCents), inline: true },
    { name: "Your ceiling", value: money(a.yourMaxCents), inline: true },
  ];
  if (a.minNextBidCents !== undefined)
    fields.push({ name: "Next bid from", value: money(a.minNextBidCents), inline: true });
  if (a.expiresAt !== undefined)
    fields.push({ name: "Time left", value: `ends ${relativeTime(new Date(a.expiresAt))}`, inline: true });
  return embed({
    tone: "warning",
    title: truncate(`Outbid: ${a.itemName}`, 256),
    fields,
    footer: `Listing ${a.listingId}`,
  });
}

function auctionEndedEmbed(a: AuctionEndedAlert): APIEmbed {
  const won = a.outcome === "won";
  return embed({
    tone: won ? "success" : "neutral",
    title: truncate(`${won ? "You won" : "Auction lost"}: ${a.itemName}`, 256),
    description: won
      ? `The auction ended with your bid on top${a.finalPriceCents === undefined ? "" : ` at ${money(a.finalPriceCents)}`}. A trade follows; watch for it here.`
      : `The auction ended${a.finalPriceCents === undefined ? " without your bid on top" : ` at ${money(a.finalPriceCents)}, above your ceiling of ${money(a.yourMaxCents)}`}.`,
    footer: `Listing ${a.listingId}`,
  });
}

const TRADE_STATE_TEXT: Record<string, string> = {
  queued: "waiting to be accepted",
  pending: "accepted: waiting for the item transfer",
  verified: "complete",
  failed: "failed",
  cancelled: "cancelled",
};

function tradeEmbed(a: TradeAlert): APIEmbed {
  const item = a.itemName === undefined ? `Trade ${a.tradeId}` : a.itemName;
  const stateText = TRADE_STATE_TEXT[a.state] ?? a.state;
  let title: string;
  let description: string;
  if (a.reminderMinutes !== undefined) {
    title = `Reminder: ${item}`;
    description =
      a.state === "queued"
        ? "This sale still waits for you to accept it."
        : "Send the item transfer offer before the deadline, or the trade is cancelled and counted against you.";
  } else if (a.role === "seller" && a.state === "queued") {
    title = `Sold: ${item}`;
    description = "A buyer bought your item. Accept the trade, then send the transfer offer on the platform.";
  } else if (a.role === "seller" && a.state === "pending") {
    title = `Send the item: ${item}`;
    description = "The trade is accepted. Send the transfer offer on the platform before the deadline.";
  } else {
    title = `Trade ${stateText}: ${item}`;
    description =
      a.previousState === undefined
        ? `Your trade is ${stateText}.`
        : `Your trade went from ${TRADE_STATE_TEXT[a.previousState] ?? a.previousState} to ${stateText}.`;
  }
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "You are", value: a.role, inline: true },
  ];
  if (a.priceCents !== undefined) fields.push({ name: "Price", value: money(a.priceCents), inline: true });
  if (a.deadline !== undefined)
    fields.push({ name: "Deadline", value: relativeTime(new Date(a.deadline)), inline: true });
  return embed({
    tone:
      a.state === "failed" || a.state === "cancelled"
        ? "error"
        : a.reminderMinutes !== undefined
          ? "warning"
          : "trade",
    title: truncate(title, 256),
    description,
    fields,
    footer: `Trade ${a.tradeId}`,
  });
}

function buyOrderEmbed(a: BuyOrderFillAlert): APIEmbed {
  const target = a.expression !== undefined ? ADVANCED_ORDER : (a.itemName ?? `order ${a.orderId}`);
  const what =
    a.expression === undefined ? "" : `\nExpression: ${expressionCode(a.expression, FILL_EXPRESSION_MAX)}`;
  return embed({
    tone: "success",
    title: truncate(`Buy order filled: ${target}`, 256),
    description: `${a.newlyBought} bought at up to ${money(a.priceCents)} each (${a.boughtCount} of ${a.quantity} so far). The seller${a.newlyBought > 1 ? "s" : ""} now send${a.newlyBought > 1 ? "" : "s"} the item.${what}`,
    footer: `Buy order ${a.orderId}`,
  });
}

/** One line per alert: the digest's lines, and /alerts recent. */
export function alertLine(a: SingleAlert): string {
  switch (a.kind) {
    case "listing":
      return listingAlertLine(a);
    case "outbid":
      return `⚠️ Outbid on ${name(a.itemName)}: top bid ${money(a.topBidCents)} (your ceiling ${money(a.yourMaxCents)}) · listing ${a.listingId}`;
    case "auction_ended":
      return `${a.outcome === "won" ? "✅ Won" : "• Lost"} ${name(a.itemName)} · listing ${a.listingId}`;
    case "trade":
      return `🤝 Trade ${a.tradeId}${a.itemName === undefined ? "" : ` (${name(a.itemName)})`}: ${TRADE_STATE_TEXT[a.state] ?? a.state}${a.deadline === undefined ? "" : `, deadline ${relativeTime(new Date(a.deadline))}`}`;
    case "buy_order_fill":
      return `✅ Buy order ${orderTarget(a, LINE_EXPRESSION_MAX)}: ${a.boughtCount} of ${a.quantity} bought`;
    case "key_revoked":
      return "❌ Your API key was refused; link a new one with /account link.";
    case "settlement":
      return `${a.outcome === "did_not_go_through" || a.outcome === "ended" ? "•" : "✅"} ${settlementTitle(a)}${a.subjectId === undefined ? "" : ` · ${a.subjectId}`}`;
    case "feed_gap":
      return `⚠️ Some new listings ${gapWindow(a)} were not checked; your rules may have missed a match.`;
    case "weekly_report":
      return `📊 ${weeklyReportText(a)}`;
    case "auto_buy":
      return autoBuyLine(a);
    case "auto_accept":
      return autoAcceptLine(a);
    case "guard_digest":
      return guardDigestLine(a);
    case "reversal":
      return reversalLine(a);
  }
}

function digestEmbed(a: DigestAlert): APIEmbed {
  const total = a.items.length + a.omitted;
  const lines = a.items.map(alertLine);
  if (a.omitted > 0) lines.push(`…and ${a.omitted} more.`);
  return embed({
    tone: "info",
    title: `While you were away: ${total} alert${total === 1 ? "" : "s"}`,
    description: truncate(lines.join("\n"), 4000),
    footer: "Held during your quiet hours. Listings may have sold since.",
  });
}

/**
 * The Discord message for an alert; buttons are for `ownerId` alone and never expire: Buy starts
 * /buy's confirmation, Bid and Raise bid open /bid's ceiling form, Accept and Cancel run /trades'
 * flows, View is /alerts', Watch similar and Disarm are /watch's.
 */
export function renderAlert(alert: AlertContent, ownerId: string): RenderedAlert {
  const id = dmIds(ownerId);
  switch (alert.kind) {
    case "listing": {
      const buttons = [
        alert.listingType === "auction"
          ? button("Bid", ButtonStyle.Primary, id(BID_ACTIONS.open, alert.listingId))
          : button("Buy", ButtonStyle.Success, id(BUY_ACTIONS.start, alert.listingId)),
        button("View", ButtonStyle.Secondary, id(ALERT_ACTIONS.view, alert.listingId)),
        button("Watch similar", ButtonStyle.Secondary, id(WATCH_ACTIONS.similar, alert.listingId)),
      ];
      return { embeds: [listingEmbed(alert)], components: row(buttons) };
    }
    case "outbid":
      return {
        embeds: [outbidEmbed(alert)],
        components: row([
          button("Raise bid", ButtonStyle.Primary, id(BID_ACTIONS.open, alert.listingId)),
          button("View", ButtonStyle.Secondary, id(ALERT_ACTIONS.view, alert.listingId)),
        ]),
      };
    case "auction_ended":
      return { embeds: [auctionEndedEmbed(alert)], components: [] };
    case "trade": {
      // Accepting is the seller's move on a queued trade; cancelling is open to both while open.
      const buttons = [];
      if (alert.role === "seller" && alert.state === "queued") {
        buttons.push(button("Accept", ButtonStyle.Success, id(TRADE_ACTIONS.accept, alert.tradeId)));
      }
      if (alert.state === "queued" || alert.state === "pending") {
        buttons.push(button("Cancel trade", ButtonStyle.Danger, id(TRADE_ACTIONS.cancel, alert.tradeId)));
      }
      return { embeds: [tradeEmbed(alert)], components: row(buttons) };
    }
    case "buy_order_fill":
      return { embeds: [buyOrderEmbed(alert)], components: [] };
    case "key_revoked":
      return {
        embeds: [
          embed({
            tone: "error",
            title: "Your API key was refused",
            description:
              alert.stopped === undefined
                ? KEY_REVOKED_TEXT
                : `${KEY_REVOKED_TEXT}\n\nAutomation stopped: ${alert.stopped}. It stays off after you link again, until you turn it on again.`,
          }),
        ],
        components: [],
      };
    case "settlement":
      return { embeds: [settlementEmbed(alert)], components: [] };
    case "feed_gap":
      return { embeds: [feedGapEmbed(alert)], components: [] };
    case "weekly_report":
      return { embeds: [weeklyReportEmbed(alert)], components: [] };
    case "auto_buy": {
      const buttons = [button("View", ButtonStyle.Secondary, id(ALERT_ACTIONS.view, alert.listingId))];
      if (!alert.disarmed)
        buttons.push(button("Disarm", ButtonStyle.Danger, id(WATCH_ACTIONS.disarm, alert.ruleId)));
      return { embeds: [autoBuyEmbed(alert)], components: row(buttons) };
    }
    case "auto_accept":
    case "guard_digest":
      return automationMessage(alert, ownerId);
    case "reversal":
      return { embeds: [reversalEmbed(alert)], components: [] };
    case "digest":
      return { embeds: [digestEmbed(alert)], components: [] };
  }
}

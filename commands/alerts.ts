// /alerts recent (every alert, delivered or not) and the View button of alert messages.
import { ApplicationCommandOptionType } from "discord.js";
import { viewListing, type RecentAlert } from "../src/outbox/actions.ts";
import { GONE } from "../src/feed/listingFates.ts";
import { defineCommand } from "../src/discord/command.ts";
import { embed, notice } from "../src/discord/render/embeds.ts";
import { ALERT_ACTIONS } from "../src/discord/actions.ts";
import { alertLine } from "../src/discord/render/alerts/alerts.ts";
import { compactDuration, money, relativeTime, truncate } from "../src/discord/render/format.ts";
import { safeUserText } from "../src/input/parse.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

/** " · sold 4 s after your alert", " · you bought it", or nothing while the listing is still out there. */
function fateText(a: RecentAlert): string {
  if (a.bought === true) return " · **you bought it**";
  if (a.fate === undefined) return "";
  const when = `${compactDuration(a.fate.afterMs)} after your alert`;
  return a.fate.state === GONE ? ` · gone ${when} (sold or delisted)` : ` · ${a.fate.state} ${when}`;
}

export const command = defineCommand({
  definition: {
    name: "alerts",
    description: "Your latest alerts, delivered or not (closed DMs, quiet hours)",
    ...EVERYWHERE,
    options: [
      {
        name: "recent",
        description: "Show your latest alerts",
        type: ApplicationCommandOptionType.Subcommand,
      },
    ],
  },
  subcommands: {
    recent: {
      defer: "ephemeral",
      async run(ctx) {
        const { alerts, dmClosed } = await ctx.deps.alerts.recent({ discordId: ctx.user.id, limit: 15 });
        if (alerts.length === 0) {
          return {
            ephemeral: true,
            embeds: [notice("info", "No alerts yet. `/watch add` sets up listing alerts.")],
          };
        }
        const lines = alerts.map((a) => {
          const what = a.alert ? alertLine(a.alert) : `${a.kind.replace("_", " ")} ${a.subjectId}`.trim();
          const state =
            a.delivery === "sent" ? "" : ` _(${a.delivery === "digest" ? "in a digest" : a.delivery})_`;
          return `${relativeTime(a.at)} ${what}${state}${fateText(a)}`;
        });
        const footer = dmClosed
          ? "Your DMs were closed to the bot: open them to get alerts as they happen."
          : undefined;
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: "info",
              title: "Your latest alerts",
              description: truncate(lines.join("\n"), 4000),
              ...(footer === undefined ? {} : { footer }),
            }),
          ],
        };
      },
    },
  },
  components: {
    [ALERT_ACTIONS.view]: {
      defer: "ephemeral",
      async run(ctx) {
        const market = await ctx.deps.reads.forUser(ctx.user.id);
        const l = await viewListing({ market }, { listingId: ctx.id.subject });
        const fields = [
          { name: "Price", value: money(l.priceCents), inline: true },
          { name: "State", value: l.state, inline: true },
        ];
        if (l.floatValue !== undefined)
          fields.push({ name: "Float", value: l.floatValue.toFixed(6), inline: true });
        if (l.paintSeed !== undefined)
          fields.push({ name: "Seed", value: String(l.paintSeed), inline: true });
        if (l.referencePriceCents !== undefined)
          fields.push({ name: "Reference", value: money(l.referencePriceCents), inline: true });
        if (l.auction?.topBidCents !== undefined)
          fields.push({ name: "Top bid", value: money(l.auction.topBidCents), inline: true });
        if (l.auction?.expiresAt !== undefined)
          fields.push({ name: "Ends", value: relativeTime(l.auction.expiresAt), inline: true });
        if (l.sellerName !== undefined)
          fields.push({ name: "Seller", value: safeUserText(l.sellerName, 60), inline: true });
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: l.state === "listed" ? "info" : "neutral",
              title: truncate(l.itemName, 256),
              fields,
              footer: `Listing ${l.listingId}${l.state === "listed" ? "" : " · no longer for sale"}`,
            }),
          ],
        };
      },
    },
  },
});

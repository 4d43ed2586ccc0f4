// /history: an item's daily average price as a chart (PNG attachment), the numbers that matter
// beside it, and the most recent individual sales.
import { ApplicationCommandOptionType, AttachmentBuilder } from "discord.js";
import type * as Charts from "../src/charts/priceHistory.ts";
import { defineCommand } from "../src/discord/command.ts";
import { embed } from "../src/discord/render/embeds.ts";
import { money, truncate } from "../src/discord/render/format.ts";
import { formatFloat, itemName } from "../src/discord/render/listing.ts";
import { UserFacingError } from "../src/errors.ts";
import { parseIntOption, parseText } from "../src/input/parse.ts";
import type { HistoryPoint } from "../src/market/schemas.ts";
import { priceHistory, type PriceHistory } from "../src/trading/history.ts";
import { suggestItemNames } from "./search.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

const CHART_FILE = "price-history.png";

/**
 * The chart renderer (a native canvas and chart.js: ~20 MB resident) loads on the first /history,
 * not at start: most processes never draw a chart (bench/README.md, memory).
 */
let charts: Promise<typeof Charts> | undefined;
const loadCharts = () => (charts ??= import("../src/charts/priceHistory.ts"));

export const command = defineCommand({
  definition: {
    name: "history",
    description: "Price history of an item: chart, summary and recent sales",
    ...EVERYWHERE,
    options: [
      {
        name: "item",
        description: "Full market name of the item",
        type: ApplicationCommandOptionType.String,
        required: true,
        autocomplete: true,
        max_length: 200,
      },
      {
        name: "paint_index",
        description: "Only this paint (finish) index, for items sold in several",
        type: ApplicationCommandOptionType.Integer,
        min_value: 0,
        max_value: 1_000_000,
      },
    ],
  },
  autocomplete: suggestItemNames,
  execute: {
    // Market data, worth sharing: the chart is posted in the channel.
    defer: "public",
    validate: (ctx) => void historyQuery(ctx.options.string("item"), ctx.options.integer("paint_index")),
    async run(ctx) {
      const { item, paintIndex } = historyQuery(
        ctx.options.string("item"),
        ctx.options.integer("paint_index"),
      );
      const market = await ctx.deps.reads.forUser(ctx.user.id);
      const history = await priceHistory(
        { market, logger: ctx.log, now: ctx.deps.now },
        { itemName: item, paintIndex },
      );
      if (history.points.length === 0 && history.salesUnavailable) {
        // Nothing to draw, and the sales that might exist could not be read: not "never sold".
        throw new UserFacingError(
          "upstream",
          `The marketplace has no daily prices for “${itemName(item, 100)}”${paintIndex === undefined ? "" : ` with paint index ${paintIndex}`}, and its recent sales could not be loaded right now. Try again in a minute.`,
          { item },
        );
      }
      if (history.points.length === 0 && history.recentSales.length === 0) {
        throw new UserFacingError(
          "not_found",
          `No sales are recorded for “${itemName(item, 100)}”${paintIndex === undefined ? "" : ` with paint index ${paintIndex}`}. Check the item's full market name: autocomplete suggests names.`,
          { item },
        );
      }
      ctx.deps.itemNames.remember([history.itemName]);
      const { renderPriceHistoryPng, summarizeHistory } = await loadCharts();
      const png = await renderPriceHistoryPng({
        name: history.itemName,
        points: toChartPoints(history),
        sales: history.recentSales.flatMap((s) =>
          s.soldAt ? [{ price: s.priceCents, soldAt: s.soldAt.toISOString() }] : [],
        ),
      });
      return {
        embeds: [historyEmbed(history, summarizeHistory(toChartPoints(history)))],
        files: [
          new AttachmentBuilder(png, {
            name: CHART_FILE,
            description: `Daily average price of ${truncate(history.itemName, 200)}`,
          }),
        ],
      };
    },
  },
});

function toChartPoints(history: PriceHistory): HistoryPoint[] {
  return history.points.map((p) => ({ day: p.day, count: p.sales, avg_price: p.avgPriceCents }));
}

function historyEmbed(history: PriceHistory, summary: Charts.HistorySummary) {
  const cents = (v: number | undefined) => (v === undefined ? "—" : money(Math.round(v)));
  const change = summary.change7dPercent;
  const changeText =
    change === undefined
      ? "—"
      : change === 0
        ? "0.0%"
        : `${change > 0 ? "▲" : "▼"} ${Math.abs(change).toFixed(1)}%`;
  const fields = [
    { name: "Last", value: cents(summary.last), inline: true },
    { name: "Min", value: cents(summary.min), inline: true },
    { name: "Max", value: cents(summary.max), inline: true },
    { name: "7-day change", value: changeText, inline: true },
    { name: "Sales", value: String(summary.totalSales), inline: true },
    { name: "Days", value: String(history.points.length), inline: true },
  ];
  const sales = history.recentSales.map((s) => {
    const bits = [`**${money(s.priceCents)}**`];
    if (s.floatValue !== undefined) bits.push(formatFloat(s.floatValue));
    if (s.soldAt) bits.push(`<t:${Math.floor(s.soldAt.getTime() / 1000)}:d>`);
    return bits.join(" · ");
  });
  fields.push({
    name: "Recent sales",
    value:
      sales.length > 0
        ? sales.join("\n")
        : history.salesUnavailable
          ? "The marketplace did not return recent sales right now; the graph above is up to date."
          : "None recorded.",
    inline: false,
  });
  const scope = history.paintIndex === undefined ? "" : ` · paint index ${history.paintIndex}`;
  return embed({
    tone: "info",
    title: truncate(`Price history: ${history.itemName}`, 256),
    fields,
    imageUrl: `attachment://${CHART_FILE}`,
    footer: `Daily averages${scope} · prices in USD`,
  });
}

/** The /history options, validated (throws a message naming the option). */
function historyQuery(rawItem: string, rawIndex: number | undefined) {
  const item = parseText("item", rawItem, 200);
  const paintIndex =
    rawIndex === undefined ? undefined : parseIntOption("paint_index", rawIndex, 0, 1_000_000);
  return { item, paintIndex };
}

// /portfolio: profit and loss after fees from the balance ledger, by period and item, open positions
// at the reference price, a CSV export, a cumulative P&L chart, and how the figures are worked out.
import { ApplicationCommandOptionType, AttachmentBuilder } from "discord.js";
import type * as PnlChart from "../src/charts/pnl.ts";
import { PORTFOLIO_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext } from "../src/discord/command.ts";
import { numberedPaging } from "../src/discord/pager.ts";
import { EVERYWHERE } from "../src/discord/install.ts";
import { embed } from "../src/discord/render/embeds.ts";
import { money } from "../src/discord/render/format.ts";
import { PORTFOLIO_PAGE_SIZE, portfolioMessage } from "../src/discord/render/portfolio.ts";
import type { Reply } from "../src/discord/reply.ts";
import { invalidOption, UserFacingError } from "../src/errors.ts";
import { parseIntOption } from "../src/input/parse.ts";
import { portfolioCsv } from "../src/portfolio/csv.ts";
import type { Portfolio } from "../src/portfolio/readPortfolio.ts";
import { PERIOD_LABEL, PERIODS, type Period } from "../src/portfolio/summary.ts";

const PAGE_TTL_MS = 30 * 60_000;
const MAX_PAGE = 100;

/** The chart renderer (native canvas) loads on the first chart, as /history's does. */
let charts: Promise<typeof PnlChart> | undefined;
const loadCharts = () => (charts ??= import("../src/charts/pnl.ts"));

/** Shown by /portfolio method; the README's "Portfolio" section says the same. */
export const PNL_METHOD = [
  "**How /portfolio works out profit and loss** (all from your marketplace ledger, `GET /me/transactions`):",
  "• **Purchase** (`contract_purchased`): the item becomes an open position at what you paid. Not a loss.",
  "• **Sale** (`contract_sold`): profit = what the ledger credits you (already net of the marketplace fee; the fee is shown as `fee_amount`) less the cost of your **oldest unsold purchase of the same item** (first in, first out). A sale of an item the ledger shows no purchase of has no known cost: it is listed apart and left out of the P&L.",
  "• **Refunds** (`contract_purchase_refund`, `contract_sale_refund`): a refunded purchase leaves your positions; a refunded sale is undone on the day of the refund and its item is yours again.",
  "• **Reversals** (`rollback` naming a trade, or moving money in or out): a reversed sale is undone on the day of the reversal (that period takes the loss; earlier periods keep their figures); a reversed purchase leaves your positions. A `rollback` that only releases a bid hold is not profit or loss.",
  "• **Fines** count as a loss. Deposits, withdrawals, bid holds and `trade_verified` (proceeds leaving pending) are money moving, not profit.",
  "• **Periods**: today (since midnight UTC), the last 7 or 30 days, or all time: events dated in the period.",
  "• **Open positions** are valued at the item's current reference price after the seller fee: an **estimate**, not a price anyone offered.",
  "Only the newest 2,000 ledger entries are read; older purchases then have no known cost.",
].join("\n");

const periodOption = {
  name: "period",
  description: "Today, the last 7 or 30 days, or all time (default 30 days)",
  type: ApplicationCommandOptionType.String,
  choices: PERIODS.map((p) => ({ name: PERIOD_LABEL[p], value: p })),
} as const;
const itemOption = {
  name: "item",
  description: "Only this item (full market name)",
  type: ApplicationCommandOptionType.String,
  max_length: 200,
} as const;

function parsePeriod(raw: string | undefined): Period {
  if (raw === undefined) return "30d";
  const found = PERIODS.find((p) => p === raw);
  if (found === undefined) throw invalidOption("period", `choose one of ${PERIODS.join(", ")}`);
  return found;
}

function parseItem(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const item = raw.trim();
  // eslint-disable-next-line no-control-regex -- control characters are never part of a name
  if (item.length === 0 || item.length > 200 || /[\u0000-\u001f]/.test(item))
    throw invalidOption("item", "give an item's full market name, as the marketplace shows it");
  return item;
}

/** Page buttons reuse the snapshot their command read (src/portfolio/service.ts); commands always read afresh. */
function portfolioOf(
  ctx: BaseContext,
  period: Period,
  item: string | undefined,
  reuse = false,
): Promise<Portfolio> {
  return ctx.deps.portfolio.read(ctx.user.id, { period, item, reuse });
}

async function summaryReply(
  ctx: BaseContext,
  period: Period,
  page: number,
  item: string | undefined,
  reuse = false,
): Promise<Reply> {
  const p = await portfolioOf(ctx, period, item, reuse);
  const hasMore = (page + 1) * PORTFOLIO_PAGE_SIZE < p.summary.items.length;
  // With an item the view is one row: page buttons would have to carry the name (too long for an id).
  const id = (n: number) => ctx.customId(PORTFOLIO_ACTIONS.page, `${period}.${n}`, { ttlMs: PAGE_TTL_MS });
  return {
    ephemeral: true,
    ...portfolioMessage(p, { page, paging: numberedPaging(page, item === undefined && hasMore, id) }),
  };
}

export const command = defineCommand({
  definition: {
    name: "portfolio",
    description: "Your profit and loss after fees, open positions, CSV export and chart",
    ...EVERYWHERE,
    options: [
      {
        name: "summary",
        description: "Profit and loss after fees by period and item, and open positions",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          periodOption,
          itemOption,
          {
            name: "page",
            description: "Page of the item list (1 is the most profitable)",
            type: ApplicationCommandOptionType.Integer,
            min_value: 1,
            max_value: MAX_PAGE,
          },
        ],
      },
      {
        name: "export",
        description: "The period's profit and loss, line by line, as a CSV file",
        type: ApplicationCommandOptionType.Subcommand,
        options: [periodOption, itemOption],
      },
      {
        name: "chart",
        description: "Cumulative profit and loss over the period as a chart",
        type: ApplicationCommandOptionType.Subcommand,
        options: [periodOption, itemOption],
      },
      {
        name: "method",
        description: "How profit and loss is worked out from your ledger, and what is an estimate",
        type: ApplicationCommandOptionType.Subcommand,
      },
    ],
  },
  subcommands: {
    summary: {
      defer: "ephemeral",
      validate: (ctx) =>
        void (parsePeriod(ctx.options.string("period")), parseItem(ctx.options.string("item"))),
      run(ctx) {
        const raw = ctx.options.integer("page");
        const page = raw === undefined ? 0 : parseIntOption("page", raw, 1, MAX_PAGE) - 1;
        return summaryReply(
          ctx,
          parsePeriod(ctx.options.string("period")),
          page,
          parseItem(ctx.options.string("item")),
        );
      },
    },
    export: {
      defer: "ephemeral",
      validate: (ctx) =>
        void (parsePeriod(ctx.options.string("period")), parseItem(ctx.options.string("item"))),
      async run(ctx) {
        const period = parsePeriod(ctx.options.string("period"));
        const p = await portfolioOf(ctx, period, parseItem(ctx.options.string("item")));
        const csv = portfolioCsv(p.summary, p.positions);
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: "info",
              title: `Portfolio export · ${PERIOD_LABEL[period]}`,
              description: `${p.summary.events.length} P&L lines and ${p.positions.length} open positions, in US dollars. Open positions are estimates at the reference price.`,
            }),
          ],
          files: [new AttachmentBuilder(Buffer.from(csv, "utf8"), { name: `portfolio-${period}.csv` })],
        };
      },
    },
    chart: {
      defer: "ephemeral",
      validate: (ctx) =>
        void (parsePeriod(ctx.options.string("period")), parseItem(ctx.options.string("item"))),
      async run(ctx) {
        const period = parsePeriod(ctx.options.string("period"));
        const item = parseItem(ctx.options.string("item"));
        const p = await portfolioOf(ctx, period, item);
        const { renderPnlPng } = await loadCharts();
        const title = `Cumulative P&L after fees · ${PERIOD_LABEL[period]}${p.item ? ` · ${p.item}` : ""}`;
        const png = await renderPnlPng({ title, series: p.summary.series });
        return {
          ephemeral: true,
          embeds: [
            embed({
              tone: p.summary.pnlCents < 0 ? "warning" : "success",
              title: title.slice(0, 256),
              description: `P&L after fees: **${money(p.summary.pnlCents, { sign: true })}** over ${p.summary.series.length} events.`,
              imageUrl: "attachment://portfolio-pnl.png",
            }),
          ],
          files: [
            new AttachmentBuilder(png, { name: "portfolio-pnl.png", description: title.slice(0, 200) }),
          ],
        };
      },
    },
    method: {
      defer: false,
      async run() {
        return {
          ephemeral: true,
          embeds: [embed({ tone: "info", title: "Portfolio: the method", description: PNL_METHOD })],
        };
      },
    },
  },
  components: {
    [PORTFOLIO_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const m = /^([a-z0-9]+)\.(\d{1,3})$/.exec(ctx.id.subject);
        if (!m?.[1] || !m[2])
          throw new UserFacingError("invalid_input", "This button is damaged; run /portfolio summary again.");
        const { embeds, components } = await summaryReply(
          ctx,
          parsePeriod(m[1]),
          Number(m[2]),
          undefined,
          true,
        );
        await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
      },
    },
  },
});

// /trades: the trades that follow a sale. List (with Accept, Accept all and an "open" menu), view,
// accept (seller of a queued trade), cancel (after a confirmation). The Accept and Cancel trade
// buttons of trade alerts (TRADE_ACTIONS.accept/cancel) run the same flows. Trade tokens and
// URLs never reach this module: the verbs return TradeViews.
import { ApplicationCommandOptionType, ButtonStyle } from "discord.js";
import { TRADE_ACTIONS } from "../src/discord/actions.ts";
import {
  defineCommand,
  type AutocompleteContext,
  type BaseContext,
  type Choice,
} from "../src/discord/command.ts";
import { numberedPaging } from "../src/discord/pager.ts";
import { embed, notice } from "../src/discord/render/embeds.ts";
import {
  canCancel,
  roleIn,
  tradeButtons,
  tradeEmbed,
  tradeOutcomesEmbed,
  tradesPageMessage,
  tradeStateText,
  type TradeRole,
} from "../src/discord/render/trades.ts";
import { button, row } from "../src/discord/render/button.ts";
import { tradeChoice } from "../src/discord/render/choices.ts";
import type { Reply } from "../src/discord/reply.ts";
import { userChoices } from "../src/discord/suggest.ts";
import { linkedTrader } from "../src/discord/trader.ts";
import { invalidOption, UserFacingError } from "../src/errors.ts";
import { parseId } from "../src/input/parse.ts";
import { TRADE_STATES } from "../src/market/schemas.ts";
import { fitsTyped, tradeChoices } from "../src/trading/suggestions.ts";
import {
  acceptTrade,
  acceptAll,
  cancelTrade,
  listTrades,
  viewTrade,
  type TradeStateName,
} from "../src/trading/trades.ts";
import type { TradeView } from "../src/trading/views.ts";
import { AUTO_ACCEPT_SUBCOMMAND, runAutoAccept } from "./trades/autoAccept.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

/** Cancelling is final: the confirmation is short-lived. */
const CONFIRM_TTL_MS = 2 * 60_000;
/** Buttons on lists and views: a trade's accept window is hours long. */
const BUTTON_TTL_MS = 60 * 60_000;

type RoleFilter = "buyer" | "seller";
interface ListFilter {
  readonly role: RoleFilter | undefined;
  readonly state: TradeStateName | undefined;
}

const ROLE_CHOICES: { name: string; value: RoleFilter }[] = [
  { name: "Buying", value: "buyer" },
  { name: "Selling", value: "seller" },
];
const STATE_NAMES: Readonly<Record<TradeStateName, string>> = {
  queued: "Queued: waiting for the seller to accept",
  pending: "Pending: waiting for the item transfer",
  verified: "Verified: complete",
  failed: "Failed",
  cancelled: "Cancelled",
};
const STATE_CHOICES = TRADE_STATES.map((s) => ({ name: STATE_NAMES[s], value: s }));

function parseRole(raw: string | undefined): RoleFilter | undefined {
  if (raw === undefined) return undefined;
  if (raw === "buyer" || raw === "seller") return raw;
  throw invalidOption("role", "choose buyer or seller");
}

function parseState(raw: string | undefined): TradeStateName | undefined {
  if (raw === undefined) return undefined;
  const found = TRADE_STATES.find((s) => s === raw);
  if (found === undefined) throw invalidOption("state", `choose one of ${TRADE_STATES.join(", ")}`);
  return found;
}

/** Page buttons carry "<page>.<role|any>.<state|any>". */
function pageSubject(page: number, f: ListFilter): string {
  return `${page}.${f.role ?? "any"}.${f.state ?? "any"}`;
}

function fromPageSubject(subject: string): { page: number; filter: ListFilter } {
  const m = /^(\d{1,4})\.([a-z]+)\.([a-z]+)$/.exec(subject);
  if (!m?.[1] || !m[2] || !m[3])
    throw new UserFacingError("invalid_input", "This button is damaged; run /trades list again.");
  return {
    page: Number(m[1]),
    filter: {
      role: m[2] === "any" ? undefined : parseRole(m[2]),
      state: m[3] === "any" ? undefined : parseState(m[3]),
    },
  };
}

function filterText(f: ListFilter): string {
  const parts = [f.role === "seller" ? "selling" : f.role === "buyer" ? "buying" : "all trades"];
  if (f.state) parts.push(f.state);
  return parts.join(", ");
}

function tradeIds(ctx: BaseContext) {
  return {
    acceptId: (id: string) => ctx.customId(TRADE_ACTIONS.accept, id, { ttlMs: BUTTON_TTL_MS }),
    cancelId: (id: string) => ctx.customId(TRADE_ACTIONS.cancel, id, { ttlMs: BUTTON_TTL_MS }),
  };
}

async function listReply(ctx: BaseContext, page: number, filter: ListFilter): Promise<Reply> {
  const trader = await linkedTrader(ctx);
  const result = await listTrades(trader.deps, {
    page,
    role: filter.role,
    states: filter.state ? [filter.state] : undefined,
  });
  const pageId = (p: number) =>
    ctx.customId(TRADE_ACTIONS.page, pageSubject(p, filter), { ttlMs: BUTTON_TTL_MS });
  return {
    ephemeral: true,
    ...tradesPageMessage(
      result,
      {
        platformId: trader.platformId,
        roleFilter: filter.role,
        reversal: { now: ctx.deps.now(), fallbackMs: ctx.deps.config.REVERSAL_WINDOW_HOURS * 3_600_000 },
      },
      filterText(filter),
      {
        ...tradeIds(ctx),
        acceptAllId: ctx.customId(TRADE_ACTIONS.acceptAll, "", { ttlMs: BUTTON_TTL_MS }),
        openId: ctx.customId(TRADE_ACTIONS.open, "", { ttlMs: BUTTON_TTL_MS }),
        paging: numberedPaging(page, result.hasMore, pageId),
      },
    ),
  };
}

function viewReply(ctx: BaseContext, trade: TradeView, role: TradeRole, title?: string): Reply {
  return {
    ephemeral: true,
    embeds: [tradeEmbed(trade, role, title)],
    components: tradeButtons(trade, role, tradeIds(ctx)),
  };
}

async function showTrade(ctx: BaseContext, rawId: string): Promise<Reply> {
  const tradeId = parseId("trade", rawId, "trade");
  const trader = await linkedTrader(ctx);
  const trade = await viewTrade(trader.deps, { tradeId });
  return viewReply(ctx, trade, roleIn(trade, trader.platformId));
}

async function acceptReply(ctx: BaseContext, rawId: string): Promise<Reply> {
  const tradeId = parseId("trade", rawId, "trade");
  const trader = await linkedTrader(ctx);
  const trade = await acceptTrade(trader.deps, { tradeId });
  // Only the seller can accept: that is who we are talking to.
  return viewReply(ctx, trade, roleIn(trade, trader.platformId) ?? "seller", "Accepted");
}

/** Shows the trade and asks to confirm; nothing is cancelled until Cancel trade is pressed. */
async function cancelPrompt(ctx: BaseContext, rawId: string): Promise<Reply> {
  const tradeId = parseId("trade", rawId, "trade");
  const trader = await linkedTrader(ctx);
  const trade = await viewTrade(trader.deps, { tradeId });
  const role = roleIn(trade, trader.platformId);
  if (!canCancel(trade)) {
    throw new UserFacingError(
      "conflict",
      `This trade is ${tradeStateText(trade.state)}; it can no longer be cancelled.`,
      {
        tradeId,
        state: trade.state,
      },
    );
  }
  const ttl = { ttlMs: CONFIRM_TTL_MS };
  const consequence =
    role === "seller"
      ? "The buyer is refunded and the item stays yours. Cancelling a sale may count against your record."
      : "You are refunded and the item stays with the seller.";
  return {
    ephemeral: true,
    embeds: [
      embed({
        tone: "warning",
        title: "Cancel this trade?",
        description: `${consequence}\nThis cannot be undone. The question expires in 2 minutes.`,
      }),
      tradeEmbed(trade, role),
    ],
    components: row([
      button("Cancel trade", ButtonStyle.Danger, ctx.customId(TRADE_ACTIONS.cancelYes, tradeId, ttl)),
      button("Keep trade", ButtonStyle.Secondary, ctx.customId(TRADE_ACTIONS.keep, tradeId, ttl)),
    ]),
  };
}

/** Which of the user's trades each subcommand offers: those it can act on. */
const SUGGESTED_STATES: Readonly<Record<string, readonly string[] | undefined>> = {
  accept: ["queued"],
  cancel: ["queued", "pending"],
  view: undefined,
};

function suggestTrades(ctx: AutocompleteContext): Promise<readonly Choice[]> {
  if (ctx.focused.name !== "trade") return Promise.resolve([]);
  const typed = ctx.focused.value;
  const states = SUGGESTED_STATES[ctx.path];
  return userChoices(
    ctx,
    `trades:${ctx.path}`,
    ({ market, platformId }) => tradeChoices(market, platformId, states),
    (trades) => trades.filter((t) => fitsTyped(typed, t.id, t.itemName)).map(tradeChoice),
  );
}

const tradeOption = {
  name: "trade",
  description: "Trade id (from /trades list or a trade alert); suggestions show your trades",
  type: ApplicationCommandOptionType.String,
  required: true,
  autocomplete: true,
  max_length: 24,
} as const;

export const command = defineCommand({
  definition: {
    name: "trades",
    description: "Your trades after a sale: see, accept and cancel them",
    ...EVERYWHERE,
    options: [
      {
        name: "list",
        description: "Your trades, newest first",
        type: ApplicationCommandOptionType.Subcommand,
        options: [
          {
            name: "role",
            description: "Only trades where you buy, or sell",
            type: ApplicationCommandOptionType.String,
            choices: ROLE_CHOICES,
          },
          {
            name: "state",
            description: "Only trades in this state",
            type: ApplicationCommandOptionType.String,
            choices: STATE_CHOICES,
          },
        ],
      },
      {
        name: "view",
        description: "One trade with its deadlines",
        type: ApplicationCommandOptionType.Subcommand,
        options: [tradeOption],
      },
      {
        name: "accept",
        description: "Accept a sale waiting on you, then send the item on the platform",
        type: ApplicationCommandOptionType.Subcommand,
        options: [tradeOption],
      },
      {
        name: "cancel",
        description: "Cancel a trade (asks to confirm first)",
        type: ApplicationCommandOptionType.Subcommand,
        options: [tradeOption],
      },
      AUTO_ACCEPT_SUBCOMMAND,
    ],
  },
  autocomplete: suggestTrades,
  subcommands: {
    list: {
      defer: "ephemeral",
      run(ctx) {
        const filter = {
          role: parseRole(ctx.options.string("role")),
          state: parseState(ctx.options.string("state")),
        };
        return listReply(ctx, 0, filter);
      },
    },
    view: {
      defer: "ephemeral",
      run(ctx) {
        return showTrade(ctx, ctx.options.string("trade"));
      },
    },
    accept: {
      defer: "ephemeral",
      run(ctx) {
        return acceptReply(ctx, ctx.options.string("trade"));
      },
    },
    cancel: {
      defer: "ephemeral",
      run(ctx) {
        return cancelPrompt(ctx, ctx.options.string("trade"));
      },
    },
    autoaccept: {
      defer: "ephemeral",
      run(ctx) {
        return runAutoAccept(ctx, {
          enabled: ctx.options.boolean("enabled"),
          minPrice: ctx.options.string("min_price"),
          item: ctx.options.string("item"),
        });
      },
    },
  },
  components: {
    [TRADE_ACTIONS.accept]: {
      defer: "ephemeral",
      run(ctx) {
        return acceptReply(ctx, ctx.id.subject);
      },
    },
    [TRADE_ACTIONS.cancel]: {
      defer: "ephemeral",
      run(ctx) {
        return cancelPrompt(ctx, ctx.id.subject);
      },
    },
    [TRADE_ACTIONS.acceptAll]: {
      defer: "ephemeral",
      async run(ctx) {
        const trader = await linkedTrader(ctx);
        // Accepts what waits on the user now (the list may be older than the click).
        const waiting = await listTrades(trader.deps, { role: "seller", states: ["queued"] });
        if (waiting.trades.length === 0) {
          return { ephemeral: true, embeds: [notice("info", "No sales are waiting for you to accept.")] };
        }
        const outcomes = await acceptAll(trader.deps, { tradeIds: waiting.trades.map((t) => t.tradeId) });
        const note = waiting.hasMore
          ? "More sales are waiting: press Accept all again."
          : "Now send each item's transfer offer on the platform before its deadline.";
        return { ephemeral: true, embeds: [tradeOutcomesEmbed(outcomes, "accepted", note)] };
      },
    },
    [TRADE_ACTIONS.cancelYes]: {
      defer: "update",
      async run(ctx) {
        const tradeId = parseId("trade", ctx.id.subject, "trade");
        const trader = await linkedTrader(ctx);
        const trade = await cancelTrade(trader.deps, { tradeId });
        await ctx.update({
          embeds: [tradeEmbed(trade, roleIn(trade, trader.platformId), "Cancelled")],
          components: [],
        });
      },
    },
    [TRADE_ACTIONS.keep]: {
      defer: false,
      async run(ctx) {
        await ctx.update({ embeds: [notice("info", "Kept: the trade was not cancelled.")], components: [] });
      },
    },
    [TRADE_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const { page, filter } = fromPageSubject(ctx.id.subject);
        const { embeds, components } = await listReply(ctx, page, filter);
        await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
      },
    },
    [TRADE_ACTIONS.open]: {
      defer: "ephemeral",
      run(ctx) {
        return showTrade(ctx, ctx.values[0] ?? "");
      },
    },
  },
});

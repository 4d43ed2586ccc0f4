// /account transactions [type] [page]: the balance ledger, newest first, with Previous/Next.
// Plugged into commands/account.ts (definition, handler and page button).
import { ApplicationCommandOptionType, type APIApplicationCommandSubcommandOption } from "discord.js";
import { listTransactions } from "../../src/accounts/transactions.ts";
import { ACCOUNT_ACTIONS } from "../../src/discord/actions.ts";
import type { BaseContext, CommandHandler, ComponentHandler } from "../../src/discord/command.ts";
import { numberedPaging } from "../../src/discord/pager.ts";
import { transactionsPageMessage, transactionTypeLabel } from "../../src/discord/render/account.ts";
import type { Reply } from "../../src/discord/reply.ts";
import { invalidOption, UserFacingError } from "../../src/errors.ts";
import { parseIntOption } from "../../src/input/parse.ts";
import { TransactionType } from "../../src/market/schemas.ts";

const PAGE_TTL_MS = 30 * 60_000;
const MAX_PAGE = 1000;

/** Keeps option names and types literal (for typed options) while staying a mutable API shape. */
const subcommand = <const O extends APIApplicationCommandSubcommandOption>(o: O): O => o;

export const transactionsSubcommand = subcommand({
  name: "transactions",
  description: "Your balance history: purchases, sales, refunds, holds",
  type: ApplicationCommandOptionType.Subcommand,
  options: [
    {
      name: "type",
      description: "Only this kind of entry",
      type: ApplicationCommandOptionType.String,
      choices: TransactionType.options.map((t) => ({ name: transactionTypeLabel(t), value: t })),
    },
    {
      name: "page",
      description: "Page number (1 is the newest)",
      type: ApplicationCommandOptionType.Integer,
      min_value: 1,
      max_value: MAX_PAGE,
    },
  ],
});

function parseType(raw: string | undefined): TransactionType | undefined {
  if (raw === undefined) return undefined;
  const parsed = TransactionType.safeParse(raw);
  if (!parsed.success) throw invalidOption("type", `choose one of ${TransactionType.options.join(", ")}`);
  return parsed.data;
}

async function transactionsPage(
  ctx: BaseContext,
  page: number,
  type: TransactionType | undefined,
): Promise<Reply> {
  const { market } = await ctx.deps.accounts.require(ctx.user.id);
  const result = await listTransactions({ market, logger: ctx.log }, { page, type });
  const id = (p: number) =>
    ctx.customId(ACCOUNT_ACTIONS.transactionsPage, `${p}.${type ?? "any"}`, { ttlMs: PAGE_TTL_MS });
  return {
    ephemeral: true,
    ...transactionsPageMessage(result, type, numberedPaging(page, result.hasMore, id)),
  };
}

export const transactionsHandler: CommandHandler<(typeof transactionsSubcommand)["options"]> = {
  defer: "ephemeral",
  run(ctx) {
    const type = parseType(ctx.options.string("type"));
    const raw = ctx.options.integer("page");
    return transactionsPage(ctx, raw === undefined ? 0 : parseIntOption("page", raw, 1, MAX_PAGE) - 1, type);
  },
};

export const transactionsComponents: Readonly<Record<string, ComponentHandler>> = {
  [ACCOUNT_ACTIONS.transactionsPage]: {
    defer: "update",
    async run(ctx) {
      const m = /^(\d{1,4})\.([a-z_]+)$/.exec(ctx.id.subject);
      if (!m?.[1] || !m[2])
        throw new UserFacingError("invalid_input", "This button is damaged; run the command again.");
      const { embeds, components } = await transactionsPage(
        ctx,
        Number(m[1]),
        m[2] === "any" ? undefined : parseType(m[2]),
      );
      await ctx.update({ embeds: embeds ?? [], components: components ?? [] });
    },
  },
};

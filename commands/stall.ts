// /stall: a seller's public stall with its totals, paged; a private stall is said to be private.
import { ApplicationCommandOptionType } from "discord.js";
import { SEARCH_ACTIONS, STALL_ACTIONS } from "../src/discord/actions.ts";
import { defineCommand, type BaseContext } from "../src/discord/command.ts";
import type { BotDeps } from "../src/discord/deps.ts";
import { createPager, cursorPaging, PAGER_TTL_MS, type PageRef } from "../src/discord/pager.ts";
import { perApp } from "../src/discord/perApp.ts";
import { money } from "../src/discord/render/format.ts";
import { itemName } from "../src/discord/render/listing.ts";
import { listingPageMessage, PAGE_SIZE } from "../src/discord/render/search.ts";
import type { MessageUpdate } from "../src/discord/reply.ts";
import { invalidOption } from "../src/errors.ts";
import { parseId } from "../src/input/parse.ts";
import { viewStall, type StallFilter } from "../src/trading/stall.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

interface StallQuery {
  readonly platformId: string;
  readonly filter: StallFilter | undefined;
}

const stallPager = perApp((deps: BotDeps) => createPager<StallQuery>(() => deps.now().getTime()));

const FILTER_CHOICES: { name: string; value: StallFilter }[] = [
  { name: "One of each item", value: "unique" },
  { name: "Sticker combinations", value: "sticker_combos" },
];

function parseFilter(raw: string | undefined): StallFilter | undefined {
  if (raw === undefined) return undefined;
  const found = FILTER_CHOICES.find((c) => c.value === raw);
  if (!found) throw invalidOption("filter", `must be one of ${FILTER_CHOICES.map((c) => c.name).join(", ")}`);
  return found.value;
}

async function stallPage(ctx: BaseContext, ref: PageRef<StallQuery>): Promise<MessageUpdate> {
  const pager = stallPager(ctx.deps);
  const market = await ctx.deps.reads.forUser(ctx.user.id);
  const page = await viewStall(
    { market, logger: ctx.log, now: ctx.deps.now },
    {
      platformId: ref.query.platformId,
      limit: PAGE_SIZE,
      ...(ref.cursor ? { cursor: ref.cursor } : {}),
      ...(ref.query.filter ? { filter: ref.query.filter } : {}),
    },
  );
  const idFor = (action: string, subject: string) => ctx.customId(action, subject, { ttlMs: PAGER_TTL_MS });
  const seller = page.listings.find((l) => l.sellerName !== undefined)?.sellerName;
  const totals = [
    page.totalCount === undefined
      ? undefined
      : `**${page.totalCount}** listing${page.totalCount === 1 ? "" : "s"}`,
    page.totalPriceCents === undefined ? undefined : `worth **${money(page.totalPriceCents)}** in total`,
  ].filter((t): t is string => t !== undefined);
  const filter = FILTER_CHOICES.find((c) => c.value === ref.query.filter)?.name;
  const header = [totals.join(", "), filter ? `Showing: ${filter.toLowerCase()}` : undefined]
    .filter((t): t is string => t !== undefined && t !== "")
    .join("\n");
  return listingPageMessage({
    title: seller ? `Stall of ${itemName(seller, 60)}` : `Stall of ${ref.query.platformId}`,
    tone: "info",
    ...(header === "" ? {} : { header }),
    listings: page.listings,
    page: ref.page,
    empty: ref.page === 0 ? "This seller has nothing listed right now." : "No more listings.",
    footer: `seller ${ref.query.platformId}`,
    openId: idFor(SEARCH_ACTIONS.open, ""),
    paging: cursorPaging(pager, ref, page.cursor, (subject) => idFor(STALL_ACTIONS.page, subject)),
  });
}

export const command = defineCommand({
  definition: {
    name: "stall",
    description: "Show a seller's public stall",
    ...EVERYWHERE,
    options: [
      {
        name: "user",
        description: "The seller's platform id (a number)",
        type: ApplicationCommandOptionType.String,
        required: true,
        max_length: 24,
      },
      {
        name: "filter",
        description: "Show only some listings",
        type: ApplicationCommandOptionType.String,
        choices: FILTER_CHOICES,
      },
    ],
  },
  execute: {
    // A public stall is public market data; a private one answers privately (the error boundary).
    defer: "public",
    validate: (ctx) => void stallQuery(ctx.options.string("user"), ctx.options.string("filter")),
    async run(ctx) {
      const { platformId, filter } = stallQuery(ctx.options.string("user"), ctx.options.string("filter"));
      const ref = stallPager(ctx.deps).open({ platformId, filter });
      return stallPage(ctx, ref);
    },
  },
  components: {
    [STALL_ACTIONS.page]: {
      defer: "update",
      async run(ctx) {
        const ref = stallPager(ctx.deps).resolve(ctx.id.subject, "stall pages");
        await ctx.update(await stallPage(ctx, ref));
      },
    },
  },
});

/** The /stall options, validated (throws a message naming the option). */
function stallQuery(rawUser: string, rawFilter: string | undefined) {
  return { platformId: parseId("user", rawUser, "platform user"), filter: parseFilter(rawFilter) };
}

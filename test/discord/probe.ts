// A test-only command that exercises the router: crashes, refusals, marketplace calls, buttons, slow autocomplete.
import { ActionRowBuilder, ApplicationCommandOptionType, ButtonBuilder, ButtonStyle } from "discord.js";
import { defineCommand } from "../../src/discord/command.ts";
import { UserFacingError } from "../../src/errors.ts";

const Sub = ApplicationCommandOptionType.Subcommand;

/** Counts what the probe's handlers did, so tests can prove that nothing ran. */
export const probeCalls = { tap: 0, market: 0 };

export const probe = defineCommand({
  definition: {
    name: "probe",
    description: "Test-only command",
    options: [
      { name: "crash", description: "Throws a plain error", type: Sub },
      { name: "crash-deferred", description: "Defers publicly, then throws", type: Sub },
      { name: "refuse", description: "Throws a UserFacingError", type: Sub },
      { name: "market", description: "Reads the ledger with the linked key", type: Sub },
      { name: "button", description: "Posts a public button that calls the marketplace", type: Sub },
      {
        name: "search",
        description: "Autocomplete that never finishes",
        type: Sub,
        options: [
          {
            name: "query",
            description: "Anything",
            type: ApplicationCommandOptionType.String,
            required: true,
            autocomplete: true,
          },
        ],
      },
    ],
  },
  subcommands: {
    crash: {
      defer: false,
      async run() {
        throw new Error("kaboom: internal detail that must not reach users");
      },
    },
    "crash-deferred": {
      defer: "public",
      async run() {
        throw new Error("kaboom after a public deferral");
      },
    },
    refuse: {
      defer: false,
      async run() {
        throw new UserFacingError("limit_reached", "You already have 50 rules; remove one first.");
      },
    },
    market: {
      defer: "ephemeral",
      async run(ctx) {
        probeCalls.market += 1;
        const { market } = await ctx.deps.accounts.require(ctx.user.id);
        const page = await market.getTransactions({ limit: 1 });
        return { content: `ledger entries: ${page.transactions.length}`, ephemeral: true };
      },
    },
    button: {
      defer: false,
      async run(ctx) {
        return {
          content: "Press to read your ledger",
          components: [
            new ActionRowBuilder<ButtonBuilder>().addComponents(
              new ButtonBuilder()
                .setCustomId(ctx.customId("probe.tap", "123"))
                .setLabel("Read")
                .setStyle(ButtonStyle.Primary),
            ),
          ],
        };
      },
    },
    search: {
      defer: "ephemeral",
      async run(ctx) {
        return { content: `searched ${ctx.options.string("query")}`, ephemeral: true };
      },
    },
  },
  autocomplete(ctx) {
    // Never answers on its own: only the router's budget ends it.
    return new Promise((_, reject) => {
      ctx.signal.addEventListener("abort", () => reject(new Error("aborted")));
    });
  },
  components: {
    "probe.tap": {
      defer: "ephemeral",
      async run(ctx) {
        probeCalls.tap += 1;
        const { market } = await ctx.deps.accounts.require(ctx.user.id);
        await market.getTransactions({ limit: 1 });
        return { content: `read ledger for subject ${ctx.id.subject}`, ephemeral: true };
      },
    },
  },
});

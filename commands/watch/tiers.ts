// /watch tier add|list|remove: named seed tiers that /watch add tier:<name> follows. Thin: parse, call src/watch/tiers.ts, render.
import { ApplicationCommandOptionType } from "discord.js";
import { MAX_TIER_NAME } from "../../src/watch/dealFilters.ts";
import { MAX_TIER_SEEDS, MAX_TIERS_PER_USER } from "../../src/watch/tiers.ts";
import type { AutocompleteContext, Choice, CommandContext, LeafOptions } from "../../src/discord/command.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";
import { truncate } from "../../src/discord/render/format.ts";
import { safeUserText } from "../../src/input/parse.ts";

const TIER_NAME = {
  name: "name",
  description: "The tier's name",
  type: ApplicationCommandOptionType.String,
  required: true,
  autocomplete: true,
  max_length: MAX_TIER_NAME,
} as const;

export const TIER_GROUP = {
  name: "tier",
  description: "Named seed tiers for /watch add tier:<name>",
  type: ApplicationCommandOptionType.SubcommandGroup,
  options: [
    {
      name: "add",
      description: "Save a seed tier; an existing name gets the new seeds (and so do its rules)",
      type: ApplicationCommandOptionType.Subcommand,
      options: [
        { ...TIER_NAME, autocomplete: false, description: 'A name for the tier, e.g. "tier 1 blue"' },
        {
          name: "seeds",
          description: `Pattern seeds, e.g. 661, 670, 955 (at most ${MAX_TIER_SEEDS})`,
          type: ApplicationCommandOptionType.String,
          required: true,
          max_length: 1000,
        },
      ],
    },
    { name: "list", description: "Show your seed tiers", type: ApplicationCommandOptionType.Subcommand },
    {
      name: "remove",
      description: "Delete a seed tier no rule uses",
      type: ApplicationCommandOptionType.Subcommand,
      options: [TIER_NAME],
    },
  ],
} as const;

type Definition = {
  readonly name: "watch";
  readonly description: string;
  readonly options: readonly [typeof TIER_GROUP];
};
type Ctx<P extends "tier add" | "tier list" | "tier remove"> = CommandContext<LeafOptions<Definition, P>>;

/** Tier names for the `tier` option of /watch add and the `name` option of /watch tier remove. */
export async function tierChoices(ctx: AutocompleteContext): Promise<readonly Choice[]> {
  const names = await ctx.deps.rules.tiers.names({ discordId: ctx.user.id, prefix: ctx.focused.value });
  return names.map((n) => ({ name: n, value: n }));
}

/** Whether an autocomplete request is for a tier name. */
export const isTierAutocomplete = (ctx: AutocompleteContext) =>
  ctx.focused.name === "tier" || (ctx.path === "tier remove" && ctx.focused.name === "name");

const SEEDS_SHOWN = 30;

function seedList(seeds: readonly number[]): string {
  const more = seeds.length - SEEDS_SHOWN;
  return `${seeds.slice(0, SEEDS_SHOWN).join(", ")}${more > 0 ? ` +${more} more` : ""}`;
}

const quoted = (name: string, max = MAX_TIER_NAME) => `**${safeUserText(name, max)}**`;

/** Live-armed rules the new seeds widened: disarmed, said as /watch edit says it. */
function widenedNotice(names: readonly string[]) {
  const one = names.length === 1;
  const list = names.map((n) => quoted(n, 50)).join(", ");
  const first = truncate(names[0] ?? "", 50);
  return notice(
    "warning",
    `${list} ${one ? "was" : "were"} armed live, and the new seeds widen what ${one ? "it" : "they"} may buy, so ${one ? "it is" : "they are"} **disarmed**: ${one ? "it alerts" : "they alert"} but ${one ? "buys" : "buy"} nothing. \`/watch arm rule:${first} mode:live\` arms ${one ? "it" : "one"} again, after a new confirmation.`,
  );
}

/** A tier change reaches the rules following it, and the matcher, like every rule edit. */
export const TIER_SUBCOMMANDS = {
  "tier add": {
    defer: "ephemeral",
    async run(ctx: Ctx<"tier add">) {
      const tier = await ctx.deps.rules.tiers.save({
        discordId: ctx.user.id,
        name: ctx.options.string("name"),
        seeds: ctx.options.string("seeds"),
      });
      const rules =
        tier.usedBy.length === 0
          ? ""
          : `\n\nRules following it now watch these seeds: ${tier.usedBy.map((n) => quoted(n, 50)).join(", ")}.`;
      const embeds = [
        embed({
          tone: "success",
          title: truncate(`${tier.created ? "Seed tier saved" : "Seed tier replaced"}: ${tier.name}`, 256),
          description: `${tier.seeds.length} seed${tier.seeds.length === 1 ? "" : "s"}: ${seedList(tier.seeds)}${rules}\n\nUse it with \`/watch add tier:${truncate(tier.name, MAX_TIER_NAME)}\`.`,
        }),
      ];
      if (tier.disarmed.length > 0) embeds.push(widenedNotice(tier.disarmed));
      return { ephemeral: true, embeds };
    },
  },
  "tier list": {
    defer: "ephemeral",
    async run(ctx: Ctx<"tier list">) {
      const tiers = await ctx.deps.rules.tiers.list({ discordId: ctx.user.id });
      if (tiers.length === 0) {
        return {
          ephemeral: true,
          embeds: [notice("info", "You have no seed tiers yet. Add one with `/watch tier add`.")],
        };
      }
      const lines = tiers.map((t) => {
        const used =
          t.usedBy.length === 0 ? "" : `\nused by ${t.usedBy.map((n) => quoted(n, 50)).join(", ")}`;
        return `${quoted(t.name)} (${t.seeds.length}): ${seedList(t.seeds)}${used}`;
      });
      return {
        ephemeral: true,
        embeds: [
          embed({
            tone: "info",
            title: `Your seed tiers (${tiers.length}/${MAX_TIERS_PER_USER})`,
            description: truncate(lines.join("\n\n"), 4000),
          }),
        ],
      };
    },
  },
  "tier remove": {
    defer: "ephemeral",
    async run(ctx: Ctx<"tier remove">) {
      const tier = await ctx.deps.rules.tiers.remove({
        discordId: ctx.user.id,
        name: ctx.options.string("name"),
      });
      return { ephemeral: true, embeds: [notice("success", `Removed the seed tier ${quoted(tier.name)}.`)] };
    },
  },
} as const;

// /watch edit and /watch filters: change a rule in place and show it before and after.
import { parseClear } from "../../src/watch/ruleEdit.ts";
import type { RuleOptions } from "../../src/watch/ruleOptions.ts";
import { FILTER_OPTIONS } from "../../src/watch/filters/registry.ts";
import type { RuleDestination } from "../../src/watch/rules.ts";
import type { CommandContext } from "../../src/discord/command.ts";
import { embed, notice } from "../../src/discord/render/embeds.ts";
import { truncate } from "../../src/discord/render/format.ts";
import { safeUserText } from "../../src/input/parse.ts";
import { checkChannelDestination } from "./destination.ts";

/** The options of /watch edit and /watch filters, read by name (each subcommand has some of them). */
interface EditReader {
  string(name: string): string | undefined;
  integer(name: string): number | undefined;
  number(name: string): number | undefined;
  channel(name: string): { id: string } | undefined;
}

const readerOf = (ctx: CommandContext) => ctx.options as unknown as EditReader;

/** Reads every filter option of the registry (those the subcommand lacks are simply absent). */
export function ruleOptionsOf(ctx: CommandContext): RuleOptions {
  const o = readerOf(ctx);
  const options: Record<string, string | number | undefined> = {};
  for (const option of FILTER_OPTIONS) options[option.name] = o[option.type](option.name);
  return options;
}

function where(d: RuleDestination): string {
  return d.kind === "channel" ? `<#${d.channelId}>` : "your DMs";
}

/** Edits the rule named in `rule` with the options given, and answers with it before and after. */
export async function runEdit(ctx: CommandContext) {
  const o = readerOf(ctx);
  const options = ruleOptionsOf(ctx);
  const clear = parseClear(o.string("clear"));
  const tierName = o.string("tier");
  // The tier's seeds come from the database; the edit only parses what was typed.
  const tier =
    tierName === undefined
      ? undefined
      : await ctx.deps.rules.tiers.seeds({ discordId: ctx.user.id, name: tierName });
  const channel = o.channel("channel");
  const destination = channel === undefined ? undefined : checkChannelDestination(ctx, channel.id);
  if (channel !== undefined && clear.includes("channel")) {
    return {
      ephemeral: true,
      embeds: [notice("error", "`channel` and `clear: channel` contradict each other; pick one.")],
    };
  }
  const result = await ctx.deps.rules.edit({
    discordId: ctx.user.id,
    name: o.string("rule") ?? "",
    options,
    clear,
    destination,
    ...(tier === undefined ? {} : { context: { tierSeeds: tier.seeds } }),
  });
  const name = safeUserText(result.name, 50);
  const before = `${result.before.summary}\nAlerts go to ${where(result.before.destination)}.`;
  const after = `${result.after.summary}\nAlerts go to ${where(result.after.destination)}.`;
  const embeds = [
    embed({
      tone: result.unchanged ? "neutral" : "success",
      title: truncate(result.unchanged ? `Nothing changed: ${result.name}` : `Edited: ${result.name}`, 256),
      description: result.unchanged
        ? "The options given are what the rule already had."
        : "Same rule: its alert record, tier link and history are kept. New listings from now on match the new filters.",
      fields: [
        { name: "Before", value: before },
        { name: "After", value: after },
      ],
    }),
  ];
  if (result.disarmed) {
    embeds.push(
      notice(
        "warning",
        `**${name}** was armed live, and this edit widens what it may buy, so it is **disarmed**: it alerts but buys nothing. \`/watch arm rule:${truncate(result.name, 50)} mode:live\` arms it again, after a new confirmation.`,
      ),
    );
  }
  return { ephemeral: true, embeds };
}

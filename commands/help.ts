// /help: one line per registered command, generated from the definitions so it never goes stale.
import { ApplicationCommandOptionType } from "discord.js";
import { defineCommand, type CommandDefinition } from "../src/discord/command.ts";
import { embed } from "../src/discord/render/embeds.ts";
import { EVERYWHERE } from "../src/discord/install.ts";

export const command = defineCommand({
  definition: {
    name: "help",
    description: "List what the bot can do",
    ...EVERYWHERE,
  },
  execute: {
    defer: false,
    async run(ctx) {
      return {
        ephemeral: true,
        embeds: [
          embed({
            tone: "info",
            title: "Commands",
            description: [
              ...ctx.deps.commands.map(helpLine),
              "",
              WATCH_TIP,
              "",
              INSTALLS,
              "",
              privacyLine(ctx.deps.config.PRIVACY_POLICY_URL),
            ].join("\n"),
            footer:
              "Replies with your account details are only visible to you. /portfolio method explains how profit and loss is worked out.",
          }),
        ],
      };
    },
  },
});

/** How watch rules are set up, for a newcomer facing /watch's many subcommands. */
export const WATCH_TIP =
  "**Watch rules.** `/watch add` takes what most rules use (item, max price, float range, discount); " +
  "`/watch edit` changes those on a saved rule and `/watch filters` sets the rest (seeds, tiers, stickers, " +
  "profit, fade...), keeping the rule's history. **Watch similar** on an alert or a listing makes a rule from it.";

/** The two ways to have the bot (README, "Adding the bot"). */
export const INSTALLS =
  "**Two ways to have me.** Added to a server, I answer there and can post alerts in its channels. " +
  "Installed to your account, you can use me in any server or DM, even where I'm not a member; " +
  "alerts then come by DM, and where I may not post, my answers are only visible to you.";

/** What is kept and how to take it or erase it (PRIVACY.md), with the operator's published copy when set. */
export function privacyLine(policyUrl: string | undefined): string {
  const policy =
    policyUrl === undefined
      ? "the privacy policy (PRIVACY.md, shipped with the bot) says what I store and for how long"
      : `the [privacy policy](${policyUrl}) says what I store and for how long`;
  return `**Your data.** \`/account export\` gives you a file of everything I store about you; \`/account delete\` erases it; ${policy}.`;
}

/** "`/account` — Link your marketplace account (link, unlink, status)". */
export function helpLine(definition: CommandDefinition): string {
  const subcommands = (definition.options ?? []).flatMap((o) => {
    if (o.type === ApplicationCommandOptionType.Subcommand) return [o.name];
    if (o.type === ApplicationCommandOptionType.SubcommandGroup) {
      return (o.options ?? []).map((s) => `${o.name} ${s.name}`);
    }
    return [];
  });
  const tail = subcommands.length > 0 ? ` (${subcommands.join(", ")})` : "";
  return `\`/${definition.name}\` — ${definition.description}${tail}`;
}
